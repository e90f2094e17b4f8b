package coordtest

import (
	"fmt"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/faultstore"
)

// KIP-1331's topology descriptions, with coordinator plugin=memstore
// [protocol=v1|v2|v3] [executor=manual]. push and describe-streams never
// advance time: when a plugin call is parked they print "pending", and the
// command that completes it reports the outcome.

// push group= member= epoch= sends a StreamsGroupTopologyDescriptionUpdate
// with a sample description of that topology epoch.
func (s *scenario) push(d *datadriven.TestData) (string, error) {
	f := s.h.Coordinator.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: str(d, "group"), MemberID: str(d, "member"), TopologyEpoch: int32(num(d, "epoch", 0)),
		Description: plugin.SampleTopology(uint64(num(d, "epoch", 0)), 2)})
	return awaitOrPark(s, fmt.Sprintf("push %s@%d", str(d, "group"), num(d, "epoch", 0)), f, func(_ struct{}, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return "stored"
	}), nil
}

// describe-streams group= [include] prints the streams group's state, its
// stored description epoch and the topology-description status; include
// asks for the description too (its node count prints).
func (s *scenario) describeStreams(d *datadriven.TestData) (string, error) {
	f := s.h.Coordinator.DescribeStreamsGroups([]string{str(d, "group")}, d.HasArg("include"))
	return awaitOrPark(s, "describe "+str(d, "group"), f, func(rows []coordinator.StreamsGroupDescription, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		r := rows[0]
		if r.Err != nil {
			return fmt.Sprintf("error: %v (status %s)", r.Err, r.TopologyDescriptionStatus)
		}
		line := fmt.Sprintf("state=%s stored=%d status=%s", r.Group.State, r.Group.StoredDescriptionTopologyEpoch, r.TopologyDescriptionStatus)
		if r.TopologyDescription != nil {
			line += fmt.Sprintf(" nodes=%d", r.TopologyDescription.NodeCount())
		}
		return line
	}), nil
}

// cleanup-cycle runs one cleanup cycle now, unless one is running.
func (s *scenario) cleanupCycle(*datadriven.TestData) (string, error) {
	if s.h.Coordinator.RunTopologyCleanupCycle() {
		return "cycle started", nil
	}
	return "cycle not started", nil
}

// plugin-fail op=set|get|delete group= [fault=transient|permanent]
// [times=N] makes the store fail the group's next N calls of op.
func (s *scenario) pluginFail(d *datadriven.TestData) (string, error) {
	if err := s.needPlugin(); err != nil {
		return "", err
	}
	op, err := parseOp(str(d, "op"))
	if err != nil {
		return "", err
	}
	fault := faultstore.FaultTransient
	if str(d, "fault") == "permanent" {
		fault = faultstore.FaultPermanent
	}
	return "", s.faults.FailGroup(str(d, "group"), op, fault, int(num(d, "times", 1)))
}

// executor manual|inline parks plugin calls from now on, or runs them at
// once.
func (s *scenario) executor(d *datadriven.TestData) (string, error) {
	switch {
	case d.HasArg("manual"):
		s.exec.Auto = false
	case d.HasArg("inline"):
		s.exec.Auto = true
	default:
		return "", fmt.Errorf("executor manual|inline")
	}
	return "", nil
}

// plugin-pending lists the plugin calls executor=manual parked.
func (s *scenario) pluginPending(*datadriven.TestData) (string, error) {
	var b strings.Builder
	for _, pc := range s.exec.Pending() {
		fmt.Fprintf(&b, "%s %s\n", pc.Op, pc.GroupID)
	}
	return orNone(&b, "no parked calls"), nil
}

// plugin-run op=set|get|delete group= runs the parked call.
func (s *scenario) pluginRun(d *datadriven.TestData) (string, error) {
	op, err := parseOp(str(d, "op"))
	if err != nil {
		return "", err
	}
	if !s.exec.Run(op, str(d, "group")) {
		return "", fmt.Errorf("no parked %s call for %q", op, str(d, "group"))
	}
	return "", nil
}

// plugin-rows prints the store's rows: group and topology epoch.
func (s *scenario) pluginRows(*datadriven.TestData) (string, error) {
	if err := s.needPlugin(); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range s.store.List() {
		fmt.Fprintf(&b, "%s epoch=%d\n", e.GroupID, e.TopologyEpoch)
	}
	return orNone(&b, "no rows"), nil
}

// backoff group= prints the group's solicitation back-off: the epoch, the
// attempts and when the next is due.
func (s *scenario) backoff(d *datadriven.TestData) (string, error) {
	e, attempts, next, ok := s.h.Coordinator.TopologyBackoff().Entry(str(d, "group"))
	if !ok {
		return "no back-off", nil
	}
	return fmt.Sprintf("epoch=%d attempts=%d next-at=%s", e, attempts, time.UnixMilli(next).Sub(s.start)), nil
}

// parseOp reads a plugin call's op=set|get|delete.
func parseOp(name string) (plugin.Op, error) {
	switch name {
	case "set":
		return plugin.OpSet, nil
	case "get":
		return plugin.OpGet, nil
	case "delete":
		return plugin.OpDelete, nil
	}
	return 0, fmt.Errorf("op=%q: set, get or delete", name)
}
