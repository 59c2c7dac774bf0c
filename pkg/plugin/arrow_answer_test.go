package plugin

// Answers the real service never sends (it is tested over real gRPC in arrow_test.go): a cut or
// corrupt Arrow answer, which only a broken proxy or disk could make, must be a clear 502 and
// never a panic; and the frame JSON a result keeps when Arrow cannot carry its times.

import (
	"encoding/binary"
	"net/http"
	"strings"
	"testing"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/stretchr/testify/require"
)

func arrowReply(head string, payload []byte) reply {
	body := binary.BigEndian.AppendUint32(nil, uint32(len(head)))
	body = append(append(body, head...), payload...)
	return reply{status: http.StatusOK, header: http.Header{"Content-Type": {arrowAnswerType}}, body: body}
}

func TestCorruptArrowAnswersAreBadGateway(t *testing.T) {
	svc := &service{url: "http://upness.invalid"}
	for name, answer := range map[string]reply{
		"shorter than its head's length": {status: http.StatusOK, header: http.Header{"Content-Type": {arrowAnswerType}}, body: []byte{0, 0}},
		"a head longer than the answer":  {status: http.StatusOK, header: http.Header{"Content-Type": {arrowAnswerType}}, body: []byte{0, 0, 1, 0, '{'}},
		"a head that is not JSON":        arrowReply("{results", nil),
		"a frame outside the answer":     arrowReply(`{"results":{"A":{"status":200,"arrowFrames":[[0,64]]}}}`, make([]byte, 8)),
		"a negative offset":              arrowReply(`{"results":{"A":{"status":200,"arrowFrames":[[-8,8]]}}}`, make([]byte, 8)),
		"bytes that are not Arrow":       arrowReply(`{"results":{"A":{"status":200,"arrowFrames":[[0,8]]}}}`, []byte("notarrow")),
	} {
		t.Run(name, func(t *testing.T) {
			out := backend.NewQueryDataResponse()
			failure := decodeResults(answer, svc, out)
			require.NotNil(t, failure)
			require.Equal(t, backend.StatusBadGateway, failure.status)
			require.True(t, strings.HasPrefix(failure.message, "the Upness service's"), failure.message)
		})
	}
}

func TestArrowAnswerKeepsFrameJSONWhereArrowCannot(t *testing.T) {
	// A time in 9999, which int64 nanoseconds cannot hold: the service keeps that result's frame
	// JSON, and the plugin reads it exactly as from a JSON answer (where the SDK's own reading of
	// such a time is its own affair: Grafana's frames end in 2262 too).
	results := `{"F":{"status":200,"frames":[{"schema":{"refId":"F","fields":[{"name":"time","type":"time","typeInfo":{"frame":"time.Time"}}]},"data":{"values":[[253402214400000]]}}]},` +
		`"E":{"status":400,"error":"metric: nope"}}`
	viaArrow, viaJSON := backend.NewQueryDataResponse(), backend.NewQueryDataResponse()
	require.Nil(t, decodeResults(arrowReply(`{"results":`+results+`}`, nil), &service{}, viaArrow))
	jsonAnswer := reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/json"}}, body: []byte(`{"results":` + results + `}`)}
	require.Nil(t, decodeResults(jsonAnswer, &service{}, viaJSON))
	require.Len(t, viaArrow.Responses["F"].Frames, 1)
	require.Equal(t, 1, viaArrow.Responses["F"].Frames[0].Fields[0].Len())
	require.Equal(t, viaJSON.Responses["F"].Frames[0].Fields[0].At(0), viaArrow.Responses["F"].Frames[0].Fields[0].At(0))
	require.EqualError(t, viaArrow.Responses["E"].Error, "metric: nope")
	require.Equal(t, backend.Status(400), viaArrow.Responses["E"].Status)
}
