package plugin_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"

	"github.com/upness/upness-jobset-datasource/pkg/plugin"
)

// benchEnv is what `npm run bench:plugin` (backend/bench/plugin.ts) hands the benchmark: the
// service it started and the requests to send, so the benchmark times the whole path Grafana
// takes (the SDK's gRPC harness, the plugin, HTTP, the service) on a fleet of its choosing.
const benchEnv = "UPNESS_BENCH"

// benchRequest is one QueryData request: the queries' own JSON and Grafana's request values.
type benchRequest struct {
	Name          string            `json:"name"`
	From          int64             `json:"from"`
	To            int64             `json:"to"`
	IntervalMs    int64             `json:"intervalMs"`
	MaxDataPoints int64             `json:"maxDataPoints"`
	Queries       []json.RawMessage `json:"queries"`
}

// BenchmarkQueryData sends each request through the gRPC harness, with the frames as Arrow
// (the plugin's way) and as JSON (the way before), and reports the rows that reached the SDK.
func BenchmarkQueryData(b *testing.B) {
	raw := os.Getenv(benchEnv)
	if raw == "" {
		b.Skip("run by npm run bench:plugin, which starts the service and says what to send")
	}
	var setup struct {
		URL      string         `json:"url"`
		Requests []benchRequest `json:"requests"`
	}
	if err := json.Unmarshal([]byte(raw), &setup); err != nil {
		b.Fatalf("%s: %v", benchEnv, err)
	}
	pc := dataSource(map[string]any{"url": setup.URL}, "")
	for _, r := range setup.Requests {
		queries := make([]backend.DataQuery, len(r.Queries))
		for i, q := range r.Queries {
			var head struct {
				RefID     string `json:"refId"`
				QueryType string `json:"queryType"`
			}
			if err := json.Unmarshal(q, &head); err != nil {
				b.Fatalf("%s: query %d: %v", r.Name, i, err)
			}
			queries[i] = backend.DataQuery{
				RefID: head.RefID, QueryType: head.QueryType, JSON: q,
				Interval: time.Duration(r.IntervalMs) * time.Millisecond, MaxDataPoints: r.MaxDataPoints,
				TimeRange: backend.TimeRange{From: time.UnixMilli(r.From), To: time.UnixMilli(r.To)},
			}
		}
		for _, encoding := range []string{"arrow", "json"} {
			b.Run(r.Name+"/"+encoding, func(b *testing.B) {
				defer plugin.UseFrameEncoding(encoding)()
				rows := 0
				for b.Loop() {
					resp, err := harness.Client.QueryData(b.Context(), &backend.QueryDataRequest{PluginContext: pc, Queries: queries})
					if err != nil {
						b.Fatal(err)
					}
					rows = 0
					for refID, res := range resp.Responses {
						if res.Error != nil {
							b.Fatalf("%s: %s: %v", r.Name, refID, res.Error)
						}
						for _, f := range res.Frames {
							n, _ := f.RowLen()
							rows += n
						}
					}
				}
				b.ReportMetric(float64(rows), "rows")
			})
		}
	}
}
