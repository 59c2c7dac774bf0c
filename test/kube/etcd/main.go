// Wrapper so that `go build` can produce etcd from the pinned go.etcd.io/etcd/server/v3 module.
package main

import (
	"os"
	"strconv"
	"syscall"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	dieWithParent()
	etcdmain.Main(os.Args)
}

// dieWithParent: when the test helper sets UPNESS_PARENT_PID, ask the kernel to kill us as soon as
// that process exits, so a crashed or killed test run never leaves a cluster behind.
func dieWithParent() {
	parent, err := strconv.Atoi(os.Getenv("UPNESS_PARENT_PID"))
	if err != nil {
		return
	}
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0)
	if os.Getppid() != parent { // the parent died before prctl took effect
		os.Exit(1)
	}
}
