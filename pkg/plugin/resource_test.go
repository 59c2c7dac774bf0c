package plugin_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callResource sends GET <path> (path may carry a query string) as Grafana's
// /api/datasources/uid/<uid>/resources/<path> does.
func callResource(t *testing.T, pc backend.PluginContext, method, pathAndQuery string) *backend.CallResourceResponse {
	t.Helper()
	path := pathAndQuery
	for i, c := range pathAndQuery {
		if c == '?' {
			path = pathAndQuery[:i]
			break
		}
	}
	var got *backend.CallResourceResponse
	err := harness.Client.CallResource(testContext(t), &backend.CallResourceRequest{
		PluginContext: pc, Method: method, Path: path, URL: pathAndQuery,
	}, backend.CallResourceResponseSenderFunc(func(r *backend.CallResourceResponse) error {
		got = r
		return nil
	}))
	require.NoError(t, err)
	require.NotNil(t, got, "a response")
	return got
}

func values(t *testing.T, r *backend.CallResourceResponse) []string {
	t.Helper()
	var body struct {
		Values []string `json:"values"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body), string(r.Body))
	return body.Values
}

func TestCallResource(t *testing.T) {
	t.Run("values/namespaces", func(t *testing.T) {
		needService(t)
		r := callResource(t, upnessDataSource(), http.MethodGet, "values/namespaces")
		require.Equal(t, http.StatusOK, r.Status, string(r.Body))
		assert.Equal(t, []string{"team-a", "team-b"}, values(t, r))
	})

	t.Run("values/jobsets with a query string", func(t *testing.T) {
		needService(t)
		pc := upnessDataSource()
		all := values(t, callResource(t, pc, http.MethodGet, "values/jobsets"))
		teamA := values(t, callResource(t, pc, http.MethodGet, "values/jobsets?namespace=team-a"))
		assert.NotEmpty(t, teamA)
		assert.Less(t, len(teamA), len(all), "the namespace filter reached the service")
		assert.Subset(t, all, teamA)
	})

	t.Run("wrong token", func(t *testing.T) {
		needService(t)
		r := callResource(t, dataSource(map[string]any{"url": upness.url}, "not-the-token"), http.MethodGet, "values/namespaces")
		assert.Equal(t, http.StatusUnauthorized, r.Status)
		assert.JSONEq(t, `{"error": "the Upness service refused the token (check the data source's token)"}`, string(r.Body))
	})

	t.Run("unknown values are the service's to refuse", func(t *testing.T) {
		needService(t)
		r := callResource(t, upnessDataSource(), http.MethodGet, "values/colours")
		assert.GreaterOrEqual(t, r.Status, 400, string(r.Body))
		assert.Less(t, r.Status, 500, string(r.Body))
	})

	t.Run("unknown path", func(t *testing.T) {
		for _, path := range []string{"jobsets", "query", "values", "values/namespaces/x", "../readyz"} {
			r := callResource(t, upnessDataSource(), http.MethodGet, path)
			assert.Equal(t, http.StatusNotFound, r.Status, path)
		}
	})

	t.Run("only GET", func(t *testing.T) {
		r := callResource(t, upnessDataSource(), http.MethodPost, "values/namespaces")
		assert.Equal(t, http.StatusMethodNotAllowed, r.Status)
	})
}
