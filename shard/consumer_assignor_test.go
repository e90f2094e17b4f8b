package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coordsim/coordsim/assignor"
)

// TestSubscriptionTypeCountsMissingTopicNames proves the subscription type
// is decided on the names, as Kafka's ConsumerGroup.subscriptionType counts
// them: a member that also names a topic the image does not have makes the
// group heterogeneous. With regular expressions the group is homogeneous
// only when every member subscribes to the one regex and names nothing
// (--regex seed 602 of the differential runner: a member with a regex and
// names beside one with the same names is heterogeneous in Kafka).
func TestSubscriptionTypeCountsMissingTopicNames(t *testing.T) {
	a := &member{subscribedTopics: []string{"t1", "t2"}}
	b := &member{subscribedTopics: []string{"t1", "t2", "missing"}}
	withRegex := func(re string, names ...string) *member {
		return &member{subscribedTopics: names, consumer: &consumerMember{topicRegex: re, regexTopics: []string{"t1", "t2"}}}
	}
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{a, b}))
	assert.Equal(t, assignor.Homogeneous, subscriptionType([]*member{a, {subscribedTopics: []string{"t1", "t2"}}}))
	assert.Equal(t, assignor.Homogeneous, subscriptionType([]*member{a}))
	assert.Equal(t, assignor.Homogeneous, subscriptionType(nil))
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{a, {}}), "a member subscribing to nothing")

	assert.Equal(t, assignor.Homogeneous, subscriptionType([]*member{withRegex("t.*"), withRegex("t.*")}), "one regex, no names")
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{a, withRegex("x.*", "t1", "t2")}), "a regex beside the same names")
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{withRegex("t.*", "t1"), withRegex("t.*", "t1")}), "a regex and a name")
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{withRegex("t.*"), withRegex("t[12]")}), "two regexes")
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{withRegex("t.*"), a}), "a regex and names in the first member only")
}
