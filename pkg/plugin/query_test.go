package plugin_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/data"
	"github.com/grafana/grafana-plugin-sdk-go/experimental"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upnessQuery is a query as a panel sends it: the query model's fields in the JSON
// (with the datasource reference Grafana adds, which the service ignores), over the whole trace.
func upnessQuery(refID string, model map[string]any) backend.DataQuery {
	fields := map[string]any{"refId": refID, "datasource": map[string]string{"type": "upness-jobset-datasource", "uid": "upness"}}
	for k, v := range model {
		fields[k] = v
	}
	raw, _ := json.Marshal(fields)
	queryType, _ := model["queryType"].(string)
	return backend.DataQuery{
		RefID:         refID,
		QueryType:     queryType,
		JSON:          raw,
		Interval:      6 * time.Hour,
		MaxDataPoints: 100,
		TimeRange:     backend.TimeRange{From: traceFrom, To: traceTo},
	}
}

// queryData sends the queries through the gRPC harness as Grafana would.
func queryData(t *testing.T, pc backend.PluginContext, queries ...backend.DataQuery) *backend.QueryDataResponse {
	t.Helper()
	resp, err := harness.Client.QueryData(testContext(t), &backend.QueryDataRequest{PluginContext: pc, Queries: queries})
	require.NoError(t, err)
	require.Len(t, resp.Responses, len(queries), "one response per query")
	return resp
}

// checkGolden compares the answer with pkg/testdata/<name>.jsonc (see main_test.go to update).
func checkGolden(t *testing.T, name string, dr backend.DataResponse) {
	t.Helper()
	update := os.Getenv("UPNESS_UPDATE_GOLDEN") != ""
	if update {
		// The SDK compares before it writes; without the old file it just writes.
		_ = os.Remove(filepath.Join("..", "testdata", name+".jsonc"))
	}
	experimental.CheckGoldenJSONResponse(t, filepath.Join("..", "testdata"), name, &dr, update)
	if update {
		_ = os.Chmod(filepath.Join("..", "testdata", name+".jsonc"), 0o644) // the SDK writes 0600
	}
}

func TestQuerySeries(t *testing.T) {
	needService(t)
	pc := upnessDataSource()

	t.Run("per JobSet", func(t *testing.T) {
		resp := queryData(t, pc, upnessQuery("A", map[string]any{
			"queryType": "series", "metric": "uptimeRatio", "window": "step",
		}))
		dr := resp.Responses["A"]
		require.NoError(t, dr.Error)
		require.NotEmpty(t, dr.Frames)
		// intervalMs 6h over 2 days: a point at from, at every step, and at to.
		points := int(traceTo.Sub(traceFrom)/(6*time.Hour)) + 1
		for _, f := range dr.Frames {
			require.Len(t, f.Fields, 2, f.Name)
			assert.Equal(t, "A", f.RefID)
			require.NotNil(t, f.Meta, f.Name)
			assert.Equal(t, data.FrameTypeTimeSeriesMulti, f.Meta.Type, f.Name)
			assert.Equal(t, data.FieldTypeTime, f.Fields[0].Type(), f.Name)
			assert.Equal(t, points, f.Fields[0].Len(), f.Name)
			value := f.Fields[1]
			assert.Equal(t, "uptimeRatio", value.Name)
			assert.Equal(t, data.FieldTypeNullableFloat64, value.Type(), f.Name)
			for _, label := range []string{"namespace", "jobset", "uid"} {
				assert.NotEmpty(t, value.Labels[label], "%s: label %s", f.Name, label)
			}
			require.NotNil(t, value.Config, f.Name)
			assert.Equal(t, "percentunit", value.Config.Unit, f.Name)
		}
		// The first point is at the range's start: the time range reached the service.
		assert.Equal(t, traceFrom, dr.Frames[0].Fields[0].At(0).(time.Time).UTC())
	})

	t.Run("maxDataPoints raises the step", func(t *testing.T) {
		q := upnessQuery("A", map[string]any{"queryType": "series", "metric": "upSeconds", "groupBy": "all", "aggregate": "sum", "window": "step"})
		q.MaxDataPoints = 5
		dr := queryData(t, pc, q).Responses["A"]
		require.NoError(t, dr.Error)
		require.Len(t, dr.Frames, 1)
		assert.LessOrEqual(t, dr.Frames[0].Fields[0].Len(), 5)
		assert.Greater(t, dr.Frames[0].Fields[0].Len(), 1)
	})

	t.Run("per namespace, golden", func(t *testing.T) {
		resp := queryData(t, pc, upnessQuery("A", map[string]any{
			"queryType": "series", "metric": "downSeconds", "groupBy": "namespace", "aggregate": "sum", "window": "step",
		}))
		dr := resp.Responses["A"]
		require.NoError(t, dr.Error)
		require.NotEmpty(t, dr.Frames)
		for _, f := range dr.Frames {
			assert.NotEmpty(t, f.Fields[1].Labels["namespace"], f.Name)
			assert.Equal(t, "s", f.Fields[1].Config.Unit, f.Name)
		}
		checkGolden(t, "series_downSeconds_by_namespace", dr)
	})
}

