package sim_test

import (
	"bytes"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/boltstore"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/scenario"
)

func builtin(t *testing.T, name string) sim.Options {
	t.Helper()
	sc, err := scenario.Builtin(name)
	require.NoError(t, err)
	return sc.Options
}

// small is the ci scenario cut to two virtual hours: the whole pipeline in
// a fraction of a second.
func small(t *testing.T) sim.Options {
	o := builtin(t, "ci")
	o.Duration = 2 * time.Hour
	return o
}

func v1(f func(*testing.T) sim.Options) func(*testing.T) sim.Options {
	return func(t *testing.T) sim.Options {
		o := f(t)
		o.Protocol = coordinator.CleanupV1
		return o
	}
}

// TestDeterminismOverSeeds proves, over 50 seeds, that the same seed and
// options give the same trace (hash and full text), and that different seeds
// give different runs.
func TestDeterminismOverSeeds(t *testing.T) {
	t.Parallel() // minutes of simulation: it shares the cores with the other slow tests (CI)
	seeds := 50
	if testing.Short() {
		seeds = 10
	}
	hashes := map[string]uint64{}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		o := small(t)
		o.Seed, o.Duration = seed, time.Hour
		o.Workload.StreamsApps, o.Workload.ConsumerGroups, o.Workload.SimpleGroups = 20, 15, 20
		// The hash covers every event; the full text is compared too for
		// the first seeds (formatting every event is the slow part).
		var a, b io.Writer
		var ta, tb bytes.Buffer
		if seed <= 3 {
			a, b = &ta, &tb
		}
		r1, err := sim.Run(o, a)
		require.NoError(t, err)
		r2, err := sim.Run(o, b)
		require.NoError(t, err)
		require.Equal(t, r1.TraceHash, r2.TraceHash, "seed %d", seed)
		require.Equal(t, ta.String(), tb.String(), "seed %d: traces differ", seed)
		require.Equal(t, r1.Events, r2.Events)
		require.Nil(t, r1.Violation, "seed %d: %v", seed, r1.Violation)
		if other, seen := hashes[r1.TraceHash]; seen {
			t.Errorf("seeds %d and %d gave the same trace", other, seed)
		}
		hashes[r1.TraceHash] = seed
	}
}

// TestV1FindsRaceV2Never proves the simulator reaches the accepted data-loss
// race of docs/kip1331.md §1.8 under v1 and reports it as accepted, and that the
// same workload under v2 never loses a description.
func TestV1FindsRaceV2Never(t *testing.T) {
	t.Parallel() // minutes of simulation: it shares the cores with the other slow tests (CI)
	var lossV1 int64
	for seed := uint64(1); seed <= 3; seed++ {
		o := builtin(t, "v1-race")
		o.Duration, o.Seed = 90*time.Minute, seed
		o.Workload.StreamsApps = 600
		r, err := sim.Run(o, nil)
		require.NoError(t, err)
		require.Nil(t, r.Violation, "v1 seed %d: %v", seed, r.Violation)
		lossV1 += r.AcceptedDataLoss

		o.Protocol = coordinator.CleanupV2
		r, err = sim.Run(o, nil)
		require.NoError(t, err)
		require.Nil(t, r.Violation, "v2 seed %d: %v", seed, r.Violation)
		assert.Zero(t, r.AcceptedDataLoss, "v2 seed %d", seed)
		assert.Zero(t, r.LeakedRows, "v2 seed %d", seed)
	}
	assert.Positive(t, lossV1, "v1 reached the race")
}

// TestReplayStopsAtViolationStep proves a violation can be replayed: rerun
// with StopAt at its step, the run stops there with the same trace tail.
func TestReplayStopsAtViolationStep(t *testing.T) {
	o := small(t)
	o.Mutants = mutant.Set{ExpireEarly: true}
	var first *sim.Result
	for seed := uint64(1); seed <= 8 && first == nil; seed++ {
		o.Seed = seed
		r, err := sim.Run(o, nil)
		require.NoError(t, err)
		if r.Violation != nil {
			first = r
		}
	}
	require.NotNil(t, first)
	o.StopAt = first.Violation.Step
	again, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.NotNil(t, again.Violation, "the violation happens at its step")
	assert.Equal(t, first.Violation.Step, again.Violation.Step)
	assert.Equal(t, first.Violation.Trace, again.Violation.Trace)
	assert.Equal(t, first.TraceHash, again.TraceHash)

	o.StopAt = first.Violation.Step / 2
	early, err := sim.Run(o, nil)
	require.NoError(t, err)
	assert.True(t, early.Stopped)
	assert.Nil(t, early.Violation)
	assert.Equal(t, first.Violation.Step/2, early.Events)
}

// TestOptionsValidate proves bad options fail with the field named and
// nothing runs.
func TestOptionsValidate(t *testing.T) {
	cases := map[string]func(*sim.Options){
		"duration":                     func(o *sim.Options) { o.Duration = time.Second },
		"brokers":                      func(o *sim.Options) { o.Brokers = 0 },
		"partitions":                   func(o *sim.Options) { o.Partitions = 0 },
		"retention":                    func(o *sim.Options) { o.Retention = 90 * time.Second },
		"protocol":                     func(o *sim.Options) { o.Protocol = "v4" },
		"faults.delete_past_move_prob": func(o *sim.Options) { o.Faults.DeletePastMoveProb = 2 },
		"workload.members_max":         func(o *sim.Options) { o.Workload.MembersMax = 0 },
		"faults.plugin_transient":      func(o *sim.Options) { o.Faults.PluginTransient = 1.5 },
		"faults.plugin_latency_max":    func(o *sim.Options) { o.Faults.PluginLatencyMax = -1 },
		"faults.plugin_latency_min, faults.plugin_latency_max": func(o *sim.Options) {
			o.Faults.PluginLatencyMin, o.Faults.PluginLatencyMax = time.Second, time.Millisecond
		},
	}
	for field, mutate := range cases {
		o := sim.DefaultOptions()
		mutate(&o)
		_, err := sim.Run(o, nil)
		require.Error(t, err, field)
		assert.True(t, strings.Contains(err.Error(), field), "%s: %v", field, err)
	}
}

