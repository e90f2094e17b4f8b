package loadtest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/internal/loadtest"
	"github.com/coordsim/coordsim/wire"
)

// TestLoadAgainstWire proves the generator against coordsim's endpoint:
// at 500 records/s it sends about its rate, every sent
// record is acknowledged, the group consumes them all, and the logs hold
// the records' bytes.
func TestLoadAgainstWire(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := wire.Start(ctx, wire.DefaultConfig())
	require.NoError(t, err)
	defer cl.Close()
	start := time.Now()
	load, err := loadtest.Start(ctx, loadtest.Config{
		Addrs: cl.Addrs(), Topic: "load", Partitions: 8, Producers: 2, Rate: 500,
		RecordBytes: 100, Group: "load", Consumers: 2,
	})
	require.NoError(t, err)
	time.Sleep(2 * time.Second) // the load runs on the wall clock
	for load.Stats().Consumed < load.Stats().Acked || load.Stats().Acked == 0 {
		require.NoError(t, ctx.Err(), "the group consumes what was acknowledged: %+v", load.Stats())
		time.Sleep(50 * time.Millisecond)
	}
	logBytes, err := load.LogBytes(ctx)
	require.NoError(t, err)
	final := load.Stop(ctx)
	elapsed := time.Since(start)
	require.NoError(t, final.FirstErr)
	assert.Equal(t, final.Sent, final.Acked+final.Failed)
	assert.Zero(t, final.Failed)
	assert.InEpsilon(t, 500*elapsed.Seconds(), float64(final.Sent), 0.3, "about the rate over %s", elapsed)
	assert.GreaterOrEqual(t, final.Consumed, final.Acked-1000, "consumed all but the last moments'")
	assert.GreaterOrEqual(t, logBytes, 100*final.Acked/2, "the logs hold the values, uncompressed")
}

// TestConfigValidate: a load without a broker, topic or consumer group,
// or past its bounds, is refused before anything starts.
func TestConfigValidate(t *testing.T) {
	good := loadtest.Config{Addrs: []string{"x:1"}, Topic: "t", Partitions: 1, Producers: 1, Rate: 1}
	require.NoError(t, good.Validate())
	for name, mutate := range map[string]func(*loadtest.Config){
		"no broker":         func(c *loadtest.Config) { c.Addrs = nil },
		"no topic":          func(c *loadtest.Config) { c.Topic = "" },
		"no partition":      func(c *loadtest.Config) { c.Partitions = 0 },
		"no producer":       func(c *loadtest.Config) { c.Producers = 0 },
		"no rate":           func(c *loadtest.Config) { c.Rate = 0 },
		"consumers, group?": func(c *loadtest.Config) { c.Consumers = 1 },
		"huge records":      func(c *loadtest.Config) { c.RecordBytes = 1 << 30 },
	} {
		c := good
		mutate(&c)
		assert.Error(t, c.Validate(), name)
	}
}

// TestGrowth: growth is measured from the first sample at or after the
// warmup to the last, with the spread over those samples.
func TestGrowth(t *testing.T) {
	at := func(d time.Duration, rss int64) loadtest.Sample {
		return loadtest.Sample{Elapsed: d, Mem: loadtest.Mem{RSSBytes: rss}}
	}
	samples := []loadtest.Sample{at(0, 10), at(time.Minute, 100), at(2*time.Minute, 90), at(3*time.Minute, 102)}
	pct, spread, ok := loadtest.Growth(samples, time.Minute)
	require.True(t, ok)
	assert.InDelta(t, 2.0, pct, 1e-9)
	assert.Equal(t, int64(12), spread)
	_, _, ok = loadtest.Growth(samples, 3*time.Minute)
	assert.False(t, ok, "one sample is no growth")
	var b strings.Builder
	require.NoError(t, loadtest.WriteTable(&b, samples))
	assert.Equal(t, 5, strings.Count(b.String(), "\n"), "a header and a row a sample")
}

// TestReadRSS reads this process's VmRSS.
func TestReadRSS(t *testing.T) {
	rss, err := loadtest.ReadRSS()
	require.NoError(t, err)
	assert.Greater(t, rss, int64(1<<20))
}

// TestStopCountsUnfinished: records the endpoint never answers are not
// failures. With the cluster gone mid-load, Stop gives up at its deadline
// and counts what was in flight as unfinished; none is counted failed, and
// every sent record is accounted for.
func TestStopCountsUnfinished(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := wire.Start(ctx, wire.DefaultConfig())
	require.NoError(t, err)
	load, err := loadtest.Start(ctx, loadtest.Config{
		Addrs: cl.Addrs(), Topic: "gone", Partitions: 2, Producers: 1, Rate: 500, RecordBytes: 10,
	})
	require.NoError(t, err)
	for load.Stats().Acked == 0 {
		require.NoError(t, ctx.Err())
		time.Sleep(20 * time.Millisecond)
	}
	cl.Close()
	time.Sleep(200 * time.Millisecond) // records pile up unanswered
	stopCtx, stopCancel := context.WithTimeout(ctx, time.Second)
	defer stopCancel()
	final := load.Stop(stopCtx)
	assert.Zero(t, final.Failed, "first error: %v", final.FirstErr)
	assert.Positive(t, final.Unfinished)
	assert.Equal(t, final.Sent, final.Acked+final.Failed+final.Unfinished)
}
