package brokerdiff

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the JVM when the process that
// started it dies, so a test killed by its timeout leaves no broker behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
