// Package topicname is Kafka's topic-name rule (Topic.validate): 1 to 249
// of ASCII letters, digits, '.', '_' and '-', and not "." or "..". The
// packages that create or name topics (sharebroker, connect, the scenario
// reader) share it; the group coordinator is more lenient, as Kafka's is.
package topicname

import "fmt"

// MaxLength is Kafka's Topic.MAX_NAME_LENGTH.
const MaxLength = 249

// Problem returns why name is not a legal topic name ("" when it is),
// phrased to follow the name: `topic "x" ` + Problem(x).
func Problem(name string) string {
	switch {
	case name == "":
		return "is empty"
	case name == "." || name == "..":
		return `cannot be "." or ".."`
	case len(name) > MaxLength:
		return fmt.Sprintf("is longer than %d characters", MaxLength)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "contains a character other than ASCII alphanumerics, '.', '_' and '-'"
		}
	}
	return ""
}
