package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/backend/httpclient"
	"github.com/grafana/grafana-plugin-sdk-go/backend/log"
)

// service is the way to the Upness service: its address, the token, and an HTTP client.
type service struct {
	url     string
	token   string
	timeout time.Duration
	client  *http.Client
}

// newService builds the client from the SDK's httpclient, so that Grafana's proxy, TLS,
// tracing and user-agent settings apply, with the timeout taken from our own setting.
func newService(ctx context.Context, s backend.DataSourceInstanceSettings, settings Settings) (*service, error) {
	opts, err := s.HTTPClientOptions(ctx)
	if err != nil {
		return nil, err
	}
	opts.Timeouts.Timeout = settings.Timeout
	client, err := httpclient.New(opts)
	if err != nil {
		return nil, err
	}
	return &service{url: settings.URL, token: settings.Token, timeout: settings.Timeout, client: client}, nil
}

// reply is the service's whole answer: every body it sends is a small-to-medium JSON document.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// serviceError is why the service gave no usable answer, worded for the person reading
// it in Grafana, with the HTTP status Grafana should see.
type serviceError struct {
	status  backend.Status
	message string
}

func (e *serviceError) Error() string { return e.message }

// dataResponse is the error as one query's answer. Errors from reaching or answering
// are the service's (downstream), not the plugin's, except the few statuses the SDK says are ours.
func (e *serviceError) dataResponse() backend.DataResponse {
	return backend.ErrDataResponseWithSource(e.status, backend.ErrorSourceFromHTTPStatus(int(e.status)), e.message)
}

// call sends one request and reads the whole answer. withToken is false only for the
// open /readyz. A non-nil error is always a *serviceError: the service could not be reached
// or did not answer in time. Any HTTP answer, 2xx or not, is a reply for the caller to judge.
func (s *service) call(ctx context.Context, method, path, rawQuery string, body []byte, withToken bool) (reply, *serviceError) {
	target := s.url + path
	if rawQuery != "" {
		target += "?" + rawQuery
	}
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return reply{}, &serviceError{status: backend.StatusInternal, message: fmt.Sprintf("cannot build the request to %s: %v", target, err)}
	}
	// Query answers come as Arrow when asked for with ?frames=arrow; everything else as JSON.
	req.Header.Set("Accept", "application/json, "+arrowAnswerType)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if withToken && s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}

	logger := log.DefaultLogger.FromContext(ctx)
	start := time.Now()
	resp, err := s.client.Do(req)
	if err == nil {
		// The client's timeout covers reading the body too. Read into a buffer of the announced
		// size: a query answer may be megabytes, which io.ReadAll would copy as it grows.
		var buf bytes.Buffer
		if resp.ContentLength > 0 && resp.ContentLength < 1<<30 {
			buf.Grow(int(resp.ContentLength) + bytes.MinRead)
		}
		_, err = buf.ReadFrom(resp.Body)
		data := buf.Bytes()
		_ = resp.Body.Close()
		if err == nil {
			logger.Debug("Upness service answered", "method", method, "path", path, "status", resp.StatusCode, "duration", time.Since(start))
			return reply{status: resp.StatusCode, header: resp.Header, body: data}, nil
		}
	}
	failure := s.transportError(ctx, err)
	logger.Warn("Upness service request failed", "method", method, "path", path, "error", failure.message, "duration", time.Since(start))
	return reply{}, failure
}

// transportError says why no answer came: too slow (504) or not reachable (502).
func (s *service) transportError(ctx context.Context, err error) *serviceError {
	var netErr net.Error
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return &serviceError{status: backend.StatusBadGateway, message: "the request to the Upness service was cancelled"}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		// Grafana's own deadline came before ours.
		return &serviceError{status: backend.StatusTimeout, message: "Upness service did not answer before Grafana's deadline for the request"}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return &serviceError{status: backend.StatusTimeout, message: fmt.Sprintf("Upness service did not answer within %s", s.timeout)}
	default:
		return &serviceError{status: backend.StatusBadGateway, message: fmt.Sprintf("Upness service unreachable at %s: %s", s.url, rootCause(err))}
	}
}

// rootCause keeps the part of a transport error a person acts on ("connection refused",
// "no such host") and drops Go's wrapping ("Post \"http://...\": dial tcp ...:").
func rootCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.Error()
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err.Error()
	}
	return err.Error()
}

// answerError is the error a non-2xx answer stands for: the service's own
// {"error": "..."} message when it gives one, with the answer's status.
func (s *service) answerError(r reply) *serviceError {
	status := backend.Status(r.status)
	if r.status == http.StatusUnauthorized {
		if s.token == "" {
			return &serviceError{status: status, message: "the Upness service needs a token: set the data source's token"}
		}
		return &serviceError{status: status, message: "the Upness service refused the token (check the data source's token)"}
	}
	var body struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(r.body, &body) == nil && body.Error != "" {
		return &serviceError{status: status, message: body.Error}
	}
	return &serviceError{status: status, message: fmt.Sprintf("the Upness service answered %d %s", r.status, http.StatusText(r.status))}
}
