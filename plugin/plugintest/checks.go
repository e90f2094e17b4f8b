package plugintest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/coordsim/coordsim/plugin"
)

// describe summarizes a description for a failure message; a full rendering of a
// large description would drown the message.
func describe(d *plugin.TopologyDescription) string {
	if d == nil {
		return "nil"
	}
	return fmt.Sprintf("a description of %d subtopologies and %d nodes", len(d.Subtopologies), d.NodeCount())
}

// reopen closes the store and opens its data again with WithReopen's
// function (the reopen and fenced-reopen checks); runCheck closes the
// reopened store.
func (e *env) reopen() error {
	e.closed = true
	if err := e.s.Close(); err != nil {
		//lint:ignore ST1005 the message starts with the method that failed, Close, as Go spells it
		return fmt.Errorf("Close: %w", err)
	}
	s, err := e.cfg.reopen()
	if err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	if s == nil {
		return errors.New("reopen returned a nil store")
	}
	e.s, e.closed = s, false
	return nil
}

func (e *env) set(group string, epoch int32, d *plugin.TopologyDescription) error {
	if err := e.s.SetTopology(e.ctx, group, epoch, d); err != nil {
		return fmt.Errorf("SetTopology(%q, %d): %w", group, epoch, err)
	}
	return nil
}

func (e *env) del(group string) error {
	if err := e.s.DeleteTopology(e.ctx, group); err != nil {
		return fmt.Errorf("DeleteTopology(%q): %w", group, err)
	}
	return nil
}

// expect gets (group, epoch) and compares the answer with want (nil: not stored).
func (e *env) expect(group string, epoch int32, want *plugin.TopologyDescription) error {
	got, err := e.s.GetTopology(e.ctx, group, epoch)
	if err != nil {
		return fmt.Errorf("GetTopology(%q, %d): %w", group, epoch, err)
	}
	if !got.Equal(want) {
		return fmt.Errorf("GetTopology(%q, %d) = %s", group, epoch, mismatch(got, want))
	}
	return nil
}

// mismatch says how got differs from want. Two descriptions of one size
// differ in a name, which the message then names: "a description of 2
// subtopologies and 5 nodes, want a description of 2 subtopologies and 5
// nodes" would read as no difference at all.
func mismatch(got, want *plugin.TopologyDescription) string {
	if g, w := describe(got), describe(want); g != w {
		return g + ", want " + w
	}
	for i := range got.Subtopologies {
		gs, ws := got.Subtopologies[i], want.Subtopologies[i]
		if gs.ID != ws.ID {
			return fmt.Sprintf("%s whose subtopology %d has id %q, want %q", describe(got), i, gs.ID, ws.ID)
		}
		if g, w := fmt.Sprintf("%q", gs.Stores), fmt.Sprintf("%q", ws.Stores); g != w {
			return fmt.Sprintf("%s whose subtopology %q has stores %s, want %s", describe(got), gs.ID, g, w)
		}
		for j := range gs.Nodes {
			if g, w := fmt.Sprintf("%+q", gs.Nodes[j]), fmt.Sprintf("%+q", ws.Nodes[j]); g != w {
				return fmt.Sprintf("%s whose subtopology %q has node %s, want %s", describe(got), gs.ID, g, w)
			}
		}
	}
	return describe(got) + " that differs from the one wanted"
}

// expectNotOther gets (group, epoch) and accepts nil or allowed, but nothing else.
func (e *env) expectNotOther(group string, epoch int32, allowed *plugin.TopologyDescription) error {
	got, err := e.s.GetTopology(e.ctx, group, epoch)
	if err != nil {
		return fmt.Errorf("GetTopology(%q, %d): %w", group, epoch, err)
	}
	if got != nil && !got.Equal(allowed) {
		return fmt.Errorf("GetTopology(%q, %d) = %s, want nil or the epoch-%d description", group, epoch, describe(got), epoch)
	}
	return nil
}

