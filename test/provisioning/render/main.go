// A renderer for Grafana alert rule templates (annotations and labels), for
// test/provisioning/provisioning.test.ts. Standard library only, so it builds offline.
//
// Grafana expands a rule's templates with Go's text/template, as Prometheus does, over:
//
//	.Labels  the alert instance's labels (map of strings)
//	.Values  the captured values of the Reduce, Math and Threshold expressions, by refId; each
//	         {Labels, Value float64}; a refId without a value (no data, an error) holds NaN, and
//	         an error alert (DatasourceError) holds none at all
//	.Value   the evaluation string
//
// prefixed with `{{- $labels := .Labels -}}{{- $values := .Values -}}{{- $value := .Value -}}`,
// with the option missingkey=invalid (a missing label or refId prints "<no value>", and reaches
// a function as nil), and "<no value>" in the output replaced by "[no value]". A template that
// fails to parse or execute is an error (Grafana logs it and keeps the raw template text).
//
// The functions are Prometheus' template functions (humanize, humanizeDuration, ...) and
// Grafana's own (filterLabels, removeLabels, ...), written here from their documented behaviour;
// the numeric ones refuse a value they cannot read as a number ("can't convert <nil> to float").
//
// Input on standard input: a JSON array of {"id", "template", "labels", "values", "value"}, where
// "values" maps a refId to {"labels", "value"} and a value of null stands for NaN. Output: a JSON
// array of {"id", "text"} or {"id", "error"}.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"
)

type Labels map[string]string

// String prints k=v pairs, sorted by key, as Grafana's Labels do.
func (l Labels) String() string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ", ")
}

type Value struct {
	Labels Labels
	Value  float64
}

// String prints the value with two significant digits after the point where it is small.
func (v Value) String() string {
	a := math.Abs(v.Value)
	if a == 0 {
		return "0"
	}
	if math.IsNaN(a) || math.IsInf(a, 0) {
		return strconv.FormatFloat(v.Value, 'f', -1, 64)
	}
	precision := 2 - (int(math.Floor(math.Log10(a))) + 1)
	if precision < 0 {
		precision = 0
	}
	return strconv.FormatFloat(v.Value, 'f', precision, 64)
}

type Data struct {
	Labels Labels
	Values map[string]Value
	Value  string
}

func toFloat(i interface{}) (float64, error) {
	switch v := i.(type) {
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	case string:
		return strconv.ParseFloat(v, 64)
	case time.Duration:
		return v.Seconds(), nil
	default:
		return 0, fmt.Errorf("can't convert %v to float", i)
	}
}

func humanize(i interface{}) (string, error) {
	v, err := toFloat(i)
	if err != nil {
		return "", err
	}
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprintf("%.4g", v), nil
	}
	if math.Abs(v) >= 1 {
		prefix := ""
		for _, p := range []string{"k", "M", "G", "T", "P", "E", "Z", "Y"} {
			if math.Abs(v) < 1000 {
				break
			}
			prefix = p
			v /= 1000
		}
		return fmt.Sprintf("%.4g%s", v, prefix), nil
	}
	prefix := ""
	for _, p := range []string{"m", "u", "n", "p", "f", "a", "z", "y"} {
		if math.Abs(v) >= 1 {
			break
		}
		prefix = p
		v *= 1000
	}
	return fmt.Sprintf("%.4g%s", v, prefix), nil
}

func humanize1024(i interface{}) (string, error) {
	v, err := toFloat(i)
	if err != nil {
		return "", err
	}
	if math.Abs(v) <= 1 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprintf("%.4g", v), nil
	}
	prefix := ""
	for _, p := range []string{"ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"} {
		if math.Abs(v) < 1024 {
			break
		}
		prefix = p
		v /= 1024
	}
	return fmt.Sprintf("%.4g%s", v, prefix), nil
}

// humanizeDuration: seconds as "1d 2h 3m 4s", "2m 5s", "12.5s", "250ms".
func humanizeDuration(i interface{}) (string, error) {
	v, err := toFloat(i)
	if err != nil {
		return "", err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprintf("%.4g", v), nil
	}
	if v == 0 {
		return "0s", nil
	}
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	if v >= 1 {
		whole := int64(v)
		days, hours, minutes, seconds := whole/86400, whole/3600%24, whole/60%60, whole%60
		switch {
		case days != 0:
			return fmt.Sprintf("%s%dd %dh %dm %ds", sign, days, hours, minutes, seconds), nil
		case hours != 0:
			return fmt.Sprintf("%s%dh %dm %ds", sign, hours, minutes, seconds), nil
		case minutes != 0:
			return fmt.Sprintf("%s%dm %ds", sign, minutes, seconds), nil
		}
		return fmt.Sprintf("%s%.4gs", sign, v), nil
	}
	prefix := ""
	for _, p := range []string{"m", "u", "n", "p", "f", "a", "z", "y"} {
		if v >= 1 {
			break
		}
		prefix = p
		v *= 1000
	}
	return fmt.Sprintf("%s%.4g%ss", sign, v, prefix), nil
}

