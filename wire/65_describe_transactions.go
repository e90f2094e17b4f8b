package wire

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/txn"
)

// DescribeTransactions: v0 (Kafka 4.x). Each transactional id is answered
// from the transaction coordinator's state, as
// TransactionCoordinator.handleDescribeTransactions answers it: an id this
// broker does not coordinate is NOT_COORDINATOR, an unknown (or Dead) one
// TRANSACTIONAL_ID_NOT_FOUND; otherwise its state, timeout, start time (-1
// with no transaction), producer id and epoch, and its partitions grouped
// by topic.

var apiDescribeTransactions = api{key: 65, min: 0, max: 0, handle: handleDescribeTransactions}

func handleDescribeTransactions(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DescribeTransactionsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeTransactionsResponse)
	var mine []string
	for _, id := range req.TransactionalIDs {
		if !r.notTxnCoordinator(id) {
			mine = append(mine, id)
		}
	}
	ms, oks, err := r.cl.txn.Current(r.ctx, mine)
	k := 0
	for _, id := range req.TransactionalIDs {
		st := kmsg.NewDescribeTransactionsResponseTransactionState()
		st.TransactionalID = id
		st.ProducerID, st.ProducerEpoch, st.StartTimestamp = -1, -1, -1
		switch {
		case r.notTxnCoordinator(id):
			st.ErrorCode = errNotCoordinator
		case err != nil:
			st.ErrorCode, _ = txnErrCode(err)
			k++
		default:
			m, ok := ms[k], oks[k]
			k++
			if !ok || m.State == txn.Dead {
				st.ErrorCode = kerr.TransactionalIDNotFound.Code
				break
			}
			st.State, st.TimeoutMillis, st.StartTimestamp = m.State.String(), m.TimeoutMs, m.TxnStartTimestampMs
			st.ProducerID, st.ProducerEpoch = m.ProducerID, m.ProducerEpoch
			st.Topics = describedTopics(m.Partitions)
		}
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	return resp, nil
}

// describedTopics groups a transaction's sorted partitions by topic.
func describedTopics(ps []txn.TopicPartition) []kmsg.DescribeTransactionsResponseTransactionStateTopic {
	var out []kmsg.DescribeTransactionsResponseTransactionStateTopic
	for _, p := range ps {
		if n := len(out); n == 0 || out[n-1].Topic != p.Topic {
			t := kmsg.NewDescribeTransactionsResponseTransactionStateTopic()
			t.Topic = p.Topic
			out = append(out, t)
		}
		last := &out[len(out)-1]
		last.Partitions = append(last.Partitions, p.Partition)
	}
	for i := range out {
		slices.Sort(out[i].Partitions)
	}
	return out
}
