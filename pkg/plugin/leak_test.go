package plugin_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leakProbeEnv makes the test binary a probe (see leakProbe) instead of running the tests.
const leakProbeEnv = "UPNESS_LEAK_PROBE"

// TestNoServiceOutlivesTheTests runs this test binary as a probe that starts an
// `upness serve` as the tests do, prints its pid, and then ends the way a test run can end
// without running any deferred stop: a panic (as a failed -timeout ends too), Ctrl-C, or
// SIGKILL. The service must be gone right after.
func TestNoServiceOutlivesTheTests(t *testing.T) {
	for _, how := range []string{"panic", "SIGINT", "SIGKILL"} {
		t.Run(how, func(t *testing.T) {
			probe := exec.Command(os.Args[0], "-test.run=^$")
			probe.Env = append(os.Environ(), leakProbeEnv+"="+how)
			stdout, err := probe.StdoutPipe()
			require.NoError(t, err)
			// The probe panics only when told: checked before, the service was up (else, on a loaded
			// machine, the panic could come before the check and the check read a stopped service).
			stdin, err := probe.StdinPipe()
			require.NoError(t, err)
			stderr := &syncBuffer{}
			probe.Stderr = stderr
			require.NoError(t, probe.Start())
			defer func() { _ = probe.Process.Kill(); _ = probe.Wait() }()

			lines := make(chan string, 1)
			go func() {
				scanner := bufio.NewScanner(stdout)
				for scanner.Scan() {
					lines <- scanner.Text()
				}
				close(lines)
			}()
			var pid int
			select {
			case line := <-lines:
				pid, err = strconv.Atoi(strings.TrimPrefix(line, "pid "))
				require.NoError(t, err, "the probe printed %q; its stderr:\n%s", line, stderr)
			case <-time.After(readyWait + 10*time.Second):
				t.Fatalf("the probe did not start the service; its stderr:\n%s", stderr)
			}
			// Should the test fail, it must not leak the service either.
			t.Cleanup(func() { killIfService(pid) })
			require.True(t, alive(pid), "the service runs while the probe does")

			switch how {
			case "panic":
				_, err = fmt.Fprintln(stdin, "panic now")
				require.NoError(t, err)
			case "SIGINT":
				require.NoError(t, probe.Process.Signal(syscall.SIGINT))
			case "SIGKILL":
				require.NoError(t, probe.Process.Kill())
			}
			err = probe.Wait()
			require.Error(t, err, "the probe ended abnormally")
			if how == "panic" {
				assert.Contains(t, stderr.String(), "panic: the leak probe panics")
			}

			deadline := time.Now().Add(5 * time.Second)
			for alive(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			assert.False(t, alive(pid), "upness serve (pid %d) outlived the test binary that started it (%s)", pid, how)
		})
	}
}

// leakProbe starts a service as the tests do (one that listens but stays unready: its
// trace is a named pipe nobody closes), prints "pid <pid>" and then ends as `how` says,
// never returning and never stopping the service itself.
func leakProbe(how string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "leak probe:", err)
		os.Exit(1)
	}
	var err error
	if repoRoot, err = findRepoRoot(); err != nil {
		fail(err)
	}
	dir, err := os.MkdirTemp("", "upness-leak-probe-")
	if err != nil {
		fail(err)
	}
	fifo := filepath.Join(dir, "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		fail(err)
	}
	writer, err := os.OpenFile(fifo, os.O_RDWR, 0) // keeps the pipe open: the service waits for more
	if err != nil {
		fail(err)
	}
	defer writer.Close()
	s, err := serve("--trace", fifo)
	if err != nil {
		fail(err)
	}
	if _, err := s.waitForHTTP(readyWait); err != nil {
		fail(err)
	}
	fmt.Printf("pid %d\n", s.cmd.Process.Pid)
	if how == "panic" {
		// When the test has seen the service running and says so.
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		panic("the leak probe panics with the service running")
	}
	select {} // until the test signals the probe
}

// alive says whether the process runs (a zombie, dead but not yet reaped, does not).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) state ...": comm may hold spaces and parentheses.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	state := strings.Fields(rest)
	return len(state) > 0 && state[0] != "Z" && state[0] != "X"
}

// killIfService kills pid if it still is an upness serve (the pid may have been reused).
func killIfService(pid int) {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err == nil && strings.Contains(string(cmdline), "upness.js") {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
