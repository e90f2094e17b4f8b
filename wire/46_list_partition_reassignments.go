package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// ListPartitionReassignments: v0, as KRaft's
// ReplicationControlManager.listPartitionReassignments answers it here:
// no reassignment is ever in progress (one replica per partition, leaders
// fixed), so the answer lists no topic, whatever the request names.

var apiListPartitionReassignments = api{key: 46, min: 0, max: 0, handle: handleListPartitionReassignments}

func handleListPartitionReassignments(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ListPartitionReassignmentsRequest)
	return req.ResponseKind(), nil
}
