package shard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTimelineMemberOrderIsKafkas replays puts and removals into a group's
// model of Kafka's TimelineHashMap of members and compares the iteration
// order with what Kafka 4.4's own TimelineHashMap (new
// TimelineHashMap<>(registry, 0), put and remove, then keySet()) printed
// for the same sequence: by slot, the later put first within a slot, a
// table that grows on every put (a replacing one too) and never shrinks.
func TestTimelineMemberOrderIsKafkas(t *testing.T) {
	for _, tc := range []struct{ ops, kafka string }{
		{"m1,m2", "m2,m1"},
		{"m1,m1,m2", "m2,m1"},
		{"x1,x2,x1,x1,x1,x2", "x1,x2"},
		{"m1,m2,m3,m1,-m2,m4,m5,m2", "m2,m5,m4,m1,m3"},
		{"a,b,c,d,e,f,g,h,i,j,k,l,-c,-d,c,m,n", "f,c,k,h,m,e,j,b,g,l,i,n,a"},
	} {
		g := newGroup("g", Consumer)
		for _, op := range strings.Split(tc.ops, ",") {
			if id, ok := strings.CutPrefix(op, "-"); ok {
				g.memberPuts--
				delete(g.members, id)
				continue
			}
			g.timelinePut(g.member(op))
		}
		assert.Equal(t, tc.kafka, strings.Join(g.timelineMemberOrder(), ","), tc.ops)
	}
}

// TestTimelinePutRenumbers proves the put counter's wrap keeps the order.
func TestTimelinePutRenumbers(t *testing.T) {
	g := newGroup("g", Consumer)
	g.timelinePut(g.member("m1"))
	g.timelinePut(g.member("m2"))
	for i := 0; g.memberPutSeq < 65535; i++ {
		g.timelinePut(g.member("churn"))
		g.memberPuts--
		delete(g.members, "churn")
	}
	g.timelinePut(g.member("m3"))
	assert.Equal(t, uint16(3), g.memberPutSeq)
	assert.Equal(t, []uint16{1, 2, 3}, []uint16{g.members["m1"].putSeq, g.members["m2"].putSeq, g.members["m3"].putSeq})
}
