package wire_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/wire"
)

// killableDialer dials one kgo client's connections and can kill the
// client as SIGKILL would: every connection is closed and every later dial
// refused, so nothing it sends afterwards (its heartbeats, the leave of
// its Close) reaches a broker. It notes when the client last started
// writing a ConsumerGroupHeartbeat: the coordinator received that
// heartbeat no earlier, so the member's session cannot end before that
// moment plus the session timeout.
type killableDialer struct {
	mu            sync.Mutex
	conns         []net.Conn
	dead          bool
	lastHeartbeat time.Time
}

func (d *killableDialer) dial(ctx context.Context, network, host string) (net.Conn, error) {
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		c.Close()
		return nil, errors.New("killed")
	}
	d.conns = append(d.conns, c)
	return &watchedConn{Conn: c, d: d}, nil
}

func (d *killableDialer) kill() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead = true
	for _, c := range d.conns {
		c.Close()
	}
}

func (d *killableDialer) lastHeartbeatSent() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lastHeartbeat
}

// watchedConn records heartbeats on their way out. kgo writes a request in
// one Write: size (4 bytes), then the api key.
type watchedConn struct {
	net.Conn
	d *killableDialer
}

const consumerGroupHeartbeatKey = 68

func (c *watchedConn) Write(b []byte) (int, error) {
	c.d.mu.Lock()
	if c.d.dead {
		c.d.mu.Unlock()
		return 0, net.ErrClosed
	}
	if len(b) >= 6 && binary.BigEndian.Uint16(b[4:6]) == consumerGroupHeartbeatKey {
		c.d.lastHeartbeat = time.Now()
	}
	c.d.mu.Unlock()
	return c.Conn.Write(b)
}

// TestConsumerKilledWithoutLeaving proves KIP-848's session timeout with
// real clients: a member killed without a leave heartbeat keeps its
// partitions in the coordinator's state until
// group.consumer.session.timeout.ms has passed since its last heartbeat,
// never sooner; then the coordinator fences it and its partitions go to
// the two others, and no partition is ever owned by two members (the
// coordinator's state is sampled throughout). The session timeout and the
// heartbeat interval are lowered with their minimums, as Kafka's
// integration tests configure group.consumer.min.session.timeout.ms.
func TestConsumerKilledWithoutLeaving(t *testing.T) {
	t.Parallel()
	const session, heartbeat = 2 * time.Second, 200 * time.Millisecond
	cl := startCluster(t, func(c *wire.Config) {
		c.Coordinator.ConsumerMinSessionTimeout, c.Coordinator.ConsumerSessionTimeout = session, session
		c.Coordinator.ConsumerMinHeartbeatInterval, c.Coordinator.ConsumerHeartbeatInterval = heartbeat, heartbeat
	})
	ctx := testContext(t)
	adm := newAdmin(t, cl)
	const topic, group = "killed", "survivors"
	createTopic(t, ctx, adm, topic, 6)

	var mu sync.Mutex // guards victimID and victimOwned, set after sampling starts
	var violations []string
	victimID := ""
	var victimOwned []int32
	var firstGone time.Time // when a describe first answered without the victim
	victimSamples := 0
	stopSampling := sampleGroup(ctx, cl, group, func(d shard.GroupDescription, at time.Time) {
		mu.Lock()
		defer mu.Unlock()
		violations = append(violations, twoOwners(d, topic)...)
		if victimID == "" || !firstGone.IsZero() {
			return
		}
		i := slices.IndexFunc(d.Members, func(m shard.MemberDescription) bool { return m.MemberID == victimID })
		if i < 0 {
			firstGone = at
			return
		}
		victimSamples++
		var owned []int32
		for _, tp := range d.Members[i].Assignment {
			owned = append(owned, tp.Partitions...)
		}
		slices.Sort(owned)
		if !slices.Equal(owned, victimOwned) {
			violations = append(violations, fmt.Sprintf("the killed member's partitions changed from %v to %v while it was in the group", victimOwned, owned))
		}
	})

	startMember(t, cl, group, topic, "a")
	startMember(t, cl, group, topic, "b")
	dialer := &killableDialer{}
	victimCtx, killVictim := context.WithCancel(context.Background())
	victim := startMember(t, cl, group, topic, "victim", kgo.Dialer(dialer.dial), kgo.WithContext(victimCtx))
	require.Eventually(t, balanced(cl, group, topic, 3), testTimeout/3, 10*time.Millisecond, "three members, two partitions each")

	d := groupState(cl, group)
	mu.Lock()
	for _, m := range d.Members {
		if m.ClientID == "member-victim" {
			victimID = m.MemberID
			for _, tp := range m.Assignment {
				victimOwned = append(victimOwned, tp.Partitions...)
			}
			slices.Sort(victimOwned)
		}
	}
	mu.Unlock()
	require.NotEmpty(t, victimID, "the victim is a member")
	require.Len(t, victimOwned, 2)

	dialer.kill() // no more heartbeats, and no leave
	killVictim()
	victim.close()
	require.Eventually(t, balanced(cl, group, topic, 2), testTimeout/3, 10*time.Millisecond, "the two others own every partition")

	stopSampling()
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, violations)
	require.False(t, firstGone.IsZero(), "the killed member was fenced")
	assert.Positive(t, victimSamples, "the killed member was seen in the group after its kill")
	// The coordinator reads its clock in whole milliseconds (Kafka's
	// Time.milliseconds), so the session ends at the heartbeat's arrival,
	// truncated to the millisecond, plus the timeout.
	last := dialer.lastHeartbeatSent()
	require.False(t, last.IsZero(), "the victim's heartbeats were seen leaving")
	earliest := last.Truncate(time.Millisecond).Add(session)
	t.Logf("fenced %v after the last heartbeat was sent; %d samples saw the killed member", firstGone.Sub(last), victimSamples)
	assert.False(t, firstGone.Before(earliest), "fenced at %v, before its last heartbeat plus the session timeout (%v)", firstGone, earliest)
}
