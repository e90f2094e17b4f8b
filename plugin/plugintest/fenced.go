package plugintest

import (
	"context"
	"errors"
	"fmt"

	"github.com/coordsim/coordsim/plugin"
)

// The checks of plugin.FencedStore, run only against stores that claim it
// (plugin.AsFenced), and the cancelled-context check every store gets.

func (e *env) fenced() plugin.FencedStore {
	f, _ := plugin.AsFenced(e.s)
	return f
}

func (e *env) setF(group string, epoch int32, d *plugin.TopologyDescription, token int32) error {
	if err := e.fenced().SetTopologyFenced(e.ctx, group, epoch, d, token); err != nil {
		return fmt.Errorf("SetTopologyFenced(%q, %d, token %d): %w", group, epoch, token, err)
	}
	return nil
}

func (e *env) delF(group string, token int32) error {
	if err := e.fenced().DeleteTopologyFenced(e.ctx, group, token); err != nil {
		return fmt.Errorf("DeleteTopologyFenced(%q, token %d): %w", group, token, err)
	}
	return nil
}

// refused checks that err is a permanent plugin.ErrFenced.
func refused(what string, err error) error {
	switch {
	case err == nil:
		return fmt.Errorf("%s succeeded, want plugin.ErrFenced", what)
	case !errors.Is(err, plugin.ErrFenced):
		return fmt.Errorf("%s: %w, want plugin.ErrFenced", what, err)
	case plugin.Classify(err) != plugin.ClassPermanent:
		return fmt.Errorf("%s: %w is %s, want permanent", what, err, plugin.Classify(err))
	}
	return nil
}

// checkFencedStaleDelete: a delete carrying a lower token than the set that
// stored the row is refused and the row survives. This is the move race: the
// previous owner's delete landing after the new owner's push.
func checkFencedStaleDelete(e *env) error {
	g, d := "plugintest-fenced-stale-delete", sample1()
	return steps(
		func() error { return e.setF(g, 1, d, 5) },
		func() error {
			return refused("DeleteTopologyFenced with token 4 after a set with token 5", e.fenced().DeleteTopologyFenced(e.ctx, g, 4))
		},
		func() error { return e.expect(g, 1, d) },
	)
}

// checkFencedStaleSet: a set carrying a lower token is refused and changes nothing.
func checkFencedStaleSet(e *env) error {
	g, d1, d2 := "plugintest-fenced-stale-set", sample1(), sample2()
	return steps(
		func() error { return e.setF(g, 1, d1, 5) },
		func() error {
			return refused("SetTopologyFenced with token 4 after token 5", e.fenced().SetTopologyFenced(e.ctx, g, 2, d2, 4))
		},
		func() error { return e.expect(g, 1, d1) },
		func() error { return e.expect(g, 2, nil) },
	)
}

// checkFencedTokenSurvivesDelete: the highest token is kept after a delete,
// so a set or delete with a lower token is still refused.
func checkFencedTokenSurvivesDelete(e *env) error {
	g, d := "plugintest-fenced-survives", sample1()
	return steps(
		func() error { return e.setF(g, 1, d, 5) },
		func() error { return e.delF(g, 5) },
		func() error { return e.expect(g, 1, nil) },
		func() error {
			return refused("SetTopologyFenced with token 4 after a delete with token 5", e.fenced().SetTopologyFenced(e.ctx, g, 1, d, 4))
		},
		func() error { return e.expect(g, 1, nil) },
		func() error {
			return refused("DeleteTopologyFenced with token 4 after a delete with token 5", e.fenced().DeleteTopologyFenced(e.ctx, g, 4))
		},
	)
}

// checkFencedEqualAccepted: equal tokens are accepted (one owner makes many
// calls), and a higher token takes over.
func checkFencedEqualAccepted(e *env) error {
	g, d1, d2 := "plugintest-fenced-equal", sample1(), sample2()
	return steps(
		func() error { return e.setF(g, 1, d1, 5) },
		func() error { return e.setF(g, 1, d1, 5) },
		func() error { return e.delF(g, 5) },
		func() error { return e.setF(g, 2, d2, 5) },
		func() error { return e.expect(g, 2, d2) },
		func() error { return e.setF(g, 3, d1, 6) },
		func() error { return e.expect(g, 3, d1) },
		func() error { return e.delF(g, 6) },
		func() error { return e.expect(g, 3, nil) },
	)
}

// checkFencedGroupsIsolated: tokens are per group.
func checkFencedGroupsIsolated(e *env) error {
	a, b, d := "plugintest-fenced-a", "plugintest-fenced-b", sample1()
	return steps(
		func() error { return e.setF(a, 1, d, 9) },
		func() error { return e.setF(b, 1, d, 1) },
		func() error { return e.delF(b, 1) },
		func() error { return e.expect(a, 1, d) },
	)
}

// checkFencedBadToken: a negative token is bad input (plugin.ErrInvalidArgument)
// and changes nothing.
func checkFencedBadToken(e *env) error {
	g, d := "plugintest-fenced-bad-token", sample1()
	if err := e.setF(g, 1, d, 0); err != nil {
		return err
	}
	if err := e.fenced().SetTopologyFenced(e.ctx, g, 2, sample2(), -1); !errors.Is(err, plugin.ErrInvalidArgument) {
		return fmt.Errorf("SetTopologyFenced with token -1 = %v, want plugin.ErrInvalidArgument", err)
	}
	if err := e.fenced().DeleteTopologyFenced(e.ctx, g, -1); !errors.Is(err, plugin.ErrInvalidArgument) {
		return fmt.Errorf("DeleteTopologyFenced with token -1 = %v, want plugin.ErrInvalidArgument", err)
	}
	return e.expect(g, 1, d)
}

// checkFencedReopen: the highest token survives Close and a reopen.
func checkFencedReopen(e *env) error {
	g, d := "plugintest-fenced-reopen", sample1()
	if err := steps(func() error { return e.setF(g, 1, d, 7) }, func() error { return e.delF(g, 7) }); err != nil {
		return err
	}
	if err := e.reopen(); err != nil {
		return err
	}
	if e.fenced() == nil {
		return errors.New("the reopened store is not a plugin.FencedStore")
	}
	return refused("after reopen, SetTopologyFenced with token 6 after a delete with token 7", e.fenced().SetTopologyFenced(e.ctx, g, 1, d, 6))
}

// checkCancelledContext: every call with an already-cancelled context fails
// and changes nothing.
func checkCancelledContext(e *env) error {
	g, d1, d2 := "plugintest-cancelled", sample1(), sample2()
	if err := e.set(g, 1, d1); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	var errs []error
	if err := e.s.SetTopology(ctx, g, 2, d2); err == nil {
		errs = append(errs, errors.New("SetTopology with a cancelled context succeeded, want an error"))
	}
	if got, err := e.s.GetTopology(ctx, g, 1); err == nil || got != nil {
		errs = append(errs, fmt.Errorf("GetTopology with a cancelled context = %s, %v; want nil and an error", describe(got), err))
	}
	if err := e.s.DeleteTopology(ctx, g); err == nil {
		errs = append(errs, errors.New("DeleteTopology with a cancelled context succeeded, want an error"))
	}
	if f := e.fenced(); f != nil {
		if err := f.DeleteTopologyFenced(ctx, g, 1); err == nil {
			errs = append(errs, errors.New("DeleteTopologyFenced with a cancelled context succeeded, want an error"))
		}
	}
	errs = append(errs, e.expect(g, 1, d1), e.expect(g, 2, nil))
	return errors.Join(errs...)
}
