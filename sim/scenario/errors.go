package scenario

import (
	"errors"
	"strconv"
	"strings"
)

// ErrUnknown is wrapped by the error [Builtin] and [Resolve] return for a name
// that is neither a built-in scenario nor (for Resolve) a path.
var ErrUnknown = errors.New("unknown scenario")

// Error is what [Parse] and [Load] return for a bad scenario file: where, which
// key, and what is wrong. Line is 1-based and always at least 1 (line 1 when the
// problem has no better place, such as an empty file); Column is 1-based, or 0
// when unknown. Key is the dotted path of the offending key
// ("workload.members_max"), or empty when the problem is not about one key.
type Error struct {
	File   string
	Line   int
	Column int
	Key    string
	Msg    string
}

// Error reads like a compiler's message:
//
//	scenarios/foo.yaml:12:3: key "workload.membrs_max": unknown key (did you mean "members_max"?)
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(e.Line))
	if e.Column > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Column))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString("key ")
		b.WriteString(strconv.Quote(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// suggest returns " (did you mean "x"?)" for the known key closest to an
// unknown one, or "" when none is close. Case, '-' and '_' are ignored, so
// "membersMax", "members-max" and "membrs_max" all find "members_max".
func suggest(key string, known []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
	}
	k := norm(key)
	best, bestDist := "", -1
	for _, c := range known {
		d := levenshtein(k, norm(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// Allow about one typo per three letters, at least two.
	if bestDist < 0 || bestDist > max(2, len(k)/3) {
		return ""
	}
	return " (did you mean " + strconv.Quote(best) + "?)"
}

// levenshtein is the edit distance between two short keys. Keys longer than
// maxKeyLen never reach it (they are reported without a suggestion).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
