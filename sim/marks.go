package sim

import (
	"embed"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/coordsim/coordsim/sim/connectsim"
)

// source is this package's code, read once (with the Connect simulator's)
// to learn the coverage marks it records, so the mark list can never fall
// behind the code: a mark is any string literal passed to mark(...) (Mark
// in connectsim), and a literal followed by "+" is a prefix
// (mark("describe-" + status)).
//
//go:embed *.go
var source embed.FS

var markCall = regexp.MustCompile(`\b[mM]ark\("([a-z0-9-]+)"(\s*\+)?|Marks\["([a-z0-9-]+)"\]`)

// MarkNames returns every coverage mark this package can record, sorted;
// names ending in '-' are prefixes of a family of marks. The caller may keep
// and change the slice.
func MarkNames() []string { return slices.Clone(markNames()) }

// markNames scans the source once: a sweep checks every required mark, and
// a scan takes tens of milliseconds.
var markNames = sync.OnceValue(scanMarkNames)

func scanMarkNames() []string {
	var out []string
	for _, src := range []fs.FS{source, connectsim.Source()} {
		entries, _ := fs.ReadDir(src, ".")
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			data, _ := fs.ReadFile(src, e.Name())
			for _, m := range markCall.FindAllStringSubmatch(string(data), -1) {
				name := m[1] + m[3]
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// KnownMark reports whether the simulator can record the mark name.
func KnownMark(name string) bool {
	for _, m := range markNames() {
		if m == name || strings.HasSuffix(m, "-") && strings.HasPrefix(name, m) {
			return true
		}
	}
	return false
}
