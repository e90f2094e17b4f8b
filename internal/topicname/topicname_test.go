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

// TestKafkaMessage pins Kafka's Topic.validate messages, as
// ReplicationControlManagerTest.testValidateNewTopicNames and
// TopicTest.testInvalidTopicNames expect them, and leaves a legal name "".
func TestKafkaMessage(t *testing.T) {
	long := strings.Repeat("x", MaxLength+1)
	for name, want := range map[string]string{
		"":       "Topic name is invalid: the empty string is not allowed",
		".":      "Topic name is invalid: '.' is not allowed",
		"..":     "Topic name is invalid: '..' is not allowed",
		long:     "Topic name is invalid: the length of '" + long + "' is longer than the max allowed length 249",
		"a b":    "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
		"ordérs": "Topic name is invalid: 'ordérs' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
	} {
		assert.Equal(t, want, KafkaMessage(name), "%q", name)
	}
	for _, ok := range []string{"a", "...", "dlq.orders_v2-1", strings.Repeat("x", MaxLength)} {
		assert.Empty(t, KafkaMessage(ok), ok)
	}
	// A name of 249 non-ASCII characters is too long in bytes but not in
	// UTF-16 units: Kafka reports the alphabet, not the length.
	assert.Contains(t, KafkaMessage(strings.Repeat("é", MaxLength)), "contains one or more characters")
}

// TestCollisionChars is Kafka's TopicTest.testTopicHasCollisionChars and
// testUnifyCollisionChars.
func TestCollisionChars(t *testing.T) {
	assert.False(t, HasCollisionChars("foo-bar"))
	assert.True(t, HasCollisionChars("foo.bar"))
	assert.True(t, HasCollisionChars("foo_bar"))
	assert.Equal(t, "foo_bar_baz", UnifyCollisionChars("foo.bar_baz"))
	assert.Equal(t, UnifyCollisionChars("c.d"), UnifyCollisionChars("c_d"))
}
