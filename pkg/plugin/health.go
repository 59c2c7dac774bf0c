package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
)

// readiness is the body of GET /readyz: 200 once the source has delivered its first full
// sync, 503 with the reason before.
type readiness struct {
	Ready        bool        `json:"ready"`
	Reason       string      `json:"reason"`
	Source       string      `json:"source"`
	JobSets      json.Number `json:"jobsets"`
	Observations json.Number `json:"observations"`
}

// CheckHealth is Grafana's "Save & test": it asks the open /readyz whether the service is
// synced, and an authenticated endpoint whether the token is right, and says plainly which
// of the two is wrong.
func (d *Datasource) CheckHealth(ctx context.Context, _ *backend.CheckHealthRequest) (*backend.CheckHealthResult, error) {
	if d.misconfigured != nil {
		return unhealthy(d.misconfigured.message), nil
	}
	ready, failure := d.service.call(ctx, http.MethodGet, "/readyz", "", nil, false)
	if failure != nil {
		return unhealthy(failure.message), nil
	}

	// Checked even when the service is not ready, so that one test reports both problems.
	auth, failure := d.service.call(ctx, http.MethodGet, "/api/v1/values/namespaces", "", nil, true)
	if failure != nil {
		return unhealthy(failure.message), nil
	}
	if auth.status == http.StatusUnauthorized {
		return unhealthy(d.service.answerError(auth).message), nil
	}

	var r readiness
	if err := json.Unmarshal(ready.body, &r); err != nil || (ready.status != http.StatusOK && ready.status != http.StatusServiceUnavailable) {
		return unhealthy(fmt.Sprintf("%s does not look like the Upness service: /readyz answered %d %s",
			d.service.url, ready.status, http.StatusText(ready.status))), nil
	}
	if ready.status != http.StatusOK || !r.Ready {
		reason := r.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return unhealthy("Upness is not ready yet: " + reason), nil
	}
	if auth.status < 200 || auth.status > 299 {
		return unhealthy("Upness is ready, but its API answered: " + d.service.answerError(auth).message), nil
	}

	return &backend.CheckHealthResult{
		Status: backend.HealthStatusOk,
		Message: fmt.Sprintf("Upness is ready: %s, %s (source: %s)",
			count(r.JobSets, "JobSet"), count(r.Observations, "observation"), r.Source),
	}, nil
}

func unhealthy(message string) *backend.CheckHealthResult {
	return &backend.CheckHealthResult{Status: backend.HealthStatusError, Message: message}
}

// count writes "1 JobSet", "12,345 JobSets".
func count(n json.Number, noun string) string {
	if n == "1" {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// thousands writes a count as people read it: 12345 → "12,345".
func thousands(n json.Number) string {
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		if n == "" {
			return "?"
		}
		return n.String()
	}
	digits := strconv.FormatInt(v, 10)
	sign := ""
	if v < 0 {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}
