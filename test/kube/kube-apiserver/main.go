// Wrapper so that `go build` can produce kube-apiserver from the pinned k8s.io/kubernetes module
// (the upstream main package cannot be built from outside its own module with our pins).
package main

import (
	"os"
	"strconv"
	"syscall"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	dieWithParent()
	os.Exit(cli.Run(app.NewAPIServerCommand()))
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
