package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProgramNameAsInvoked proves printed commands name the program the
// way it was invoked (issue 26: an installed binary printed `go run
// ./cmd/coordsim replay ...`): go run's throwaway executable, in a go-build
// temporary directory or in the build cache, gives `go run` of the main
// package; an installed or built binary gives the name it was invoked by.
func TestProgramNameAsInvoked(t *testing.T) {
	checkout := invocation{pkg: "github.com/coordsim/coordsim/cmd/coordsim", module: "github.com/coordsim/coordsim", version: "(devel)"}
	with := func(args0, exe, gocache string, base invocation) invocation {
		base.args0, base.exe, base.gocache = args0, exe, gocache
		return base
	}
	mysim := checkout
	mysim.pkg = "github.com/coordsim/coordsim/cmd/mysim"
	released := checkout
	released.version = "v0.3.0"
	for _, c := range []struct {
		name string
		inv  invocation
		want string
	}{
		{"go run, temporary directory", with("/tmp/go-build123/b001/exe/coordsim", "/tmp/go-build123/b001/exe/coordsim", "", checkout), "go run ./cmd/coordsim"},
		{"go run, build cache", with("/root/.cache/go-build/30/30de-d/coordsim", "/root/.cache/go-build/30/30de-d/coordsim", "", checkout), "go run ./cmd/coordsim"},
		{"go run, custom GOCACHE", with("/srv/cache/ab/abcd-d/coordsim", "/srv/cache/ab/abcd-d/coordsim", "/srv/cache", checkout), "go run ./cmd/coordsim"},
		{"go run of a store author's program", with("/tmp/go-build9/b001/exe/mysim", "/tmp/go-build9/b001/exe/mysim", "", mysim), "go run ./cmd/mysim"},
		{"go run of a released version", with("/tmp/go-build9/b001/exe/coordsim", "/tmp/go-build9/b001/exe/coordsim", "", released), "go run github.com/coordsim/coordsim/cmd/coordsim@v0.3.0"},
		{"installed, on PATH", with("coordsim", "/root/go/bin/coordsim", "", checkout), "coordsim"},
		{"built here", with("./coordsim", "/work/coordsim", "", checkout), "./coordsim"},
		{"a path that needs quoting", with("/opt/my tools/coordsim", "/opt/my tools/coordsim", "", checkout), "'/opt/my tools/coordsim'"},
		{"a binary outside GOCACHE", with("/srv/bin/coordsim", "/srv/bin/coordsim", "/srv/cache", checkout), "/srv/bin/coordsim"},
		{"nothing known", invocation{}, DefaultProgram},
	} {
		assert.Equal(t, c.want, programName(c.inv), c.name)
	}
}
