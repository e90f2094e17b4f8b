package difftest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/coordsim/coordsim/shard"
)

// Options configure a differential run.
type Options struct {
	Seeds     int    // sequences
	FirstSeed uint64 // seed of the first sequence
	Ops       int    // ops per sequence (after the opening topic image)
	Gen       GenConfig
	// ReproDir, when set, receives one datadriven file per unexplained
	// divergence, its sequence reduced.
	ReproDir string
	// Log, when set, receives a line per divergence.
	Log io.Writer
	// Trace, when set, receives every op and both outcomes.
	Trace io.Writer
	// SkipKnown names Known entries to treat as unexplained, so that
	// their divergences are reduced and written out like new ones.
	SkipKnown []string
}

// Divergence is the first operation of a sequence on which coordsim and
// Kafka disagree.
type Divergence struct {
	Seed  uint64
	Step  int  // index of the diverging op in Ops
	Ops   []Op // the sequence up to and including the diverging op
	Kafka Outcome
	Ours  Outcome
	// Known names the documented divergence it is, "" when unexplained.
	Known string
}

func (d Divergence) String() string {
	known := "UNEXPLAINED"
	if d.Known != "" {
		known = "known: " + d.Known
	}
	return fmt.Sprintf("seed %d step %d (%s) %s\n  op:       %s %s\n  kafka:    %s\n  coordsim: %s",
		d.Seed, d.Step, d.Ops[d.Step].Name(), known, d.Ops[d.Step].Name(), EncodeOp(d.Ops[d.Step]), d.Kafka.canonical(), d.Ours.canonical())
}

// Report is what a run found.
type Report struct {
	Sequences   int
	Ops         int // ops run on both sides
	Elapsed     time.Duration
	Divergences []Divergence
	// Known counts explained divergences by name.
	Known map[string]int
	// Repros are the files written for unexplained divergences.
	Repros []string
	// Classic counts what the classic ops did on both sides alike
	// (countClassic): joins, syncs, their successes, conversions.
	Classic map[string]int
}

// Unexplained returns the divergences no known entry explains.
func (r Report) Unexplained() []Divergence {
	var out []Divergence
	for _, d := range r.Divergences {
		if d.Known == "" {
			out = append(out, d)
		}
	}
	return out
}

// Summary is the report in one paragraph.
func (r Report) Summary() string {
	s := fmt.Sprintf("%d sequences, %d ops compared in %s: %d divergences, %d unexplained",
		r.Sequences, r.Ops, r.Elapsed.Round(time.Millisecond), len(r.Divergences), len(r.Unexplained()))
	if c := r.Classic; c["joins"] > 0 {
		s += fmt.Sprintf("\n  classic: %d joins (%d joined), %d syncs (%d synced: completed rebalances), %d upgrades, %d downgrades",
			c["joins"], c["joined"], c["syncs"], c["synced"], c["upgrades"], c["downgrades"])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Known)) {
		s += fmt.Sprintf("\n  known %s: %d", k, r.Known[k])
	}
	return s
}

