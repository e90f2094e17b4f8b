package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coordsim/coordsim/assignor"
)

// TestSubscriptionTypeCountsMissingTopicNames proves the subscription type
// is decided on the names, as Kafka's ModernGroup.subscriptionType counts
// them: a member that also names a topic the image does not have makes the
// group heterogeneous, equal names (regex-resolved ones included) keep it
// homogeneous.
func TestSubscriptionTypeCountsMissingTopicNames(t *testing.T) {
	a := &member{subscribedTopics: []string{"t1", "t2"}}
	b := &member{subscribedTopics: []string{"t1", "t2", "missing"}}
	c := &member{subscribedTopics: []string{"t1"}, consumer: &consumerMember{regexTopics: []string{"t2"}}}
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{a, b}))
	assert.Equal(t, assignor.Homogeneous, subscriptionType([]*member{a, c}))
	assert.Equal(t, assignor.Homogeneous, subscriptionType([]*member{a}))
	assert.Equal(t, assignor.Homogeneous, subscriptionType(nil))
	assert.Equal(t, assignor.Heterogeneous, subscriptionType([]*member{a, {}}), "a member subscribing to nothing")
}