func TestQuerySummary(t *testing.T) {
	needService(t)
	resp := queryData(t, upnessDataSource(), upnessQuery("S", map[string]any{"queryType": "summary"}))
	dr := resp.Responses["S"]
	require.NoError(t, dr.Error)
	require.Len(t, dr.Frames, 1)
	f := dr.Frames[0]
	assert.GreaterOrEqual(t, mustRows(t, f), 6, "a row per JobSet")
	for name, unit := range map[string]string{"upSeconds": "s", "uptimeRatio": "percentunit", "interruptions": "none"} {
		field, _ := f.FieldByName(name)
		require.NotNil(t, field, "field %s", name)
		require.NotNil(t, field.Config, "field %s", name)
		assert.Equal(t, unit, field.Config.Unit, "unit of %s", name)
	}
	for _, name := range []string{"namespace", "name", "uid", "state"} {
		field, _ := f.FieldByName(name)
		require.NotNil(t, field, "field %s", name)
		assert.Equal(t, data.FieldTypeString, field.Type(), "field %s", name)
	}

	// A table's sort and limit (issue 21 §2) pass through as the other fields do; the service
	// sorts and limits, and the frame's meta (the whole table's row count and totals, the
	// notice Grafana shows) reaches Grafana unchanged.
	t.Run("sort and limit pass through, and the meta comes back", func(t *testing.T) {
		q := upnessQuery("L", map[string]any{"queryType": "summary", "sort": map[string]any{"by": "downSeconds", "direction": "desc"}, "limit": 3})
		dr := queryData(t, upnessDataSource(), q).Responses["L"]
		require.NoError(t, dr.Error)
		require.Len(t, dr.Frames, 1)
		f := dr.Frames[0]
		require.Equal(t, 3, mustRows(t, f), "the limit")
		down, _ := f.FieldByName("downSeconds")
		require.NotNil(t, down)
		for i := 1; i < down.Len(); i++ {
			prev, _ := down.ConcreteAt(i - 1)
			cur, _ := down.ConcreteAt(i)
			assert.GreaterOrEqual(t, prev, cur, "most down time first")
		}
		require.NotNil(t, f.Meta)
		custom, ok := f.Meta.Custom.(map[string]any)
		require.True(t, ok, "meta.custom is an object: %#v", f.Meta.Custom)
		assert.Equal(t, 3.0, custom["shown"])
		assert.GreaterOrEqual(t, custom["rows"], 6.0, "the whole table's row count")
		require.Len(t, f.Meta.Notices, 1)
		assert.Regexp(t, `^3 of [\d,]+ rows$`, f.Meta.Notices[0].Text)

		bad := queryData(t, upnessDataSource(), upnessQuery("B", map[string]any{"queryType": "summary", "limit": 0})).Responses["B"]
		require.Error(t, bad.Error)
		assert.Equal(t, backend.StatusBadRequest, bad.Status)
		assert.Contains(t, bad.Error.Error(), "queries[0].limit: must be a whole number of rows from 1")
	})

	t.Run("queryType outside the query's JSON", func(t *testing.T) {
		q := upnessQuery("S", nil)
		q.QueryType = "summary"
		dr := queryData(t, upnessDataSource(), q).Responses["S"]
		require.NoError(t, dr.Error)
		require.Len(t, dr.Frames, 1)
		assert.Equal(t, "summary", dr.Frames[0].Name)
	})
}

