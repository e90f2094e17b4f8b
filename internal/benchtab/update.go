package benchtab

import (
	"fmt"
	"regexp"
	"strings"
)

// Region is one generated region's parameters, from its opening comment.
type Region struct {
	File  string
	Match *regexp.Regexp
	Units []string
}

var openRE = regexp.MustCompile(`^<!-- benchtab (.*) -->$`)

const closeLine = "<!-- /benchtab -->"

// ParseRegion reads an opening comment's parameters: file= (required),
// match= (default every benchmark) and units= (comma-separated, default
// every unit).
func ParseRegion(params string) (Region, error) {
	r := Region{Match: regexp.MustCompile(".")}
	for _, f := range strings.Fields(params) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return r, fmt.Errorf("parameter %q is not key=value", f)
		}
		switch k {
		case "file":
			r.File = v
		case "match":
			re, err := regexp.Compile(v)
			if err != nil {
				return r, fmt.Errorf("match: %w", err)
			}
			r.Match = re
		case "units":
			r.Units = strings.Split(v, ",")
		default:
			return r, fmt.Errorf("unknown parameter %q (file, match, units)", k)
		}
	}
	if r.File == "" {
		return r, fmt.Errorf("no file= parameter")
	}
	return r, nil
}

// Update returns doc with every generated region's lines replaced by the
// table render returns for it. A region left open, or a close with no
// open, is an error naming its line.
func Update(doc string, render func(Region) (string, error)) (string, error) {
	lines := strings.SplitAfter(doc, "\n")
	var out strings.Builder
	open := 0 // line of the open region, 0 when none
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if m := openRE.FindStringSubmatch(trimmed); m != nil {
			if open != 0 {
				return "", fmt.Errorf("line %d: a region opens inside the region of line %d", i+1, open)
			}
			r, err := ParseRegion(m[1])
			if err != nil {
				return "", fmt.Errorf("line %d: %w", i+1, err)
			}
			table, err := render(r)
			if err != nil {
				return "", fmt.Errorf("line %d: %w", i+1, err)
			}
			out.WriteString(line)
			out.WriteString(table)
			open = i + 1
			continue
		}
		if trimmed == closeLine {
			if open == 0 {
				return "", fmt.Errorf("line %d: %s with no region open", i+1, closeLine)
			}
			open = 0
		}
		if open == 0 {
			out.WriteString(line)
		}
	}
	if open != 0 {
		return "", fmt.Errorf("line %d: region never closed with %s", open, closeLine)
	}
	return out.String(), nil
}
