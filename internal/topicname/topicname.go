// Package topicname is Kafka's topic-name rule (Topic.validate): 1 to 249
// of ASCII letters, digits, '.', '_' and '-', and not "." or "..". The
// packages that create or name topics (sharebroker, connect, the scenario
// reader) share it through Problem; the wire endpoint answers with Kafka's
// own messages (KafkaMessage) and refuses names that collide
// (HasCollisionChars, UnifyCollisionChars). The group coordinator is more
// lenient, as Kafka's is.
package topicname

import (
	"fmt"
	"strings"
	"unicode/utf16"
)

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

// KafkaMessage is Kafka's own message for a name Topic.validate refuses,
// "" for a legal name: "Topic name is invalid: " and the reason, word for
// word, in Kafka's order (empty, ".", "..", the length in UTF-16 units,
// then the alphabet). The wire endpoint answers INVALID_TOPIC_EXCEPTION
// with it; Problem stays the phrasing the simulator and shard use.
func KafkaMessage(name string) string {
	const prefix = "Topic name is invalid: "
	switch {
	case name == "":
		return prefix + "the empty string is not allowed"
	case name == ".":
		return prefix + "'.' is not allowed"
	case name == "..":
		return prefix + "'..' is not allowed"
	case len(utf16.Encode([]rune(name))) > MaxLength:
		return fmt.Sprintf("%sthe length of '%s' is longer than the max allowed length %d", prefix, name, MaxLength)
	case Problem(name) != "":
		return prefix + "'" + name + "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
	}
	return ""
}

// HasCollisionChars is Kafka's Topic.hasCollisionChars: the name holds a
// '.' or a '_', which Kafka's metric names do not tell apart.
func HasCollisionChars(name string) bool { return strings.ContainsAny(name, "._") }

// UnifyCollisionChars is Kafka's Topic.unifyCollisionChars: every '.'
// becomes '_', so two names that collide unify to the same string.
func UnifyCollisionChars(name string) string { return strings.ReplaceAll(name, ".", "_") }