func TestQueryStates(t *testing.T) {
	needService(t)
	resp := queryData(t, upnessDataSource(), upnessQuery("T", map[string]any{"queryType": "states", "namespaces": []string{"team-a"}}))
	dr := resp.Responses["T"]
	require.NoError(t, dr.Error)
	require.NotEmpty(t, dr.Frames)
	known := []string{"provisioning", "up", "down", "suspended", "unknown", "completed", "failed", "deleted"}
	var unknown []string
	for _, f := range dr.Frames {
		require.Len(t, f.Fields, 2, f.Name)
		assert.Equal(t, data.FieldTypeTime, f.Fields[0].Type(), f.Name)
		state := f.Fields[1]
		assert.Equal(t, "state", state.Name)
		require.Contains(t, []data.FieldType{data.FieldTypeString, data.FieldTypeNullableString}, state.Type(), f.Name)
		require.NotNil(t, state.Config, f.Name)
		assert.True(t, strings.HasPrefix(state.Config.DisplayNameFromDS, "team-a/"), "display name %q", state.Config.DisplayNameFromDS)
		// Before creation and after the end a JobSet has no state: null, a gap in the panel.
		// The SDK reads a null in a field not declared nullable as "", which is no state.
		for i := 0; i < state.Len(); i++ {
			if s, ok := state.ConcreteAt(i); ok && !slices.Contains(known, fmt.Sprint(s)) {
				unknown = append(unknown, fmt.Sprintf("%s row %d: %q", f.Name, i, s))
			}
		}
	}
	assert.Empty(t, unknown, "values of field state (type %s) that are no state", dr.Frames[0].Fields[1].Type())
}

func TestQueryEvents(t *testing.T) {
	needService(t)
	resp := queryData(t, upnessDataSource(), upnessQuery("E", map[string]any{"queryType": "events"}))
	dr := resp.Responses["E"]
	require.NoError(t, dr.Error)
	require.Len(t, dr.Frames, 1)
	f := dr.Frames[0]
	var names []string
	for _, field := range f.Fields {
		names = append(names, field.Name)
	}
	for _, name := range []string{"time", "timeEnd", "title", "text", "tags"} {
		assert.Contains(t, names, name)
	}
	assert.Positive(t, mustRows(t, f), "two days of a simulated fleet hold an interruption")
}

// An `slo` query passes through the plugin backend as every other: its frames (a time field and
// labelled numbers) and its notice reach Grafana unchanged.
func TestQuerySlo(t *testing.T) {
	needService(t)
	resp := queryData(t, upnessDataSource(), upnessQuery("O", map[string]any{
		"queryType": "slo", "sloAnswer": "errorBudget", "period": "1d", "objective": 0.9, "window": "range", "namespaces": []string{"team-a"},
	}))
	dr := resp.Responses["O"]
	require.NoError(t, dr.Error)
	require.NotEmpty(t, dr.Frames)
	for _, f := range dr.Frames {
		require.Len(t, f.Fields, 7, f.Name)
		assert.Equal(t, data.FieldTypeTime, f.Fields[0].Type(), f.Name)
		assert.Equal(t, "remainingSeconds", f.Fields[3].Name)
		assert.Equal(t, "team-a", f.Fields[1].Labels["namespace"], f.Name)
		assert.NotEmpty(t, f.Fields[1].Labels["jobset"], f.Name)
	}

	t.Run("a burn factor that can never fire: the notice reaches Grafana", func(t *testing.T) {
		q := upnessQuery("N", map[string]any{"queryType": "slo", "sloAnswer": "burnRate", "objective": 0.9, "burnFactor": 14.4, "groupBy": "all", "period": "1d"})
		dr := queryData(t, upnessDataSource(), q).Responses["N"]
		require.NoError(t, dr.Error)
		require.Len(t, dr.Frames, 1)
		require.NotNil(t, dr.Frames[0].Meta)
		require.Len(t, dr.Frames[0].Meta.Notices, 1)
		assert.Contains(t, dr.Frames[0].Meta.Notices[0].Text, "The largest factor that can fire is 10")
	})
}

