package plugin_test

// The plugin's tests run the way Grafana runs the plugin: through the SDK's real gRPC
// harness (datasourcetest), against a real Upness service, started here from the
// repository's own sources over a trace the simulator writes (deterministic for a seed).
//
// UPNESS_TEST_LOG=1 shows the SDK's and the plugin's logs.
//
// Golden files: pkg/testdata/*.jsonc pin the frames of an answer as they pass through the plugin
// (one, a series query: each query type's own frames are pinned by the service's goldens, in
// backend/src/frames/query-types/testdata). After a deliberate change to the service's frames,
// rewrite it with
//
//	UPNESS_UPDATE_GOLDEN=1 go test ./pkg/...
//
// and review the diff.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
	"github.com/grafana/grafana-plugin-sdk-go/backend/log"
	"github.com/grafana/grafana-plugin-sdk-go/experimental/datasourcetest"

	"github.com/upness/upness-jobset-datasource/pkg/plugin"
)

const (
	testToken = "s3cret-test-token"
	// The simulated period: --days 2 from the simulator's default start, 2026-01-01T00:00:00Z.
	traceDays = 2
	readyWait = 60 * time.Second
)

var (
	// upness is the service TestMain started; err says why not, for every test that needs it.
	upness struct {
		url          string
		trace        string
		observations int
		err          error
	}
	// harness is the plugin, served over gRPC by the SDK, and a client of it.
	harness *datasourcetest.TestPlugin
	// repoRoot holds package.json and backend/.
	repoRoot string

	traceFrom = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	traceTo   = traceFrom.Add(traceDays * 24 * time.Hour)
)

func TestMain(m *testing.M) {
	if how := os.Getenv(leakProbeEnv); how != "" {
		leakProbe(how) // never returns: see TestNoServiceOutlivesTheTests
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "upness-plugin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)

	// The SDK logs every request at debug level; UPNESS_TEST_LOG=1 shows it.
	if os.Getenv("UPNESS_TEST_LOG") == "" {
		log.DefaultLogger = log.NewNullLogger()
		backend.Logger = log.DefaultLogger
	}
	addr, err := freeAddress()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tp, err := datasourcetest.Manage(plugin.NewDatasource, datasourcetest.ManageOpts{Address: addr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot start the plugin's gRPC test server:", err)
		return 1
	}
	harness = &tp
	defer func() { _ = tp.Shutdown() }()

	// Tests that need no service (settings) still run when it cannot start; the others
	// fail with upness.err. The benchmark brings its own (bench_test.go).
	if os.Getenv(benchEnv) == "" {
		service, err := startService(tmp)
		if err != nil {
			upness.err = err
		} else {
			defer service.stop()
		}
	} else {
		upness.err = errors.New("not started: the benchmark runs against the service " + benchEnv + " names")
	}
	return m.Run()
}

// needService fails the test when TestMain could not start the service.
func needService(t *testing.T) {
	t.Helper()
	if upness.err != nil {
		t.Fatalf("the Upness service is not running: %v", upness.err)
	}
}

// findRepoRoot walks up from the package's directory to the one with package.json and backend/.
func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		_, pkgErr := os.Stat(filepath.Join(dir, "package.json"))
		info, backendErr := os.Stat(filepath.Join(dir, "backend"))
		if pkgErr == nil && backendErr == nil && info.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no directory above the tests holds package.json and backend/")
		}
		dir = parent
	}
}

// nodeCommand runs the upness CLI from the repository's sources with its own Node (22+).
//
// The process never outlives the tests, however they end: the kernel kills it when the
// test binary dies (Pdeathsig: a panic, a -timeout, SIGINT or SIGKILL run no deferred
// stop), and it leads its own process group, which stop signals whole.
func nodeCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(repoRoot, "node_modules", ".bin", "node"),
		append([]string{filepath.Join("backend", "bin", "upness.js")}, args...)...)
	cmd.Dir = repoRoot
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// runningService is an `upness serve` process with its output kept for error messages.
type runningService struct {
	url    string
	cmd    *exec.Cmd
	output *syncBuffer
	exited chan struct{}
}