// hiddenStore hides memstore's List: a store that cannot list its rows. It
// keeps the fenced methods, so the run stays on protocol v3 and only the row
// listing differs (an unfenced store falls back to v2, a different protocol).
type hiddenStore struct{ plugin.FencedStore }

// TestAnyConformingStoreGivesTheSameRun proves a user's store plugs into the
// simulator: the durable bbolt store gives exactly the run memstore gives
// (same trace hash), and a store that cannot list its rows runs, when the
// options allow it, with the row checks skipped and marked as skipped.
func TestAnyConformingStoreGivesTheSameRun(t *testing.T) {
	o := small(t)
	o.Duration = time.Hour
	mem, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, mem.Violation)

	o.Store = func() (plugin.Store, error) {
		return boltstore.Open(filepath.Join(t.TempDir(), "topology.db"), boltstore.WithNoSync())
	}
	bolt, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, bolt.Violation)
	assert.Equal(t, mem.TraceHash, bolt.TraceHash, "a conforming store answers like memstore")

	o.Store = func() (plugin.Store, error) { return hiddenStore{memstore.New()}, nil }
	o.AllowUnchecked = true
	hidden, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, hidden.Violation)
	assert.Equal(t, mem.TraceHash, hidden.TraceHash)
	assert.Zero(t, hidden.Series.Samples[len(hidden.Series.Samples)-1].PluginRows, "rows are not listed")
	assert.NotEmpty(t, hidden.Warnings, "the skipped checks are recorded")
}

// TestParamsTable proves the option table's own rules: flags are unique,
// every entry reads back what it writes (Get and Set round-trip on the
// default options and on a swarm seed), DefaultOptions passes every range,
// and a value just outside a range fails naming the key.
func TestParamsTable(t *testing.T) {
	flags := map[string]string{}
	for _, p := range sim.Params {
		if other, dup := flags[p.Flag]; dup {
			t.Errorf("flag --%s names both %s and %s", p.Flag, other, p.Key)
		}
		flags[p.Flag] = p.Key
		assert.Same(t, p, sim.ParamByKey(p.Key))
		assert.Same(t, p, sim.ParamByFlag(p.Flag))
	}
	swarm := sim.DefaultOptions()
	swarm.Seed = 12345
	sim.Swarm(&swarm)
	require.NoError(t, swarm.Validate(), "a swarm seed's options are valid")
	for _, o := range []sim.Options{sim.DefaultOptions(), swarm} {
		for _, p := range sim.Params {
			var fresh sim.Options
			require.NoError(t, p.Set(&fresh, p.Get(&o)), p.Key)
			assert.Equal(t, p.Get(&o), p.Get(&fresh), p.Key)
		}
		back := sim.DefaultOptions()
		args := sim.ReplayArgs(back, o)
		for i := 2; i < len(args); i += 2 {
			if args[i] == "--faults" {
				back.Faults, _ = sim.PresetFaults(sim.FaultPreset(args[i+1]))
				continue
			}
			p := sim.ParamByFlag(strings.TrimPrefix(args[i], "--"))
			require.NotNil(t, p, args[i])
			require.NoError(t, p.Set(&back, args[i+1]))
		}
		back.Seed = o.Seed
		for _, p := range sim.Params {
			assert.Equal(t, p.Get(&o), p.Get(&back), "ReplayArgs reproduces %s", p.Key)
		}
	}
	for _, p := range sim.Params {
		if p.Type == sim.TypeBool || p.Type == sim.TypeEnum {
			continue
		}
		o := sim.DefaultOptions()
		below := p.Min - 1
		if p.Type == sim.TypeDuration {
			below = p.Min - float64(time.Second)
		}
		if p.MinOpen {
			below = p.Min
		}
		switch p.Type {
		case sim.TypeDuration:
			require.NoError(t, p.Set(&o, time.Duration(below).String()))
		case sim.TypeInt:
			require.NoError(t, p.Set(&o, strconv.Itoa(int(below))))
		default:
			require.NoError(t, p.Set(&o, strconv.FormatFloat(below, 'g', -1, 64)))
		}
		err := o.Validate()
		require.Error(t, err, p.Key)
		assert.Contains(t, err.Error(), p.Key)
	}
	var bad sim.Options
	assert.ErrorIs(t, sim.ParamByKey("brokers").Set(&bad, "three"), sim.ErrParamSyntax)
	assert.ErrorIs(t, sim.ParamByKey("protocol").Set(&bad, "v9"), sim.ErrParamSyntax)
}

// TestRacksReachTheCoordinators proves a run with racks exercises them: range
// groups get partitions on their members' racks, the admin moves replicas,
// and the invariants hold; a run with racks left out reaches neither mark.
func TestRacksReachTheCoordinators(t *testing.T) {
	o := small(t)
	o.Workload.Racks, o.Workload.RangeProb = 3, 0.5
	r, err := sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, r.Violation)
	assert.Positive(t, r.Marks["range-rack-matched"])
	assert.Positive(t, r.Marks["partition-racks-moved"])

	o.Workload.Racks, o.Workload.RangeProb = 0, 0
	r, err = sim.Run(o, nil)
	require.NoError(t, err)
	require.Nil(t, r.Violation)
	assert.Zero(t, r.Marks["range-rack-matched"])
	assert.Zero(t, r.Marks["partition-racks-moved"])
}
