package wire_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestCompactedTopicWithKgo proves a compacted topic as a kgo user sees
// it: after a retention pass, a consumer from the start reads each key's
// latest value once (the last batch, never cleaned, aside), offsets keep
// their gaps, and a record without a key is refused with INVALID_RECORD.
func TestCompactedTopicWithKgo(t *testing.T) {
	ctx := testContext(t)
	cl := startCluster(t)
	adm := newAdmin(t, cl)
	resp, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"cleanup.policy": kadm.StringPtr("compact")}, "latest")
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	prod := newClient(t, cl, kgo.DefaultProduceTopic("latest"))
	for round := range 3 {
		for k := range 4 {
			r := &kgo.Record{Key: []byte(fmt.Sprint("k", k)), Value: []byte(fmt.Sprint("v", round))}
			require.NoError(t, prod.ProduceSync(ctx, r).FirstErr())
		}
	}
	require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Key: []byte("last"), Value: []byte("x")}).FirstErr())
	err = prod.ProduceSync(ctx, &kgo.Record{Value: []byte("keyless")}).FirstErr()
	assert.ErrorIs(t, err, fkerr.InvalidRecord)

	cl.RetainNow()
	cons := newClient(t, cl, kgo.ConsumeTopics("latest"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[string]string{}
	var offsets []int64
	for len(got) < 5 {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "read %v", got)
		fs.EachRecord(func(r *kgo.Record) {
			_, dup := got[string(r.Key)]
			assert.False(t, dup, "key %s read twice", r.Key)
			got[string(r.Key)] = string(r.Value)
			offsets = append(offsets, r.Offset)
		})
	}
	assert.Equal(t, map[string]string{"k0": "v2", "k1": "v2", "k2": "v2", "k3": "v2", "last": "x"}, got)
	assert.Equal(t, []int64{8, 9, 10, 11, 12}, offsets, "the older values' offsets are gaps")
}
