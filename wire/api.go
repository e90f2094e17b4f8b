package wire

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// api is one served request key: Kafka's version range for it and its
// handler. A handler returns the response, errNoResponse for a request
// Kafka does not answer, or an error that closes the connection.
type api struct {
	key, min, max int16
	handle        func(r *request) (kmsg.Response, error)
}

// served lists every API this endpoint speaks, one entry per file named by
// its key. Adding an API is adding a file and a line here; ApiVersions and
// the dispatcher read only this table.
var served = []api{
	apiProduce,
	apiFetch,
	apiListOffsets,
	apiMetadata,
	apiOffsetCommit,
	apiOffsetFetch,
	apiFindCoordinator,
	apiJoinGroup,
	apiHeartbeat,
	apiLeaveGroup,
	apiSyncGroup,
	apiDescribeGroups,
	apiListGroups,
	apiApiVersions,
	apiCreateTopics,
	apiDeleteTopics,
	apiDeleteRecords,
	apiInitProducerID,
	apiAddPartitionsToTxn,
	apiAddOffsetsToTxn,
	apiEndTxn,
	apiTxnOffsetCommit,
	apiDescribeAcls,
	apiCreateAcls,
	apiDeleteAcls,
	apiDescribeConfigs,
	apiAlterConfigs,
	apiDescribeLogDirs,
	apiCreatePartitions,
	apiDeleteGroups,
	apiIncrementalAlterConfigs,
	apiListPartitionReassignments,
	apiOffsetDelete,
	apiDescribeProducers,
	apiConsumerGroupHeartbeat,
	apiConsumerGroupDescribe,
	apiDescribeTransactions,
	apiListTransactions,
	apiListConfigResources,
	apiShareGroupHeartbeat,
	apiShareGroupDescribe,
	apiShareFetch,
	apiShareAcknowledge,
	apiStreamsGroupHeartbeat,
	apiStreamsGroupDescribe,
	apiDescribeShareGroupOffsets,
	apiAlterShareGroupOffsets,
	apiDeleteShareGroupOffsets,
	apiStreamsGroupTopologyDescriptionUpdate,
}

// apiTable is the served table indexed by key.
type apiTable struct{ byKey []*api }

func newAPITable(apis []api) apiTable {
	var t apiTable
	for i := range apis {
		a := &apis[i]
		if int(a.key) >= len(t.byKey) {
			t.byKey = slices.Grow(t.byKey, int(a.key)+1-len(t.byKey))[:int(a.key)+1]
		}
		if t.byKey[a.key] != nil || a.min < 0 || a.max < a.min {
			panic("wire: bad api table entry for " + kmsg.NameForKey(a.key))
		}
		t.byKey[a.key] = a
	}
	return t
}

func (t apiTable) lookup(key int16) *api {
	if key < 0 || int(key) >= len(t.byKey) {
		return nil
	}
	return t.byKey[key]
}

// each calls fn for every served API in key order.
func (t apiTable) each(fn func(a *api)) {
	for _, a := range t.byKey {
		if a != nil {
			fn(a)
		}
	}
}
