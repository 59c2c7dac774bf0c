package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
)

// QueryData forwards the queries, as they are, to POST /api/v1/query and returns the
// service's answer. The service validates and computes everything; an error in one query
// comes back as that query's error while the others still answer.
func (d *Datasource) QueryData(ctx context.Context, req *backend.QueryDataRequest) (*backend.QueryDataResponse, error) {
	out := backend.NewQueryDataResponse()
	if len(req.Queries) == 0 {
		return out, nil
	}
	if d.misconfigured != nil {
		for _, q := range req.Queries {
			out.Responses[q.RefID] = d.misconfigured.dataResponse()
		}
		return out, nil
	}

	queries := make([]map[string]json.RawMessage, 0, len(req.Queries))
	for _, q := range req.Queries {
		fields, err := forwardedQuery(q)
		if err != nil {
			out.Responses[q.RefID] = backend.ErrDataResponse(backend.StatusBadRequest, err.Error())
			continue
		}
		queries = append(queries, fields)
	}
	if len(queries) == 0 {
		return out, nil
	}
	body, err := json.Marshal(map[string]any{"queries": queries})
	if err != nil {
		return nil, fmt.Errorf("cannot encode the queries: %w", err)
	}

	answer, failure := d.service.call(ctx, http.MethodPost, "/api/v1/query", "", body, true)
	if failure == nil {
		failure = decodeResults(answer, d.service, out)
	}
	for _, q := range req.Queries {
		if _, done := out.Responses[q.RefID]; done {
			continue
		}
		if failure != nil {
			out.Responses[q.RefID] = failure.dataResponse()
		} else {
			out.Responses[q.RefID] = backend.ErrDataResponseWithSource(backend.StatusBadGateway, backend.ErrorSourceDownstream,
				"the Upness service returned no result for this query")
		}
	}
	return out, nil
}

// forwardedQuery is the query's own JSON (the fields of the query model) with the
// request-level values Grafana keeps outside it set from the SDK: refId, the interval and
// point budget it computed, and the query's time range as epoch milliseconds.
func forwardedQuery(q backend.DataQuery) (map[string]json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if len(q.JSON) > 0 {
		if err := json.Unmarshal(q.JSON, &fields); err != nil {
			return nil, fmt.Errorf("the query is not a JSON object: %w", err)
		}
	}
	set := func(key string, value any) {
		raw, _ := json.Marshal(value) // strings, numbers and maps of strings always encode
		fields[key] = raw
	}
	set("refId", q.RefID)
	if _, ok := fields["queryType"]; !ok && q.QueryType != "" {
		set("queryType", q.QueryType)
	}
	set("intervalMs", q.Interval.Milliseconds())
	set("maxDataPoints", q.MaxDataPoints)
	set("timeRange", map[string]string{
		"from": strconv.FormatInt(q.TimeRange.From.UnixMilli(), 10),
		"to":   strconv.FormatInt(q.TimeRange.To.UnixMilli(), 10),
	})
	return fields, nil
}

// decodeResults puts the service's per-query results into out. A 2xx answer is
// {"results": {...}}; so is the answer when every query failed (it then carries the first
// query's status). Any other non-2xx answer is one error for the whole request.
func decodeResults(answer reply, svc *service, out *backend.QueryDataResponse) *serviceError {
	if answer.status == http.StatusUnauthorized {
		return svc.answerError(answer)
	}
	if answer.status < 200 || answer.status > 299 {
		var probe struct {
			Results json.RawMessage `json:"results"`
		}
		if json.Unmarshal(answer.body, &probe) != nil || len(probe.Results) == 0 {
			return svc.answerError(answer)
		}
	}

	// The SDK's own decoder reads Grafana's {"results": {refId: {status, error, frames}}}
	// and the data-frame JSON inside it.
	var results backend.QueryDataResponse
	if err := json.Unmarshal(answer.body, &results); err != nil {
		return &serviceError{status: backend.StatusBadGateway, message: fmt.Sprintf("the Upness service's answer is not a query result: %v", err)}
	}
	for refID, res := range results.Responses {
		if res.Error != nil && res.ErrorSource == "" {
			res.ErrorSource = backend.ErrorSourceFromHTTPStatus(int(res.Status))
		}
		out.Responses[refID] = res
	}
	return nil
}