// steps runs fns in order and returns the first error.
func steps(fns ...func() error) error {
	for _, f := range fns {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// sample1 and sample2 differ from each other, so a store that mixes them up is
// caught by Equal. Each call returns a new description, which a check may mutate.
func sample1() *plugin.TopologyDescription { return plugin.SampleTopology(1, 2) }
func sample2() *plugin.TopologyDescription { return plugin.SampleTopology(2, 3) }

func checkRoundtrip(e *env) error {
	d := sample1()
	return steps(
		func() error { return e.set("plugintest-roundtrip", 1, d) },
		func() error { return e.expect("plugintest-roundtrip", 1, d) },
	)
}

func checkIdempotentSet(e *env) error {
	g, d := "plugintest-idempotent", sample1()
	// The same data twice, once through another pointer, as two members of one group
	// push it.
	return steps(
		func() error { return e.set(g, 4, d) },
		func() error { return e.set(g, 4, d) },
		func() error { return e.set(g, 4, d.Clone()) },
		func() error { return e.expect(g, 4, d) },
	)
}

func checkNewEpochReplaces(e *env) error {
	g, d1, d2 := "plugintest-replaces", sample1(), sample2()
	err := steps(
		func() error { return e.set(g, 1, d1) },
		func() error { return e.set(g, 2, d2) },
		func() error { return e.expect(g, 2, d2) },
	)
	if err != nil {
		return err
	}
	if e.cfg.history {
		return e.expectNotOther(g, 1, d1)
	}
	return e.expect(g, 1, nil)
}

func checkEpochScopedGet(e *env) error {
	g, d := "plugintest-epoch-scoped", sample1()
	return steps(
		func() error { return e.set(g, 5, d) },
		func() error { return e.expect(g, 4, nil) },
		func() error { return e.expect(g, 6, nil) },
		func() error { return e.expect(g, 0, nil) },
		func() error { return e.expect(g, math.MaxInt32, nil) },
		func() error { return e.expect(g, 5, d) },
	)
}

func checkUnknownGroup(e *env) error {
	// Group ids that share a prefix with a stored one catch stores that match keys
	// by prefix.
	return steps(
		func() error { return e.expect("plugintest-unknown", 0, nil) },
		func() error { return e.set("plugintest-prefix", 1, sample1()) },
		func() error { return e.expect("plugintest-prefi", 1, nil) },
		func() error { return e.expect("plugintest-prefix-longer", 1, nil) },
		func() error { return e.expect("plugintest-unknown", 1, nil) },
	)
}

func checkDeleteAcrossEpochs(e *env) error {
	g := "plugintest-delete-epochs"
	return steps(
		func() error { return e.set(g, 1, sample1()) },
		func() error { return e.set(g, 2, sample2()) },
		func() error { return e.del(g) },
		func() error { return e.expect(g, 1, nil) },
		func() error { return e.expect(g, 2, nil) },
	)
}

func checkDeleteNothingStored(e *env) error {
	g := "plugintest-delete-nothing"
	return steps(
		func() error { return e.del(g) },
		func() error { return e.del(g) },
		func() error { return e.set(g, 1, sample1()) },
		func() error { return e.del(g) },
		func() error { return e.del(g) },
		func() error { return e.expect(g, 1, nil) },
	)
}

func checkDeleteThenGet(e *env) error {
	g, d1, d2 := "plugintest-delete-get", sample1(), sample2()
	// After a delete the group is like new: a recreated group may start again at a
	// lower epoch, and its description must be stored.
	return steps(
		func() error { return e.set(g, 3, d1) },
		func() error { return e.del(g) },
		func() error { return e.expect(g, 3, nil) },
		func() error { return e.set(g, 3, d1) },
		func() error { return e.expect(g, 3, d1) },
		func() error { return e.del(g) },
		func() error { return e.set(g, 1, d2) },
		func() error { return e.expect(g, 1, d2) },
	)
}

func checkGroupsIsolated(e *env) error {
	a, b, d1, d2 := "plugintest-isolated-a", "plugintest-isolated-b", sample1(), sample2()
	return steps(
		func() error { return e.set(a, 1, d1) },
		func() error { return e.set(b, 1, d2) },
		func() error { return e.expect(a, 1, d1) },
		func() error { return e.expect(b, 1, d2) },
		func() error { return e.del(a) },
		func() error { return e.expect(a, 1, nil) },
		func() error { return e.expect(b, 1, d2) },
	)
}

func checkCopies(e *env) error {
	g := "plugintest-copies"
	d, want := sample1(), sample1()
	if err := e.set(g, 1, d); err != nil {
		return err
	}
	// The caller may reuse its description after SetTopology returns.
	d.Subtopologies[0].Nodes[0].Topics[0] = "mutated-by-caller"
	d.Subtopologies[0].ID = "mutated-by-caller"
	if err := e.expect(g, 1, want); err != nil {
		return fmt.Errorf("the store retained the caller's description: %w", err)
	}
	// The caller owns what GetTopology returned.
	got, err := e.s.GetTopology(e.ctx, g, 1)
	if err != nil || got == nil || len(got.Subtopologies) == 0 || len(got.Subtopologies[0].Nodes) == 0 {
		return fmt.Errorf("GetTopology(%q, 1) = %s, %v, want %s", g, describe(got), err, describe(want))
	}
	got.Subtopologies[0].Nodes[0].Name = "mutated-by-reader"
	got.Subtopologies[0].Stores = append(got.Subtopologies[0].Stores, "mutated-by-reader")
	if err := e.expect(g, 1, want); err != nil {
		return fmt.Errorf("the store handed out its own description: %w", err)
	}
	return nil
}

// largeDescription is a description of thousands of nodes plus names at the length
// limit, to catch stores with small value or column limits.
func largeDescription() *plugin.TopologyDescription {
	d := plugin.SampleTopology(11, 400)
	long := strings.Repeat("n", plugin.MaxNameBytes)
	extra := plugin.NewBuilder().
		Subtopology("long-"+strings.Repeat("i", plugin.MaxNameBytes-5)).
		AddSource("S"+long[1:], strings.Repeat("t", plugin.MaxNameBytes)).
		AddProcessor("P"+long[1:], "S"+long[1:]).
		AddStateStore(strings.Repeat("s", plugin.MaxNameBytes), "P"+long[1:]).
		AddSink("K"+long[1:], strings.Repeat("o", plugin.MaxNameBytes), "P"+long[1:]).
		MustBuild()
	d.Subtopologies = append(d.Subtopologies, extra.Subtopologies...)
	return d
}

func checkLargeDescription(e *env) error {
	d := largeDescription()
	if err := d.Validate(); err != nil {
		return fmt.Errorf("the suite's large description is invalid (a suite bug): %w", err)
	}
	g := "plugintest-large"
	return steps(
		func() error { return e.set(g, 1, d) },
		func() error { return e.expect(g, 1, d) },
		func() error { return e.del(g) },
		func() error { return e.expect(g, 1, nil) },
	)
}

// unicodeGroupIDs are group ids a Java client can send. Two of them differ only by
// Unicode normalization and must stay two groups.
func unicodeGroupIDs() []string {
	return []string{
		"グループ-1",
		"группа",
		"组-🚀",
		"café",       // NFC: é is one code point
		"cafe\u0301", // NFD: e + combining acute accent
		"مجموعة",     // right-to-left
		"with space",
		"tab\tand\nnewline",
		`a/b\c:d?e#f`,
		"nul\x00byte",
		"%2F-encoded",
		strings.Repeat("長", 300),
	}
}

func checkUnicodeGroupIDs(e *env) error {
	ids := unicodeGroupIDs()
	descs := make([]*plugin.TopologyDescription, len(ids))
	for i, g := range ids {
		descs[i] = plugin.SampleTopology(uint64(100+i), 1)
		if err := e.set(g, int32(i), descs[i]); err != nil {
			return err
		}
	}
	for i, g := range ids {
		if err := e.expect(g, int32(i), descs[i]); err != nil {
			return err
		}
	}
	for i, g := range ids {
		if err := e.del(g); err != nil {
			return err
		}
		if err := e.expect(g, int32(i), nil); err != nil {
			return err
		}
		if i+1 < len(ids) {
			if err := e.expect(ids[i+1], int32(i+1), descs[i+1]); err != nil {
				return fmt.Errorf("after deleting %q: %w", g, err)
			}
		}
	}
	return nil
}

// checkConcurrent runs goroutines that each own a group (sets at rising epochs, gets,
// deletes) and share a few groups (the same set at one epoch, as several members of a
// group push, with gets and deletes in between). Whatever the interleaving, an owned
// group reads back what its owner wrote, and a shared group reads nil or the shared
// description.
func checkConcurrent(e *env) error {
	const sharedEpoch = 7
	shared := []string{"plugintest-shared-0", "plugintest-shared-1", "plugintest-shared-2"}
	sharedDesc := plugin.SampleTopology(3, 2)
	ownDescs := []*plugin.TopologyDescription{sample1(), sample2(), plugin.SampleTopology(4, 1)}

	var (
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) bool {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
		return len(errs) >= 5
	}
	var wg sync.WaitGroup
	for w := range e.cfg.goroutines {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1331)) // each worker's op mix is reproducible
			own := fmt.Sprintf("plugintest-own-%d", w)
			var epoch int32
			stored := false
			for i := range e.cfg.opsPerWorker {
				var err error
				switch op := r.IntN(10); {
				case op < 3: // own group: set at the next epoch, read it back
					epoch++
					d := ownDescs[int(epoch)%len(ownDescs)]
					if err = e.set(own, epoch, d); err == nil {
						stored = true
						err = e.expect(own, epoch, d)
					}
				case op < 4: // own group: delete, read nothing back
					if err = e.del(own); err == nil {
						stored = false
						err = e.expect(own, epoch, nil)
					}
				case op < 5: // own group: read
					var want *plugin.TopologyDescription
					if stored {
						want = ownDescs[int(epoch)%len(ownDescs)]
					}
					err = e.expect(own, epoch, want)
				case op < 7: // shared group: the same set as everyone
					err = e.set(shared[r.IntN(len(shared))], sharedEpoch, sharedDesc)
				case op < 8: // shared group: delete
					err = e.del(shared[r.IntN(len(shared))])
				default: // shared group: read nil or the shared description
					g := shared[r.IntN(len(shared))]
					if err = e.expectNotOther(g, sharedEpoch, sharedDesc); err == nil {
						err = e.expect(g, sharedEpoch+1, nil)
					}
				}
				if err != nil {
					if fail(fmt.Errorf("goroutine %d, op %d: %w", w, i, err)) {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func checkClosed(e *env) error {
	g, d := "plugintest-closed", sample1()
	if err := e.set(g, 1, d); err != nil {
		return err
	}
	e.closed = true
	if err := e.s.Close(); err != nil {
		//lint:ignore ST1005 the message starts with the method that failed, Close, as Go spells it
		return fmt.Errorf("Close: %w", err)
	}
	var errs []error
	if err := e.s.SetTopology(e.ctx, g, 2, d); err == nil {
		errs = append(errs, errors.New("SetTopology after Close succeeded, want an error"))
	}
	switch got, err := e.s.GetTopology(e.ctx, g, 1); {
	case err == nil:
		errs = append(errs, fmt.Errorf("GetTopology after Close = %s, nil; want an error", describe(got)))
	case got != nil:
		errs = append(errs, fmt.Errorf("GetTopology after Close returned %s with its error, want nil", describe(got)))
	}
	if err := e.s.DeleteTopology(e.ctx, g); err == nil {
		errs = append(errs, errors.New("DeleteTopology after Close succeeded, want an error"))
	}
	// A second Close may fail, but must not panic: runCheck recovers if it does.
	_ = e.s.Close()
	return errors.Join(errs...)
}

func checkReopen(e *env) error {
	d1, d2, d3 := sample1(), sample2(), plugin.SampleTopology(5, 1)
	err := steps(
		func() error { return e.set("plugintest-reopen-a", 3, d1) },
		func() error { return e.set("plugintest-reopen-b", 4, d3) },
		func() error { return e.set("plugintest-reopen-b", 5, d2) },
		func() error { return e.set("plugintest-reopen-c", 1, d1) },
		func() error { return e.del("plugintest-reopen-c") },
	)
	if err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	err = steps(
		func() error { return e.expect("plugintest-reopen-a", 3, d1) },
		func() error { return e.expect("plugintest-reopen-b", 5, d2) },
		func() error { return e.expect("plugintest-reopen-c", 1, nil) },
		func() error { return e.expect("plugintest-reopen-a", 4, nil) },
	)
	if err != nil {
		return fmt.Errorf("after reopen: %w", err)
	}
	if e.cfg.history {
		return e.expectNotOther("plugintest-reopen-b", 4, d3)
	}
	return e.expect("plugintest-reopen-b", 4, nil)
}
