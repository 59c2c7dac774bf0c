package plugin

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

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

// arrowAnswerType is the media type of the service's answer with Arrow frames
// (backend/src/http/query.ts): a 4-byte big-endian head length, the head (JSON), then the
// Arrow IPC files at the [offset, length] each result's arrowFrames gives, from the head's end.
const arrowAnswerType = "application/vnd.upness.query-results.arrow"

// answerHead is the JSON of a query answer, or the head of an Arrow one.
type answerHead struct {
	Results map[string]struct {
		Status      int                 `json:"status"`
		Error       string              `json:"error"`
		ErrorSource backend.ErrorSource `json:"errorSource"`
		Frames      data.Frames         `json:"frames"`
		ArrowFrames [][2]int            `json:"arrowFrames"`
	} `json:"results"`
}

// splitArrowAnswer reads an Arrow answer's head and returns it with the payload after it.
func splitArrowAnswer(body []byte) (answerHead, []byte, error) {
	var head answerHead
	if len(body) < 4 {
		return head, nil, fmt.Errorf("%d bytes, shorter than its head's length", len(body))
	}
	n := uint64(binary.BigEndian.Uint32(body))
	if n > uint64(len(body)-4) {
		return head, nil, fmt.Errorf("a head of %d bytes in %d", n, len(body))
	}
	if err := json.Unmarshal(body[4:4+n], &head); err != nil {
		return head, nil, err
	}
	return head, body[4+n:], nil
}

// decodeResults puts the service's per-query results into out. A 2xx answer is
// {"results": {...}}; so is the answer when every query failed (it then carries the first
// query's status). Any other non-2xx answer is one error for the whole request.
func decodeResults(answer reply, svc *service, out *backend.QueryDataResponse) *serviceError {
	if answer.status == http.StatusUnauthorized {
		return svc.answerError(answer)
	}
	isArrow := strings.HasPrefix(answer.header.Get("Content-Type"), arrowAnswerType)
	if !isArrow && (answer.status < 200 || answer.status > 299) {
		var probe struct {
			Results json.RawMessage `json:"results"`
		}
		if json.Unmarshal(answer.body, &probe) != nil || len(probe.Results) == 0 {
			return svc.answerError(answer)
		}
	}

	// Each result's frames come as Arrow IPC files, which the SDK reads column by column (or
	// as frame JSON, which it parses value by value, when asked for it or when Arrow cannot
	// carry them).
	var results answerHead
	var payload []byte
	var err error
	if isArrow {
		results, payload, err = splitArrowAnswer(answer.body)
	} else {
		err = json.Unmarshal(answer.body, &results)
	}
	if err != nil {
		return &serviceError{status: backend.StatusBadGateway, message: fmt.Sprintf("the Upness service's answer is not a query result: %v", err)}
	}
	for refID, r := range results.Results {
		res := backend.DataResponse{Status: backend.Status(r.Status), Frames: r.Frames, ErrorSource: r.ErrorSource}
		if r.ArrowFrames != nil {
			files := make([][]byte, len(r.ArrowFrames))
			for i, place := range r.ArrowFrames {
				offset, length := place[0], place[1]
				if offset < 0 || length < 0 || offset > len(payload)-length {
					return &serviceError{status: backend.StatusBadGateway, message: fmt.Sprintf("the Upness service's frame %d for %s lies outside its answer", i, refID)}
				}
				files[i] = payload[offset : offset+length]
			}
			frames, err := data.UnmarshalArrowFrames(files)
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
