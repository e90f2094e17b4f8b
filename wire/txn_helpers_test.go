package wire_test

import (
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawTxn is an open transaction, driven with raw requests.
type rawTxn struct {
	id         string
	producerID int64
	epoch      int16
}

// openTxn starts transaction id on its transaction coordinator
// (FindCoordinator key type 1, InitProducerId, AddOffsetsToTxn for every
// group) as a transactional producer does before a TxnOffsetCommit.
func (r *rawCoordinators) openTxn(id string, groups ...string) rawTxn {
	r.t.Helper()
	send := r.txnSender(id)
	ip := kmsg.NewPtrInitProducerIDRequest()
	ip.Version, ip.TransactionalID, ip.TransactionTimeoutMillis = 4, &id, 60000
	ip.ProducerID, ip.ProducerEpoch = -1, -1
	resp := send(ip).(*kmsg.InitProducerIDResponse)
	require.Zero(r.t, resp.ErrorCode, "InitProducerId")
	tx := rawTxn{id: id, producerID: resp.ProducerID, epoch: resp.ProducerEpoch}
	for _, g := range groups {
		ao := kmsg.NewPtrAddOffsetsToTxnRequest()
		ao.Version, ao.TransactionalID, ao.ProducerID, ao.ProducerEpoch, ao.Group = 3, id, tx.producerID, tx.epoch, g
		require.Zero(r.t, send(ao).(*kmsg.AddOffsetsToTxnResponse).ErrorCode, "AddOffsetsToTxn %s", g)
	}
	return tx
}

// txnSender returns a sender to the transaction coordinator of id.
func (r *rawCoordinators) txnSender(id string) func(kmsg.Request) kmsg.Response {
	r.t.Helper()
	c0 := dial(r.t, r.cl.Addrs()[0])
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.Version, fc.CoordinatorType, fc.CoordinatorKeys = 4, 1, []string{id}
	found := roundTrip(r.t, c0, fc).(*kmsg.FindCoordinatorResponse)
	require.Len(r.t, found.Coordinators, 1)
	require.Zero(r.t, found.Coordinators[0].ErrorCode)
	c := dial(r.t, r.cl.Addrs()[found.Coordinators[0].NodeID])
	return func(req kmsg.Request) kmsg.Response { return roundTrip(r.t, c, req) }
}

// stamp makes req a commit of tx.
func (tx rawTxn) stamp(req *kmsg.TxnOffsetCommitRequest) *kmsg.TxnOffsetCommitRequest {
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = tx.id, tx.producerID, tx.epoch
	return req
}

// initTxn is InitProducerId for id, retried while the previous
// transaction's markers are still being written (CONCURRENT_TRANSACTIONS).
func (r *rawCoordinators) initTxn(id string) rawTxn {
	r.t.Helper()
	send := r.txnSender(id)
	var tx rawTxn
	require.Eventually(r.t, func() bool {
		ip := kmsg.NewPtrInitProducerIDRequest()
		ip.Version, ip.TransactionalID, ip.TransactionTimeoutMillis = 4, &id, 60000
		ip.ProducerID, ip.ProducerEpoch = -1, -1
		resp := send(ip).(*kmsg.InitProducerIDResponse)
		tx = rawTxn{id: id, producerID: resp.ProducerID, epoch: resp.ProducerEpoch}
		return resp.ErrorCode == 0
	}, 5*time.Second, 5*time.Millisecond, "InitProducerId %s", id)
	return tx
}

// addOffsets is AddOffsetsToTxn of group to tx, retried while the previous
// transaction completes; it returns the last error code.
func (r *rawCoordinators) addOffsets(tx rawTxn, group string) int16 {
	r.t.Helper()
	send := r.txnSender(tx.id)
	var code int16
	for range 500 {
		ao := kmsg.NewPtrAddOffsetsToTxnRequest()
		ao.Version, ao.TransactionalID, ao.ProducerID, ao.ProducerEpoch, ao.Group = 3, tx.id, tx.producerID, tx.epoch, group
		if code = send(ao).(*kmsg.AddOffsetsToTxnResponse).ErrorCode; code != 51 {
			return code
		}
		time.Sleep(5 * time.Millisecond)
	}
	return code
}

// endTxn is EndTxn of tx.
func (r *rawCoordinators) endTxn(tx rawTxn, commit bool) int16 {
	r.t.Helper()
	et := kmsg.NewPtrEndTxnRequest()
	et.Version, et.TransactionalID, et.ProducerID, et.ProducerEpoch, et.Commit = 4, tx.id, tx.producerID, tx.epoch, commit
	return r.txnSender(tx.id)(et).(*kmsg.EndTxnResponse).ErrorCode
}
