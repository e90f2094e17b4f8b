package txn

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
)

// TestScenarios runs the transaction coordinator scenarios under
// testdata/: a prose paragraph on what each proves, then commands and the
// answers and records they produce (regenerate with -rewrite and review
// the diff). Commands, all at virtual time at=MS (default: the last):
//
//	init id=T timeout=MS [expect=PID/EPOCH]   InitProducerId
//	add id=T pid=P epoch=E partitions=(topic-p,...) [tv=V]
//	offsets id=T pid=P epoch=E group=G [tv=V] AddOffsetsToTxn
//	end id=T pid=P epoch=E commit|abort [tv=V] EndTxn
//	complete id=T                             the markers of T are written
//	sweep                                     the timed-out transaction sweep
//	state id=T                                the metadata of T
//
// tv is the client's transaction.version (0 by default); a file whose name
// starts with tv2_ runs a cluster finalized at transaction.version 2 (its
// fences and timeouts abort the TV2 way), the others at 0.
//
// Every command prints the records it appended and the markers it yields.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var next int64
		clusterTV := TV0 // a file named tv2_* runs a cluster at transaction.version 2
		if strings.HasPrefix(filepath.Base(path), "tv2_") {
			clusterTV = TV2
		}
		c, err := NewCoordinator(Config{NumPartitions: 1, MaxTimeoutMs: 60000, AbortTimedOutIntervalMs: 1000,
			IDExpirationMs: DefaultIDExpirationMs, RemoveExpiredIntervalMs: DefaultRemoveExpiredIntervalMs,
			TransactionVersion: clusterTV},
			func() int64 { next++; return next - 1 }, coordinator.PartitionFor)
		if err != nil {
			t.Fatal(err)
		}
		s := &txnScenario{c: c, markers: map[string]*Markers{}}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			out, err := s.run(d)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

type txnScenario struct {
	c       *Coordinator
	nowMs   int64
	markers map[string]*Markers
}

func (s *txnScenario) arg(d *datadriven.TestData, key string) string {
	for _, a := range d.CmdArgs {
		if a.Key == key && len(a.Vals) > 0 {
			return a.Vals[0]
		}
	}
	return ""
}

func (s *txnScenario) int(d *datadriven.TestData, key string) int64 {
	n, _ := strconv.ParseInt(s.arg(d, key), 10, 64)
	return n
}

func (s *txnScenario) run(d *datadriven.TestData) (string, error) {
	if at := s.arg(d, "at"); at != "" {
		s.nowMs = s.int(d, "at")
	}
	id := s.arg(d, "id")
	before := len(s.c.Log(0))
	var b strings.Builder
	var mks []*Markers
	var err error
	switch d.Cmd {
	case "init":
		req := InitProducerIDRequest{TransactionalID: id, TimeoutMs: int32(s.int(d, "timeout")), ExpectedProducerID: -1, ExpectedProducerEpoch: -1}
		if e := s.arg(d, "expect"); e != "" {
			pid, epoch, _ := strings.Cut(e, "/")
			p, _ := strconv.ParseInt(pid, 10, 64)
			ep, _ := strconv.ParseInt(epoch, 10, 16)
			req.ExpectedProducerID, req.ExpectedProducerEpoch = p, int16(ep)
		}
		var resp InitProducerIDResponse
		var mk *Markers
		resp, mk, err = s.c.InitProducerID(s.nowMs, req)
		if err == nil {
			if resp.Err != nil {
				fmt.Fprintf(&b, "answer %s\n", kerr.Name(resp.Err))
			} else {
				fmt.Fprintf(&b, "producer %d epoch %d\n", resp.ProducerID, resp.ProducerEpoch)
			}
		}
		mks = append(mks, mk)
	case "add":
		var ps []TopicPartition
		for _, a := range d.CmdArgs {
			if a.Key != "partitions" {
				continue
			}
			for _, v := range a.Vals {
				i := strings.LastIndex(v, "-")
				p, _ := strconv.ParseInt(v[i+1:], 10, 32)
				ps = append(ps, TopicPartition{Topic: v[:i], Partition: int32(p)})
			}
		}
		err = s.c.AddPartitions(s.nowMs, id, s.int(d, "pid"), int16(s.int(d, "epoch")), ps, TransactionVersion(s.int(d, "tv")))
	case "offsets":
		err = s.c.AddOffsets(s.nowMs, id, s.int(d, "pid"), int16(s.int(d, "epoch")), s.arg(d, "group"), 50, TransactionVersion(s.int(d, "tv")))
	case "end":
		var mk *Markers
		var resp EndTxnResponse
		tv := TransactionVersion(s.int(d, "tv"))
		mk, resp, err = s.c.EndTxn(s.nowMs, id, s.int(d, "pid"), int16(s.int(d, "epoch")), d.HasArg("commit"), tv)
		if err == nil && tv == TV2 {
			fmt.Fprintf(&b, "continue as producer %d epoch %d\n", resp.ProducerID, resp.ProducerEpoch)
		}
		mks = append(mks, mk)
	case "complete":
		mk := s.markers[id]
		if mk == nil {
			return "", fmt.Errorf("no markers in flight for %s", id)
		}
		var st State
		st, err = s.c.CompleteTransaction(s.nowMs, mk)
		if err == nil {
			delete(s.markers, id)
			fmt.Fprintf(&b, "%s\n", st)
		}
	case "sweep":
		mks = s.c.AbortTimedOut(s.nowMs)
	case "state":
		m, ok := s.c.Current(id)
		if !ok {
			return "unknown\n", nil
		}
		fmt.Fprintf(&b, "%s\n", describeMetadata(m))
		return b.String(), nil
	default:
		return "", fmt.Errorf("unknown command %q", d.Cmd)
	}
	if err != nil {
		return kerr.Name(err) + "\n", nil
	}
	for _, r := range s.c.Log(0)[before:] {
		if r.Value == nil {
			fmt.Fprintf(&b, "record %s tombstone\n", r.TransactionalID)
			continue
		}
		fmt.Fprintf(&b, "record %s\n", describeMetadata(*r.Value))
	}
	for _, mk := range mks {
		if mk == nil {
			continue
		}
		s.markers[mk.TransactionalID] = mk
		result := "abort"
		if mk.Commit {
			result = "commit"
		}
		fmt.Fprintf(&b, "markers %s %s producer %d epoch %d partitions %v groups %v\n", mk.TransactionalID, result, mk.ProducerID, mk.ProducerEpoch, mk.Partitions, mk.Groups)
	}
	if b.Len() == 0 {
		return "ok\n", nil
	}
	return b.String(), nil
}

func describeMetadata(m Metadata) string {
	return fmt.Sprintf("%s %s producer %d epoch %d last-epoch %d partitions %v groups %v start %d",
		m.TransactionalID, m.State, m.ProducerID, m.ProducerEpoch, m.LastProducerEpoch, m.Partitions, m.Groups, m.TxnStartTimestampMs)
}
