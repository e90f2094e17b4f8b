package sim

import (
	"embed"
	"regexp"
	"slices"
	"strings"
)

// source is this package's code, read once to learn the coverage marks it
// records, so the mark list can never fall behind the code: a mark is any
// string literal passed to mark(...), and a literal followed by "+" is a
// prefix (mark("describe-" + status)).
//
//go:embed *.go
var source embed.FS

var markCall = regexp.MustCompile(`\bmark\("([a-z0-9-]+)"(\s*\+)?|Marks\["([a-z0-9-]+)"\]`)

// MarkNames returns every coverage mark this package can record, sorted;
// names ending in '-' are prefixes of a family of marks.
func MarkNames() []string {
	entries, _ := source.ReadDir(".")
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, _ := source.ReadFile(e.Name())
		for _, m := range markCall.FindAllStringSubmatch(string(data), -1) {
			name := m[1] + m[3]
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// KnownMark reports whether the simulator can record the mark name.
func KnownMark(name string) bool {
	for _, m := range MarkNames() {
		if m == name || strings.HasSuffix(m, "-") && strings.HasPrefix(name, m) {
			return true
		}
	}
	return false
}
