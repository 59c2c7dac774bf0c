package plugin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
)

// valuesPath is the one resource the editors and template variables use:
// values/<what>, forwarded to GET /api/v1/values/<what>. The service decides which
// <what> exist; this only keeps the path to one plain segment.
var valuesPath = regexp.MustCompile(`^values/[A-Za-z][A-Za-z0-9_-]*$`)

// CallResource forwards GET values/<what>?<query> to the service with the token and passes
// its status and body back. Every other path is 404.
func (d *Datasource) CallResource(ctx context.Context, req *backend.CallResourceRequest, sender backend.CallResourceResponseSender) error {
	path := strings.TrimPrefix(req.Path, "/")
	if !valuesPath.MatchString(path) {
		return sendJSON(sender, http.StatusNotFound, map[string]string{"error": "no such resource: " + path + " (the Upness data source serves values/<what>)"})
	}
	if req.Method != http.MethodGet {
		return sendJSON(sender, http.StatusMethodNotAllowed, map[string]string{"error": req.Method + " is not allowed on " + path + ": use GET"})
	}

	if d.misconfigured != nil {
		return sendJSON(sender, int(d.misconfigured.status), map[string]string{"error": d.misconfigured.message})
	}

	// req.URL is the path with the caller's query string (namespace=..., key=...).
	rawQuery := ""
	if u, err := url.Parse(req.URL); err == nil {
		rawQuery = u.RawQuery
	}
	answer, failure := d.service.call(ctx, http.MethodGet, "/api/v1/"+path, rawQuery, nil, true)
	if failure != nil {
		return sendJSON(sender, int(failure.status), map[string]string{"error": failure.message})
	}
	if answer.status == http.StatusUnauthorized {
		// Say which token is wrong: the browser sees this, not the service's generic message.
		return sendJSON(sender, answer.status, map[string]string{"error": d.service.answerError(answer).message})
	}
	headers := map[string][]string{}
	if ct := answer.header.Get("Content-Type"); ct != "" {
		headers["Content-Type"] = []string{ct}
	}
	return sender.Send(&backend.CallResourceResponse{Status: answer.status, Headers: headers, Body: answer.body})
}

func sendJSON(sender backend.CallResourceResponseSender, status int, body any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return sender.Send(&backend.CallResourceResponse{
		Status:  status,
		Headers: map[string][]string{"Content-Type": {"application/json"}},
		Body:    raw,
	})
}
