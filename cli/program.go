package cli

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// invocation is what programName reads from the process: how it was
// invoked and how it was built. A value, so that tests name any case.
type invocation struct {
	// args0 is os.Args[0]; exe is os.Executable's answer ("" if unknown).
	args0, exe string
	// gocache is $GOCACHE when the environment sets it.
	gocache string
	// pkg is the main package's import path, module its module's path and
	// version its version ("(devel)" for a build from a checkout); all ""
	// without build information.
	pkg, module, version string
}

// osInvocation reads the running process's invocation.
func osInvocation() invocation {
	inv := invocation{gocache: os.Getenv("GOCACHE")}
	if len(os.Args) > 0 {
		inv.args0 = os.Args[0]
	}
	inv.exe, _ = os.Executable()
	if bi, ok := debug.ReadBuildInfo(); ok {
		inv.pkg, inv.module, inv.version = bi.Path, bi.Main.Path, bi.Main.Version
	}
	return inv
}

// programName is how a printed command invokes this program again. Under
// `go run` the executable is a throwaway in the build cache or a go-build
// temporary directory, which the next `go run` replaces: the command is
// then `go run ./cmd/coordsim` (the main package relative to its module;
// `go run module/cmd/coordsim@version` for a build of a released version).
// Otherwise it is os.Args[0] as typed (a path works from the same
// directory, a bare name through $PATH).
func programName(inv invocation) string {
	if underGoRun(inv) && inv.pkg != "" {
		if inv.version != "" && inv.version != "(devel)" {
			return "go run " + shellQuote(inv.pkg+"@"+inv.version)
		}
		rel := "."
		if rest, ok := strings.CutPrefix(inv.pkg, inv.module+"/"); ok {
			rel = "./" + rest
		}
		return "go run " + shellQuote(rel)
	}
	if inv.args0 == "" {
		return DefaultProgram
	}
	return shellQuote(inv.args0)
}

// underGoRun reports whether the executable is one `go run` built: it
// lives in a go-build temporary directory ($TMPDIR/go-buildN/b001/exe/) or
// in the build cache (go 1.24 and later cache go run's executables under
// $GOCACHE, by default $HOME/.cache/go-build).
func underGoRun(inv invocation) bool {
	exe := filepath.Clean(inv.exe)
	if inv.exe == "" {
		return false
	}
	if inv.gocache != "" {
		if rel, err := filepath.Rel(filepath.Clean(inv.gocache), exe); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(exe)), "/") {
		if strings.HasPrefix(dir, "go-build") {
			return true
		}
	}
	return false
}
