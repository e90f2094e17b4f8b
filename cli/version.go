package cli

import (
	"fmt"
	"io"
	"runtime/debug"
)

// versionCmd prints the module version and, for a build from a checkout,
// the commit it was built from (and whether the tree had changes).
func versionCmd(stdout io.Writer) int {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "coordsim (no build information)")
		return exitOK
	}
	version, rev, dirty := info.Main.Version, "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (modified)"
			}
		}
	}
	if rev != "" {
		version += " " + rev + dirty
	}
	fmt.Fprintf(stdout, "coordsim %s %s\n", version, info.GoVersion)
	return exitOK
}
