package plugin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func checkHealth(t *testing.T, pc backend.PluginContext) *backend.CheckHealthResult {
	t.Helper()
	res, err := harness.Client.CheckHealth(testContext(t), &backend.CheckHealthRequest{PluginContext: pc})
	require.NoError(t, err)
	return res
}

func TestCheckHealth(t *testing.T) {
	t.Run("ready", func(t *testing.T) {
		needService(t)
		res := checkHealth(t, upnessDataSource())
		assert.Equal(t, backend.HealthStatusOk, res.Status, res.Message)
		// The trace has one observation a line; the JobSet count is the service's to tell.
		assert.Regexp(t, fmt.Sprintf(`^Upness is ready: \d+ JobSets, %s observations \(source: trace\)$`, withCommas(upness.observations)), res.Message)
	})

	t.Run("wrong token", func(t *testing.T) {
		needService(t)
		res := checkHealth(t, dataSource(map[string]any{"url": upness.url}, "not-the-token"))
		assert.Equal(t, backend.HealthStatusError, res.Status)
		assert.Equal(t, "the Upness service refused the token (check the data source's token)", res.Message)
	})

	t.Run("unreachable", func(t *testing.T) {
		addr, err := freeAddress()
		require.NoError(t, err)
		res := checkHealth(t, dataSource(map[string]any{"url": "http://" + addr}, testToken))
		assert.Equal(t, backend.HealthStatusError, res.Status)
		assert.Equal(t, fmt.Sprintf("Upness service unreachable at http://%s: connection refused", addr), res.Message)
	})

	t.Run("not synced yet", func(t *testing.T) {
		needService(t)
		// A trace read from a named pipe: the service listens, and stays unready until
		// the pipe is closed.
		fifo := filepath.Join(t.TempDir(), "trace.fifo")
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
		writer, err := os.OpenFile(fifo, os.O_RDWR, 0) // RDWR: does not wait for the reader
		require.NoError(t, err)
		defer writer.Close()
		s, err := serve("--trace", fifo)
		require.NoError(t, err)
		defer s.stop()
		_, err = s.waitForHTTP(readyWait)
		require.NoError(t, err)

		pc := dataSource(map[string]any{"url": s.url}, "")
		res := checkHealth(t, pc)
		assert.Equal(t, backend.HealthStatusError, res.Status)
		assert.Equal(t, "Upness is not ready yet: replaying "+fifo, res.Message)

		trace, err := os.ReadFile(upness.trace)
		require.NoError(t, err)
		_, err = writer.Write(trace)
		require.NoError(t, err)
		require.NoError(t, writer.Close())
		require.NoError(t, s.waitReady(readyWait))
		res = checkHealth(t, pc)
		assert.Equal(t, backend.HealthStatusOk, res.Status, res.Message)
		assert.Regexp(t, fmt.Sprintf(`^Upness is ready: \d+ JobSets?, %s observations \(source: trace\)$`, withCommas(upness.observations)), res.Message)
	})

	t.Run("invalid URL", func(t *testing.T) {
		// The instance answers with the reason (see TestMisconfigured for queries and resources).
		res := checkHealth(t, dataSource(map[string]any{"url": "upness:8080"}, ""))
		assert.Equal(t, backend.HealthStatusError, res.Status)
		assert.Contains(t, res.Message, `the Upness service URL "upness:8080" is not valid`)
	})
}

func withCommas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
