package wire_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// The matrix's migration scenario (compat_matrix_test.go): a kgo group
// upgraded online to a consumer group by a KIP-848 member's join, then
// downgraded by its leave.

// partitionOwners is who holds each partition, as the members' callbacks
// report it; a partition assigned while another member holds it is a
// violation of the one-owner rule.
type partitionOwners struct {
	mu         sync.Mutex
	owner      map[int32]string
	violations []string
}

func (o *partitionOwners) assign(member string, ps []int32) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range ps {
		if cur, ok := o.owner[p]; ok && cur != member {
			o.violations = append(o.violations, fmt.Sprintf("partition %d assigned to %s while %s holds it", p, member, cur))
		}
		o.owner[p] = member
	}
}

func (o *partitionOwners) release(member string, ps []int32) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range ps {
		if o.owner[p] == member {
			delete(o.owner, p)
		}
	}
}

// check reports the violations, and a tracking that saw fewer partitions
// held than the topic has (a vacuous check).
func (o *partitionOwners) check(partitions int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.violations) > 0 {
		return fmt.Errorf("%d one-owner violations: %v", len(o.violations), o.violations)
	}
	if len(o.owner) != partitions {
		return fmt.Errorf("the callbacks report %d partitions held, want %d", len(o.owner), partitions)
	}
	return nil
}

// runMigration is the migrate scenario: classic, upgraded, downgraded,
// with a batch consumed in each phase.
func runMigration(t *testing.T, ctx context.Context, c matrixClient, e *matrixEnv) error {
	owners := &partitionOwners{owner: map[int32]string{}}
	spec := func(name string) memberSpec {
		s := e.spec(&killSwitch{}, "")
		s.name, s.owners = name, owners
		return s
	}
	var ms []matrixMember
	defer func() { stopAll(ms) }()
	for i := range 2 {
		ms = append(ms, c.start(t, spec(fmt.Sprintf("classic-%d", i))))
	}
	phase := func(b int, kip848 bool, members int) error {
		if _, err := e.waitStable(ctx, kip848, members); err != nil {
			return fmt.Errorf("batch %d: %w", b, err)
		}
		want := map[bool]string{false: "classic", true: "consumer"}[kip848]
		if typ, err := e.groupType(ctx); err != nil || typ != want {
			return fmt.Errorf("batch %d: the group is a %q group (%v), want %s", b, typ, err, want)
		}
		if err := e.produce(ctx, b); err != nil {
			return err
		}
		if err := e.seen.waitBatch(ctx, b); err != nil {
			return err
		}
		// The matrix's revoke callbacks replace kgo's commit on revoke, so
		// the phase ends once its records are committed: the next phase
		// moves partitions.
		return e.waitCommitted(ctx)
	}
	if err := phase(0, false, 2); err != nil {
		return err
	}
	// The upgrade: a KIP-848 member joins the classic group.
	modern := kgoMember(kgo.RangeBalancer(), true)(t, spec("kip848"))
	if err := phase(1, true, 3); err != nil {
		modern.stop()
		return fmt.Errorf("after the upgrade: %w", err)
	}
	// The downgrade: the last consumer-protocol member leaves.
	modern.stop()
	if err := phase(2, false, 2); err != nil {
		return fmt.Errorf("after the downgrade: %w", err)
	}
	if err := owners.check(matrixPartitions); err != nil {
		return err
	}
	if d := e.seen.duplicates(); len(d) > 0 {
		return fmt.Errorf("%d records consumed twice: %v", len(d), d)
	}
	return nil
}

// groupType is the group's type as ListGroups (v5) reports it.
func (e *matrixEnv) groupType(ctx context.Context) (string, error) {
	ls, err := e.adm.ListGroups(ctx)
	if err != nil {
		return "", err
	}
	return ls[e.group].GroupType, nil
}
