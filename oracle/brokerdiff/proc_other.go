//go:build !linux

package brokerdiff

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal:
// Close is the only way the JVM stops.
func dieWithParent(*exec.Cmd) {}
