package plugin_test

import (
	"encoding/json"
	"testing"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/data"
	"github.com/stretchr/testify/require"

	"github.com/upness/upness-jobset-datasource/pkg/plugin"
)

// The plugin reads the service's frames as Arrow IPC files (issue 21 §4). What reaches Grafana
// must be the same frames, field for field and value for value, as the frame JSON gives:
// every query type, with nulls, labels, units, meta and notices among them.
func TestArrowFramesAreTheJSONFrames(t *testing.T) {
	needService(t)
	queries := []backend.DataQuery{
		upnessQuery("series", map[string]any{"queryType": "series", "metric": "uptimeRatio", "window": "step"}),
		upnessQuery("grouped", map[string]any{"queryType": "series", "metric": "downSeconds", "groupBy": "namespace", "aggregate": "sum", "window": "step"}),
		upnessQuery("summary", map[string]any{"queryType": "summary"}),
		upnessQuery("top", map[string]any{"queryType": "summary", "sort": map[string]any{"by": "downSeconds"}, "limit": 2}),
		upnessQuery("states", map[string]any{"queryType": "states"}),
		upnessQuery("events", map[string]any{"queryType": "events"}),
		upnessQuery("fleet", map[string]any{"queryType": "fleet", "groupBy": "namespace"}),
		upnessQuery("slo", map[string]any{"queryType": "slo", "sloAnswer": "errorBudget", "period": "1d", "objective": 0.9, "window": "range"}),
		// Nothing selected, and a factor that can never fire: a frame of no fields, only a notice.
		upnessQuery("empty", map[string]any{"queryType": "slo", "sloAnswer": "burnRate", "objective": 0.9, "burnFactor": 20, "period": "1d", "namespaces": []string{"no-such-namespace"}}),
		upnessQuery("bad", map[string]any{"queryType": "series", "metric": "nope"}),
	}
	answer := func(encoding string) *backend.QueryDataResponse {
		defer plugin.UseFrameEncoding(encoding)()
		return queryData(t, upnessDataSource(), queries...)
	}
	viaArrow, viaJSON := answer("arrow"), answer("json")

	var seen struct{ nullString, nullNumber, labels, config, meta, notice, noFields bool }
	for _, q := range queries {
		a, j := viaArrow.Responses[q.RefID], viaJSON.Responses[q.RefID]
		wantJSON, err := json.Marshal(j)
		require.NoError(t, err)
		gotJSON, err := json.Marshal(a)
		require.NoError(t, err)
		require.JSONEq(t, string(wantJSON), string(gotJSON), "query %s", q.RefID)
		require.Equal(t, j.Status, a.Status, "query %s", q.RefID)
		for _, f := range a.Frames {
			seen.meta = seen.meta || f.Meta != nil
			seen.noFields = seen.noFields || len(f.Fields) == 0
			seen.notice = seen.notice || (f.Meta != nil && len(f.Meta.Notices) > 0)
			for _, field := range f.Fields {
				seen.labels = seen.labels || len(field.Labels) > 0
				seen.config = seen.config || field.Config != nil
				for i := 0; i < field.Len(); i++ {
					if field.At(i) == (*string)(nil) {
						seen.nullString = true
					}
					if field.Type() == data.FieldTypeNullableFloat64 && field.At(i) == (*float64)(nil) {
						seen.nullNumber = true
					}
				}
			}
		}
	}
	require.Error(t, viaArrow.Responses["bad"].Error, "a refused query is still an error through Arrow")
	// The comparison covers what Arrow could lose: without these, it proves less than it says.
	require.True(t, seen.labels, "no field with labels")
	require.True(t, seen.config, "no field with a unit or display name")
	require.True(t, seen.meta, "no frame with meta")
	require.True(t, seen.notice, "no frame with a notice")
	require.True(t, seen.nullNumber, "no null number")
	require.True(t, seen.nullString, "no null string")
	require.True(t, seen.noFields, "no frame without fields")
}