// startService writes the trace and the token file into dir, then serves the trace.
func startService(dir string) (*runningService, error) {
	var err error
	if repoRoot, err = findRepoRoot(); err != nil {
		return nil, err
	}
	upness.trace = filepath.Join(dir, "trace.jsonl")
	simulate := nodeCommand("simulate", "--jobsets", "6", "--days", strconv.Itoa(traceDays), "--seed", "3", "--out", upness.trace)
	if out, err := simulate.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("upness simulate failed: %v\n%s", err, out)
	}
	trace, err := os.ReadFile(upness.trace)
	if err != nil {
		return nil, err
	}
	upness.observations = bytes.Count(trace, []byte("\n"))

	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o600); err != nil {
		return nil, err
	}
	s, err := serve("--trace", upness.trace, "--token-file", tokenFile)
	if err != nil {
		return nil, err
	}
	if err := s.waitReady(readyWait); err != nil {
		s.stop()
		return nil, err
	}
	upness.url = s.url
	return s, nil
}

// serve starts `upness serve` on a free local port with the given source options.
func serve(args ...string) (*runningService, error) {
	addr, err := freeAddress()
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	cmd := nodeCommand(append([]string{"serve", "--memory", "--host", host, "--port", port}, args...)...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start upness serve: %w", err)
	}
	s := &runningService{url: "http://" + addr, cmd: cmd, output: out, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	return s, nil
}

// waitForHTTP polls /readyz until it answers at all (any status).
func (s *runningService) waitForHTTP(wait time.Duration) (int, error) {
	deadline := time.Now().Add(wait)
	for {
		select {
		case <-s.exited:
			return 0, fmt.Errorf("upness serve exited (%v) before answering; its output:\n%s", s.cmd.ProcessState, s.output)
		default:
		}
		resp, err := http.Get(s.url + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			return resp.StatusCode, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("upness serve did not answer %s/readyz within %s; its output:\n%s", s.url, wait, s.output)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitReady polls /readyz until it is 200.
func (s *runningService) waitReady(wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		status, err := s.waitForHTTP(time.Until(deadline))
		if err != nil {
			return err
		}
		if status == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("upness serve's /readyz was still %d after %s; its output:\n%s", status, wait, s.output)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop asks the service's process group to end (SIGTERM), and kills it when the service
// does not end within 5s.
func (s *runningService) stop() {
	pgid := s.cmd.Process.Pid // the service leads its group (nodeCommand)
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.exited
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // anything it started and left behind
}

// freeAddress is a local address nobody listens on (the port is free once closed).
func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// syncBuffer collects a process's output while the tests read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// dsCount gives every data source a new UID, so the SDK makes a new instance for each
// settings variant instead of reusing a cached one.
var dsCount atomic.Int64

// dataSource is the plugin context Grafana sends for a data source with these settings.
func dataSource(jsonData map[string]any, token string) backend.PluginContext {
	raw, _ := json.Marshal(jsonData)
	secure := map[string]string{}
	if token != "" {
		secure["token"] = token
	}
	uid := fmt.Sprintf("upness-%d", dsCount.Add(1))
	return backend.PluginContext{
		OrgID:    1,
		PluginID: "upness-jobset-datasource",
		DataSourceInstanceSettings: &backend.DataSourceInstanceSettings{
			UID:                     uid,
			Name:                    uid,
			Type:                    "upness-jobset-datasource",
			JSONData:                raw,
			DecryptedSecureJSONData: secure,
			Updated:                 time.Now(),
		},
	}
}

// upnessDataSource is a data source well configured for the test service.
func upnessDataSource() backend.PluginContext {
	return dataSource(map[string]any{"url": upness.url}, testToken)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
