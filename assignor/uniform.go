package assignor

// UniformName is the uniform assignor's name (Kafka's UniformAssignor.NAME).
const UniformName = "uniform"

// Uniform is Kafka's UniformAssignor: balanced and sticky. It runs the
// homogeneous builder when every member subscribes to the same topics and
// the heterogeneous builder otherwise.
type Uniform struct{}

// Name returns "uniform".
func (Uniform) Name() string { return UniformName }

// Assign computes the target assignment (UniformAssignor.assign).
func (Uniform) Assign(spec *Spec) (Target, error) {
	m, err := newModel(spec, func(topic string) error {
		return assignorError("Members are subscribed to topic %s which doesn't exist in the topic metadata.", topic)
	})
	if err != nil {
		return nil, err
	}
	if m.homogeneous {
		return m.uniformHomogeneous()
	}
	return m.uniformHeterogeneous(), nil
}

// uniformHomogeneous is UniformHomogeneousAssignmentBuilder.build as of
// KAFKA-18688: each member has a quota of total/members partitions, and
// total%members of them one more. A member keeps its current partitions up
// to its quota (in topic-name order, partitions ascending) and gives back the
// rest; a member that kept fewer than quota+1 gives its claim on an extra
// partition back for another member to take, so an already balanced
// assignment never moves. The partitions left over (first the ones nobody
// owned, then the revoked ones) go to the unfilled members in member order;
// the last unfilled members take the extra partitions still unclaimed.
func (m *model) uniformHomogeneous() (Target, error) {
	owners := m.newOwners()
	if len(m.members) == 0 || len(m.members[0].subs) == 0 {
		return m.target(owners), nil
	}
	subs := m.members[0].subs
	// groupSpec.isPartitionAssigned: in anyone's current assignment.
	assignedBefore := m.currentOwners
	total := 0
	for _, t := range subs {
		total += int(m.topics[t].Partitions)
	}
	// A partition is unassigned either because nobody owned it or because
	// its owner gives it back, never both: total bounds the list.
	unassigned := make([]topicPartition, 0, total)
	for _, t := range subs {
		n := m.topics[t].Partitions
		for p := int32(0); p < n; p++ {
			if assignedBefore[t][p] < 0 {
				unassigned = append(unassigned, topicPartition{t, p})
			}
		}
	}
	minQuota := total / len(m.members)
	extra := total % len(m.members)

	type unfilled struct {
		member int
		quota  int
	}
	var open []unfilled
	// maybeRevokePartitions
	for i, x := range m.members {
		quota := minQuota
		hasExtra := false
		if extra > 0 {
			quota++
			hasExtra = true
		}
		for _, o := range x.current {
			if !subscribed(subs, o.topic) {
				continue // the whole topic is revoked
			}
			if len(o.parts) <= quota {
				quota -= len(o.parts)
				for _, p := range o.parts {
					owners[o.topic][p] = int32(i)
				}
				continue
			}
			for _, p := range o.parts {
				if quota > 0 {
					quota--
					owners[o.topic][p] = int32(i)
				} else {
					unassigned = append(unassigned, topicPartition{o.topic, p})
				}
			}
		}
		if quota > 0 && hasExtra {
			// Give up the extra partition quota for another member to claim.
			quota--
			hasExtra = false
		}
		if quota == 0 && hasExtra {
			extra--
		}
		if quota > 0 || (extra > 0 && !hasExtra) {
			open = append(open, unfilled{i, quota})
		}
	}
	// assignRemainingPartitions: the last unfilled members take the extra
	// partitions still unclaimed.
	for k := len(open) - 1; k >= 0; k-- {
		if extra > 0 {
			extra--
			open[k].quota++
		}
	}
	next := 0
	for _, u := range open {
		for q := 0; q < u.quota && next < len(unassigned); q++ {
			tp := unassigned[next]
			next++
			owners[tp.topic][tp.partition] = int32(u.member)
		}
	}
	if next < len(unassigned) {
		return nil, assignorError("Partitions were left unassigned")
	}
	return m.target(owners), nil
}