func humanizePercentage(i interface{}) (string, error) {
	v, err := toFloat(i)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%.4g%%", v*100), nil
}

func humanizeTimestamp(i interface{}) (string, error) {
	v, err := toFloat(i)
	if err != nil {
		return "", err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprintf("%.4g", v), nil
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC().String(), nil
}

func filterLabels(m Labels, keep bool, match func(string) bool) Labels {
	out := Labels{}
	for k, v := range m {
		if match(k) == keep {
			out[k] = v
		}
	}
	return out
}

var funcs = template.FuncMap{
	"humanize":           humanize,
	"humanize1024":       humanize1024,
	"humanizeDuration":   humanizeDuration,
	"humanizePercentage": humanizePercentage,
	"humanizeTimestamp":  humanizeTimestamp,
	"toUpper":            strings.ToUpper,
	"toLower":            strings.ToLower,
	"title":              strings.Title, //nolint:staticcheck // Prometheus' title is strings.Title
	"match":              regexp.MatchString,
	"reReplaceAll": func(pattern, repl, text string) string {
		return regexp.MustCompile(pattern).ReplaceAllString(text, repl)
	},
	"args": func(args ...interface{}) map[string]interface{} {
		out := map[string]interface{}{}
		for i, a := range args {
			out[fmt.Sprintf("arg%d", i)] = a
		}
		return out
	},
	"filterLabels": func(m Labels, name string) Labels {
		return filterLabels(m, true, func(k string) bool { return k == name })
	},
	"removeLabels": func(m Labels, name string) Labels {
		return filterLabels(m, false, func(k string) bool { return k == name })
	},
	"filterLabelsRe": func(m Labels, pattern string) Labels {
		return filterLabels(m, true, regexp.MustCompile(pattern).MatchString)
	},
	"removeLabelsRe": func(m Labels, pattern string) Labels {
		return filterLabels(m, false, regexp.MustCompile(pattern).MatchString)
	},
}

type input struct {
	ID       string                     `json:"id"`
	Template string                     `json:"template"`
	Labels   map[string]string          `json:"labels"`
	Values   map[string]json.RawMessage `json:"values"`
	Value    string                     `json:"value"`
}

type inputValue struct {
	Labels map[string]string `json:"labels"`
	Value  *float64          `json:"value"`
}

type output struct {
	ID    string `json:"id"`
	Text  string `json:"text,omitempty"`
	Error string `json:"error,omitempty"`
}

func render(in input) (string, error) {
	data := Data{Labels: Labels(in.Labels), Values: map[string]Value{}, Value: in.Value}
	if data.Labels == nil {
		data.Labels = Labels{}
	}
	for refID, raw := range in.Values {
		var v inputValue
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", fmt.Errorf("values.%s: %w", refID, err)
		}
		f := math.NaN()
		if v.Value != nil {
			f = *v.Value
		}
		data.Values[refID] = Value{Labels: Labels(v.Labels), Value: f}
	}
	text := "{{- $labels := .Labels -}}{{- $values := .Values -}}{{- $value := .Value -}}" + in.Template
	tmpl, err := template.New("__alert_" + in.ID).Option("missingkey=invalid").Funcs(funcs).Parse(text)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	if err := tmpl.Execute(&out, data); err != nil {
		return "", err
	}
	return strings.ReplaceAll(out.String(), "<no value>", "[no value]"), nil
}

func main() {
	var inputs []input
	if err := json.NewDecoder(os.Stdin).Decode(&inputs); err != nil {
		fmt.Fprintln(os.Stderr, "render: reading the input:", err)
		os.Exit(2)
	}
	outputs := make([]output, len(inputs))
	for i, in := range inputs {
		text, err := render(in)
		if err != nil {
			outputs[i] = output{ID: in.ID, Error: err.Error()}
		} else {
			outputs[i] = output{ID: in.ID, Text: text}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(outputs); err != nil {
		fmt.Fprintln(os.Stderr, "render: writing the output:", err)
		os.Exit(2)
	}
}
