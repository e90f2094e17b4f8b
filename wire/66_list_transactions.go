package wire

import (
	"regexp"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/txn"
)

// ListTransactions: v0-2 (Kafka 4.x). Each broker lists the transactional
// ids of the __transaction_state partitions it leads, filtered as
// TransactionStateManager.listTransactionStates filters: by state (names
// Kafka does not know are returned in UnknownStateFilters and match
// nothing), producer id, duration (v1+, transactions running longer than
// it) and transactional id pattern (v2+; an invalid one is
// INVALID_REGULAR_EXPRESSION). The pattern is compiled as an RE2 regular
// expression, where Kafka uses java.util.regex: the constructs they share
// match the same ids.

var apiListTransactions = api{key: 66, min: 0, max: 2, handle: handleListTransactions}

func handleListTransactions(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ListTransactionsRequest)
	resp := req.ResponseKind().(*kmsg.ListTransactionsResponse)
	f := txn.ListFilter{ProducerIDs: req.ProducerIDFilters, DurationMs: -1, ByState: len(req.StateFilters) > 0, Partitions: []int32{}}
	if req.Version >= 1 {
		f.DurationMs = req.DurationFilterMillis
	}
	for _, name := range req.StateFilters {
		if s, ok := txn.ParseState(name); ok {
			f.States = append(f.States, s)
		} else {
			resp.UnknownStateFilters = append(resp.UnknownStateFilters, name)
		}
	}
	if req.Version >= 2 && req.TransactionalIDPattern != nil && *req.TransactionalIDPattern != "" {
		re, err := regexp.Compile(*req.TransactionalIDPattern)
		if err != nil {
			resp.ErrorCode = kerr.InvalidRegularExpression.Code
			return resp, nil
		}
		f.IDPattern = re
	}
	n := r.cl.txn.Config().NumPartitions
	for p := range n {
		if p%int32(len(r.cl.brokers)) == r.b.node {
			f.Partitions = append(f.Partitions, p)
		}
	}
	listed, err := r.cl.txn.List(r.ctx, f)
	if err != nil {
		resp.ErrorCode, _ = txnErrCode(err)
		return resp, nil
	}
	for _, l := range listed {
		st := kmsg.NewListTransactionsResponseTransactionState()
		st.TransactionalID, st.ProducerID, st.TransactionState = l.TransactionalID, l.ProducerID, l.State.String()
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	return resp, nil
}
