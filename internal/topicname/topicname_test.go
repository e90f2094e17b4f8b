package topicname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProblem proves Kafka's rule on its edges: the legal alphabet, the
// length limit, the two reserved names and non-ASCII bytes.
func TestProblem(t *testing.T) {
	for _, ok := range []string{"a", "orders", "dlq.orders_v2-1", "...", strings.Repeat("x", MaxLength)} {
		assert.Empty(t, Problem(ok), ok)
	}
	for name, want := range map[string]string{
		"":                               "is empty",
		".":                              "cannot be",
		"..":                             "cannot be",
		strings.Repeat("x", MaxLength+1): "longer than 249",
		"a b":                            "character other than",
		"ordérs":                         "character other than",
		"a/b":                            "character other than",
	} {
		assert.Contains(t, Problem(name), want, "%q", name)
	}
}
