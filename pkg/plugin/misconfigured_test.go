package plugin_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A data source that cannot reach the service, because its settings are wrong or the
// service is not there, says why in every answer Grafana shows: Save & test's message, each
// query's error (with a status, so a panel shows it) and the resource's {"error": ...} body
// (what the query editor's and variables' drop-downs show). None of them may be the
// SDK's bare error, which Grafana turns into "500 An error occurred within the plugin".
func TestMisconfigured(t *testing.T) {
	nobody, err := freeAddress()
	require.NoError(t, err)

	cases := []struct {
		name     string
		jsonData map[string]any
		// status of each query and of the resource call: 400 for settings the user must
		// fix, 502 for a service that is not there.
		status  int
		message string
	}{
		{
			name:     "bad URL",
			jsonData: map[string]any{"url": "upness:8080"},
			status:   http.StatusBadRequest,
			message:  `the Upness service URL "upness:8080" is not valid: it must start with http:// or https:// and name a host, e.g. http://upness:8080`,
		},
		{
			name:     "empty URL",
			jsonData: map[string]any{"url": ""},
			status:   http.StatusBadRequest,
			message:  "the Upness service URL is not set: enter it in the data source's settings, e.g. http://upness:8080",
		},
		{
			name:     "negative timeout",
			jsonData: map[string]any{"url": "http://upness:8080", "timeoutSeconds": -5},
			status:   http.StatusBadRequest,
			message:  "timeoutSeconds must be a positive number of seconds, not -5",
		},
		{
			name:     "unreachable service",
			jsonData: map[string]any{"url": "http://" + nobody},
			status:   http.StatusBadGateway,
			message:  fmt.Sprintf("Upness service unreachable at http://%s: connection refused", nobody),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pc := dataSource(c.jsonData, testToken)

			t.Run("Save & test", func(t *testing.T) {
				res := checkHealth(t, pc)
				assert.Equal(t, backend.HealthStatusError, res.Status)
				assert.Equal(t, c.message, res.Message)
			})

			t.Run("queries", func(t *testing.T) {
				// Two queries: each gets the explanation, not only the first.
				resp := queryData(t, pc,
					upnessQuery("A", map[string]any{"queryType": "series", "metric": "uptimeRatio", "window": "step"}),
					upnessQuery("B", map[string]any{"queryType": "summary"}))
				for _, refID := range []string{"A", "B"} {
					dr := resp.Responses[refID]
					require.Error(t, dr.Error, refID)
					assert.Equal(t, c.message, dr.Error.Error(), refID)
					assert.Equal(t, backend.Status(c.status), dr.Status, refID)
					// The user's settings or the service, not a fault of the plugin.
					assert.Equal(t, backend.ErrorSourceDownstream, dr.ErrorSource, refID)
					assert.Empty(t, dr.Frames, refID)
				}
			})

			t.Run("resource", func(t *testing.T) {
				r := callResource(t, pc, http.MethodGet, "values/namespaces")
				assert.Equal(t, c.status, r.Status)
				assert.Equal(t, []string{"application/json"}, r.Headers["Content-Type"])
				want, _ := json.Marshal(map[string]string{"error": c.message})
				assert.JSONEq(t, string(want), string(r.Body))
			})
		})
	}

	t.Run("a bad path is still 404 whatever the settings", func(t *testing.T) {
		r := callResource(t, dataSource(map[string]any{"url": ""}, ""), http.MethodGet, "nothing/here")
		assert.Equal(t, http.StatusNotFound, r.Status)
	})
}
