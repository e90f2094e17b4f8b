package wire_test

import (
	"bytes"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawRoundTrip sends req on c at its version and returns the raw response
// body after the response header (correlation id, and the empty tags of a
// flexible header).
func rawRoundTrip(t *testing.T, c net.Conn, req kmsg.Request) []byte {
	t.Helper()
	_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1))
	require.NoError(t, err)
	body := readResponse(t, c)
	skip := 4
	if req.IsFlexible() {
		skip++
	}
	return body[skip:]
}

// TestEmptyFetchRecordsAreNotNull proves that a Fetch partition with
// nothing to return, and one answering an error, carry an empty record set
// (length 0; compact length 1), as Kafka's MemoryRecords.EMPTY, never a
// null one (-1; compact 0), which librdkafka cannot parse ("Protocol parse
// failure for Fetch v11"). The bytes are read as sent: kmsg's decoding
// would hide null against empty.
func TestEmptyFetchRecordsAreNotNull(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	createTopic(t, ctx, newAdmin(t, cl), "empty", 1)
	for _, tc := range []struct {
		name    string
		version int16
		topic   string
		// tail is the end of the body: the one partition's record set
		// length, then (flexible) the partition's, topic's and response's
		// empty tags.
		tail []byte
	}{
		{"v11 empty partition", 11, "empty", []byte{0, 0, 0, 0}},
		{"v11 unknown topic", 11, "nope", []byte{0, 0, 0, 0}},
		{"v12 empty partition", 12, "empty", []byte{1, 0, 0, 0}},
		{"v12 unknown topic", 12, "nope", []byte{1, 0, 0, 0}},
	} {
		c := dial(t, cl.Addrs()[0])
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.MaxWaitMillis, req.MaxBytes, req.SessionEpoch, req.ReplicaID = tc.version, 1, 1<<20, -1, -1
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = tc.topic
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.PartitionMaxBytes = 1 << 20
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		body := rawRoundTrip(t, c, req)
		require.GreaterOrEqual(t, len(body), len(tc.tail), tc.name)
		assert.Equal(t, tc.tail, body[len(body)-len(tc.tail):], "%s: the record set is empty, not null", tc.name)
	}
}

// TestEmptyShareFetchRecordsAreNotNull proves the same of ShareFetch
// (Kafka's ShareFetchResponse sets MemoryRecords.EMPTY on every partition):
// an empty partition and an unknown topic id both carry an empty record
// set. The response is checked byte for byte against its re-encoding with
// every record set empty, and against the one with every record set null.
func TestEmptyShareFetchRecordsAreNotNull(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	createTopic(t, ctx, adm, "empty", 1)
	topics, err := adm.ListTopics(ctx, "empty")
	require.NoError(t, err)
	c := dial(t, cl.Addrs()[topics["empty"].Partitions[0].Leader])
	req := kmsg.NewPtrShareFetchRequest()
	g, m := "g", "AAAAAAAAAAAAAAAAAAAAAA"
	req.Version, req.GroupID, req.MemberID, req.MaxWaitMillis, req.MaxRecords, req.BatchSize = 1, &g, &m, 1, 10, 10
	for _, id := range [][16]byte{topics["empty"].ID, {1, 2, 3}} {
		rt := kmsg.NewShareFetchRequestTopic()
		rt.TopicID = id
		rt.Partitions = append(rt.Partitions, kmsg.NewShareFetchRequestTopicPartition())
		req.Topics = append(req.Topics, rt)
	}
	body := rawRoundTrip(t, c, req)
	resp := req.ResponseKind().(*kmsg.ShareFetchResponse)
	require.NoError(t, resp.ReadFrom(body))
	require.Zero(t, resp.ErrorCode)
	parts := 0
	reencode := func(records []byte) []byte {
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				resp.Topics[i].Partitions[j].Records = records
				parts++
			}
		}
		return resp.AppendTo(nil)
	}
	asNull := reencode(nil)
	asEmpty := reencode([]byte{})
	require.Equal(t, 4, parts, "both partitions answered")
	require.False(t, bytes.Equal(asNull, asEmpty))
	assert.Equal(t, asEmpty, body, "every record set is empty, not null")
}
