package plugin

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
)

// defaultTimeout is how long a request to the service may take when jsonData sets no timeoutSeconds.
const defaultTimeout = 30 * time.Second

// Settings are one data source's configuration, from its jsonData and secureJsonData.
type Settings struct {
	// URL of the Upness service, without a trailing slash: http://upness:8080.
	URL string
	// Timeout of one request to the service, including reading its answer.
	Timeout time.Duration
	// Token is sent as "Authorization: Bearer <token>" when set. Never log it.
	Token string
}

// jsonData is the data source's non-secret configuration as the ConfigEditor saves it.
type jsonData struct {
	URL string `json:"url"`
	// 30 or "30": an editor's text input may save either.
	TimeoutSeconds any `json:"timeoutSeconds"`
}

// LoadSettings reads and checks a data source's settings, so that a wrong URL is
// reported when the data source is saved rather than as a puzzling query error.
func LoadSettings(s backend.DataSourceInstanceSettings) (Settings, error) {
	var jd jsonData
	if len(s.JSONData) > 0 {
		if err := json.Unmarshal(s.JSONData, &jd); err != nil {
			return Settings{}, fmt.Errorf("cannot read the data source's settings (jsonData): %w", err)
		}
	}

	// Provisioning files and Grafana's generic HTTP settings put the address in the
	// data source's own url field; take it when jsonData has none.
	if strings.TrimSpace(jd.URL) == "" {
		jd.URL = s.URL
	}
	base, err := checkURL(jd.URL)
	if err != nil {
		return Settings{}, err
	}

	timeout := defaultTimeout
	if jd.TimeoutSeconds != nil {
		seconds, ok := jd.TimeoutSeconds.(float64)
		if text, isText := jd.TimeoutSeconds.(string); isText {
			var err error
			seconds, err = strconv.ParseFloat(strings.TrimSpace(text), 64)
			ok = err == nil
		}
		if !ok || seconds <= 0 {
			return Settings{}, fmt.Errorf("timeoutSeconds must be a positive number of seconds, not %v", jd.TimeoutSeconds)
		}
		timeout = time.Duration(seconds * float64(time.Second))
	}

	return Settings{
		URL:     base,
		Timeout: timeout,
		Token:   strings.TrimSpace(s.DecryptedSecureJSONData["token"]),
	}, nil
}

// checkURL accepts an absolute http(s) URL naming a host, optionally with a path prefix
// (a service behind a reverse proxy), and returns it without a trailing slash.
func checkURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", fmt.Errorf("the Upness service URL is not set: enter it in the data source's settings, e.g. http://upness:8080")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("the Upness service URL %q is not valid: it must start with http:// or https:// and name a host, e.g. http://upness:8080", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("the Upness service URL %q is not valid: it must have no query, fragment or user, e.g. http://upness:8080", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}