func TestQueryErrors(t *testing.T) {
	needService(t)

	t.Run("one bad query among good ones", func(t *testing.T) {
		resp := queryData(t, upnessDataSource(),
			upnessQuery("A", map[string]any{"queryType": "series", "metric": "upSeconds"}),
			upnessQuery("B", map[string]any{"queryType": "series", "metric": "nope"}),
		)
		require.NoError(t, resp.Responses["A"].Error)
		assert.NotEmpty(t, resp.Responses["A"].Frames)
		bad := resp.Responses["B"]
		require.Error(t, bad.Error)
		assert.Equal(t, backend.StatusBadRequest, bad.Status)
		assert.Contains(t, bad.Error.Error(), "metric")
		assert.Empty(t, bad.Frames)
	})

	t.Run("every query bad", func(t *testing.T) {
		// The service answers 400 with the per-query results; each keeps its own error.
		resp := queryData(t, upnessDataSource(),
			upnessQuery("A", map[string]any{"queryType": "nope"}),
			upnessQuery("B", map[string]any{"window": "nope"}),
		)
		for refID, field := range map[string]string{"A": "queryType", "B": "window"} {
			dr := resp.Responses[refID]
			require.Error(t, dr.Error, refID)
			assert.Equal(t, backend.StatusBadRequest, dr.Status, refID)
			assert.Contains(t, dr.Error.Error(), field, refID)
		}
	})

	t.Run("wrong token", func(t *testing.T) {
		resp := queryData(t, dataSource(map[string]any{"url": upness.url}, "not-the-token"), upnessQuery("A", nil), upnessQuery("B", nil))
		for _, dr := range resp.Responses {
			require.Error(t, dr.Error)
			assert.Equal(t, backend.StatusUnauthorized, dr.Status)
			assert.Equal(t, "the Upness service refused the token (check the data source's token)", dr.Error.Error())
		}
	})

	t.Run("no token", func(t *testing.T) {
		resp := queryData(t, dataSource(map[string]any{"url": upness.url}, ""), upnessQuery("A", nil))
		assert.Equal(t, backend.StatusUnauthorized, resp.Responses["A"].Status)
		assert.Equal(t, "the Upness service needs a token: set the data source's token", resp.Responses["A"].Error.Error())
	})
}

func TestQueryTransportErrors(t *testing.T) {
	t.Run("unreachable", func(t *testing.T) {
		addr, err := freeAddress() // closed: nobody listens there
		require.NoError(t, err)
		resp := queryData(t, dataSource(map[string]any{"url": "http://" + addr}, testToken), upnessQuery("A", nil))
		dr := resp.Responses["A"]
		assert.Equal(t, backend.StatusBadGateway, dr.Status)
		assert.Equal(t, backend.ErrorSourceDownstream, dr.ErrorSource)
		assert.EqualError(t, dr.Error, fmt.Sprintf("Upness service unreachable at http://%s: connection refused", addr))
	})

	t.Run("too slow", func(t *testing.T) {
		// A service that accepts connections and never answers.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		go func() {
			var held []net.Conn // open and silent until the listener closes
			defer func() {
				for _, c := range held {
					_ = c.Close()
				}
			}()
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
			}
		}()
		start := time.Now()
		resp := queryData(t, dataSource(map[string]any{"url": "http://" + l.Addr().String(), "timeoutSeconds": 0.5}, testToken), upnessQuery("A", nil))
		dr := resp.Responses["A"]
		assert.Equal(t, backend.StatusTimeout, dr.Status)
		assert.EqualError(t, dr.Error, "Upness service did not answer within 500ms")
		assert.Less(t, time.Since(start), 5*time.Second)
	})
}

func mustRows(t *testing.T, f *data.Frame) int {
	t.Helper()
	n, err := f.RowLen()
	require.NoError(t, err)
	return n
}
