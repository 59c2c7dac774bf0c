package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/data"
)

// frameEncoding is how the plugin asks the service for frames: arrow (Arrow IPC files, read by
// the SDK column by column) or json (the frame JSON, parsed value by value). Tests and the
// benchmark set it to compare the two.
var frameEncoding = "arrow"

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

	answer, failure := d.service.call(ctx, http.MethodPost, "/api/v1/query", "frames="+frameEncoding, body, true)
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

	// Each result's frames come as Arrow IPC files (base64 in JSON, which encoding/json decodes
	// into []byte), which the SDK reads column by column; as frame JSON when asked for it.
	var results struct {
		Results map[string]struct {
			Status      int                 `json:"status"`
			Error       string              `json:"error"`
			ErrorSource backend.ErrorSource `json:"errorSource"`
			Frames      data.Frames         `json:"frames"`
			ArrowFrames [][]byte            `json:"arrowFrames"`
		} `json:"results"`
	}
	if err := json.Unmarshal(answer.body, &results); err != nil {
		return &serviceError{status: backend.StatusBadGateway, message: fmt.Sprintf("the Upness service's answer is not a query result: %v", err)}
	}
	for refID, r := range results.Results {
		res := backend.DataResponse{Status: backend.Status(r.Status), Frames: r.Frames, ErrorSource: r.ErrorSource}
		if r.ArrowFrames != nil {
			frames, err := data.UnmarshalArrowFrames(r.ArrowFrames)
			if err != nil {
				return &serviceError{status: backend.StatusBadGateway, message: fmt.Sprintf("the Upness service's frames for %s are not Arrow frames: %v", refID, err)}
			}
			res.Frames = frames
		}
		if r.Error != "" {
			res.Error = errors.New(r.Error)
			if res.ErrorSource == "" {
				res.ErrorSource = backend.ErrorSourceFromHTTPStatus(r.Status)
			}
		}
		out.Responses[refID] = res
	}
	return nil
}
