package assignor_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
)

func TestAssign_BadSpecIsRefusedAndUntouched(t *testing.T) {
	// Every malformed spec gets an UNKNOWN_SERVER_ERROR (Kafka's
	// PartitionAssignorException as the coordinator reports it), no target,
	// and is left exactly as it was.
	cases := map[string]assignor.Spec{
		"empty member id":  {Members: []assignor.Member{member("", nil)}},
		"duplicate member": {Members: []assignor.Member{member("A", nil), member("A", nil)}},
		"empty topic name": {Topics: []assignor.Topic{topic("", 1)}},
		"duplicate topic":  {Topics: []assignor.Topic{topic("t", 1), topic("t", 2)}},
		"negative count":   {Topics: []assignor.Topic{topic("t", -1)}},
		"racks mismatch":   {Topics: []assignor.Topic{{Name: "t", Partitions: 2, Racks: [][]string{{"r"}}}}},
		"missing topic":    {Topics: []assignor.Topic{topic("t", 1)}, Members: []assignor.Member{member("A", subs("u"))}},
		"two owners": {Topics: []assignor.Topic{topic("t", 2)}, Members: []assignor.Member{
			member("A", subs("t"), tp("t", 0)), member("B", subs("t"), tp("t", 0)),
		}},
		"homogeneous declared for different subscriptions": {
			Topics:           []assignor.Topic{topic("t", 1), topic("u", 1)},
			Members:          []assignor.Member{member("A", subs("t")), member("B", subs("u"))},
			SubscriptionType: assignor.Homogeneous,
		},
		"unknown subscription type": {SubscriptionType: 9},
	}
	for name, spec := range cases {
		for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.Range{}} {
			t.Run(a.Name()+"/"+name, func(t *testing.T) {
				before := deepCopy(spec)
				got, err := a.Assign(&spec)
				require.ErrorIs(t, err, kerr.UnknownServerError)
				assert.Nil(t, got)
				assert.Equal(t, before, spec, "the spec is not modified")
			})
		}
	}
	for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.Range{}} {
		_, err := a.Assign(nil)
		require.ErrorIs(t, err, kerr.UnknownServerError)
	}
}

func TestAssign_SpecIsNeverModified(t *testing.T) {
	// A valid spec with unsorted input comes back as it went in.
	spec := assignor.Spec{
		Topics: []assignor.Topic{topic("z", 4), topic("a", 3)},
		Members: []assignor.Member{
			member("B", subs("z", "a", "z"), tp("z", 3, 1), tp("gone", 0), tp("a", 7)),
			member("A", subs("a", "z"), tp("a", 2)),
		},
	}
	before := deepCopy(spec)
	for _, a := range []assignor.Assignor{assignor.Uniform{}, assignor.Range{}} {
		assign(t, a, spec)
		require.Equal(t, before, spec)
	}
}

func TestAssign_StaleCurrentAssignmentIsDropped(t *testing.T) {
	// Partitions of topics gone from the metadata or beyond a topic's
	// partition count are not kept; the rest is.
	got := assign(t, uniform, assignor.Spec{
		Topics:  []assignor.Topic{topic("t", 2)},
		Members: []assignor.Member{member("A", subs("t"), tp("t", 1, 5, -1), tp("gone", 0))},
	})
	assertAssignment(t, expect{"A": {tp("t", 0, 1)}}, got)
}

func deepCopy(s assignor.Spec) assignor.Spec {
	out := s
	out.Topics = nil
	for _, tm := range s.Topics {
		c := tm
		if tm.Racks != nil {
			c.Racks = make([][]string, len(tm.Racks))
			for i, r := range tm.Racks {
				c.Racks[i] = append([]string(nil), r...)
			}
		}
		out.Topics = append(out.Topics, c)
	}
	out.Members = nil
	for _, m := range s.Members {
		c := m
		c.Topics = append([]string(nil), m.Topics...)
		c.Assignment = nil
		for _, x := range m.Assignment {
			c.Assignment = append(c.Assignment, tp(x.Topic, append([]int32(nil), x.Partitions...)...))
		}
		out.Members = append(out.Members, c)
	}
	return out
}