// Run runs opts.Seeds sequences through coordsim's shard and the oracle.
// A sequence stops at its first divergence (the two states differ from
// there on); an unexplained one is reduced and, with ReproDir, written out.
func Run(ctx context.Context, o *Oracle, opts Options) (Report, error) {
	start := time.Now()
	rep := Report{Known: map[string]int{}, Classic: map[string]int{}}
	for i := range opts.Seeds {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		seed := opts.FirstSeed + uint64(i)
		div, n, err := runSequence(o, seed, opts, rep.Classic)
		rep.Sequences++
		rep.Ops += n
		if err != nil {
			return rep, fmt.Errorf("seed %d: %w", seed, err)
		}
		if div == nil {
			continue
		}
		if div.Known != "" {
			rep.Known[div.Known]++
		} else {
			reduced, err := Reduce(o, div.Ops, opts.SkipKnown...)
			if err != nil {
				return rep, fmt.Errorf("seed %d: reducing: %w", seed, err)
			}
			if reduced != nil {
				reduced.Seed = seed
				div = reduced
			}
			if opts.ReproDir != "" {
				path, err := WriteRepro(opts.ReproDir, *div)
				if err != nil {
					return rep, err
				}
				rep.Repros = append(rep.Repros, path)
			}
		}
		rep.Divergences = append(rep.Divergences, *div)
		if opts.Log != nil {
			fmt.Fprintln(opts.Log, div.String())
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// runSequence generates and runs one sequence, returning its first
// divergence (nil if none) and the number of ops run.
func runSequence(o *Oracle, seed uint64, opts Options, classic map[string]int) (*Divergence, int, error) {
	g := newGenerator(seed, opts.Gen)
	s, err := newSession(o)
	if err != nil {
		return nil, 0, err
	}
	var ops []Op
	for i := 0; i <= opts.Ops; i++ {
		var op Op
		if i == 0 {
			op = g.first()
		} else {
			op = g.next()
		}
		ops = append(ops, op)
		kafka, ours, err := s.step(op)
		if err != nil {
			return nil, i, err
		}
		if opts.Trace != nil {
			fmt.Fprintf(opts.Trace, "seed %d step %d %s %s\n  kafka:    %s\n  coordsim: %s\n", seed, i, op.Name(), EncodeOp(op), kafka.canonical(), ours.canonical())
		}
		if kafka.canonical() != ours.canonical() {
			d := &Divergence{Seed: seed, Step: i, Ops: ops, Kafka: kafka, Ours: ours}
			d.Known = explain(*d, opts.SkipKnown)
			return d, i + 1, nil
		}
		countClassic(op, kafka, classic)
		g.observe(op, kafka)
	}
	return nil, len(ops), nil
}

// session is one sequence on both sides.
type session struct {
	o   *Oracle
	d   *driver
	ids topicIDs
	// kafkaIDs and ourIDs are the member ids each side generated
	// (memberids.go).
	kafkaIDs, ourIDs idTable
}

func newSession(o *Oracle) (*session, error) {
	if err := o.reset(OracleProps()); err != nil {
		return nil, err
	}
	d, err := newDriver(DriverConfig())
	if err != nil {
		return nil, err
	}
	return &session{o: o, d: d, ids: newTopicIDs()}, nil
}

// OracleProps are the broker properties the oracle runs with: Kafka's
// defaults, but for offloading the target assignment to a background
// thread (group.<type>.assignor.offload.enable, default true), which
// coordsim does not do: it computes a target inside the operation that
// may, as Kafka does with offloading off. The assignment interval stays
// at Kafka's default, 1 s, which DriverConfig sets on coordsim's side.
func OracleProps() map[string]string {
	props := map[string]string{}
	for _, typ := range []string{"consumer", "share", "streams"} {
		props["group."+typ+".assignor.offload.enable"] = "false"
	}
	return props
}

// DriverConfig is the shard configuration coordsim's side runs with: Kafka's
// defaults (shard.DefaultConfig), the assignment intervals included.
func DriverConfig() shard.Config {
	cfg := shard.DefaultConfig()
	cfg.ConsumerAssignmentIntervalMs, cfg.ShareAssignmentIntervalMs, cfg.StreamsAssignmentIntervalMs = 1000, 1000, 1000
	return cfg
}

func (s *session) step(op Op) (kafka, ours Outcome, err error) {
	kop, oop := s.kafkaIDs.resolve(op), s.ourIDs.resolve(op)
	line, err := s.o.apply(kop, s.ids)
	if err != nil {
		return kafka, ours, err
	}
	kafka = s.kafkaIDs.relabel(normalise(kop, line, s.ids.names))
	ours = oop.run(s.d)
	if c := s.d.takeCompleted(); len(c) > 0 {
		ours.Completed = c
	}
	ours = s.ourIDs.relabel(ours)
	if !carriesMessage(op) {
		// OffsetCommit, TxnOffsetCommit, OffsetFetch (per group, v8+ has
		// none either) and OffsetDelete answers have no error message
		// field: a client sees the code only.
		kafka.Message, ours.Message = "", ""
	}
	if kafka.Bad != "" || ours.Bad != "" {
		return kafka, ours, fmt.Errorf("harness error on %s %s: kafka %q, coordsim %q", op.Name(), EncodeOp(op), kafka.Bad, ours.Bad)
	}
	return kafka, ours, nil
}

// replay runs ops on a fresh session and returns the first divergence.
func replay(o *Oracle, ops []Op, skip []string) (*Divergence, error) {
	s, err := newSession(o)
	if err != nil {
		return nil, err
	}
	for i, op := range ops {
		kafka, ours, err := s.step(op)
		if err != nil {
			return nil, err
		}
		if kafka.canonical() != ours.canonical() {
			d := &Divergence{Step: i, Ops: ops[:i+1], Kafka: kafka, Ours: ours}
			d.Known = explain(*d, skip)
			return d, nil
		}
	}
	return nil, nil
}

// carriesMessage reports whether op's answer has an error message field.
func carriesMessage(op Op) bool {
	switch op.(type) {
	case OffsetCommit, TxnOffsetCommit, OffsetFetch, OffsetDelete, DeleteGroups:
		return false
	}
	return true
}
