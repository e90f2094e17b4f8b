package wire

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeLogDirs: v1-5 (Kafka 4.x; KIP-896 removed v0; v5 adds KIP-1066's
// IsCordoned, false here: no log directory is ever cordoned), as
// KafkaApis.handleDescribeLogDirsRequest and ReplicaManager.describeLogDirs
// answer it: each broker has one log directory, its in-memory data plane
// (named memory://broker-N), holding the partitions it leads, each with
// its size in bytes (the record batches held) and offset lag 0 (no future
// replica). A null topic list is every partition; a named topic or
// partition the broker does not hold is left out, as Kafka leaves it out.
// TotalBytes and UsableBytes are -1 (unknown): memory has no volume.

var apiDescribeLogDirs = api{key: 35, min: 1, max: 5, handle: handleDescribeLogDirs}

func handleDescribeLogDirs(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DescribeLogDirsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeLogDirsResponse)
	var wanted map[string]map[int32]bool
	if req.Topics != nil {
		wanted = map[string]map[int32]bool{}
		for _, rt := range req.Topics {
			if wanted[rt.Topic] == nil {
				wanted[rt.Topic] = map[int32]bool{}
			}
			for _, p := range rt.Partitions {
				wanted[rt.Topic][p] = true
			}
		}
	}
	sizes := r.cl.data.sizes(func(topic string, p int32) bool {
		return r.cl.leaderOf(p) == r.b.node && (wanted == nil || wanted[topic][p])
	})
	dir := kmsg.NewDescribeLogDirsResponseDir()
	dir.Dir = fmt.Sprintf("memory://broker-%d", r.b.node)
	dir.TotalBytes, dir.UsableBytes = -1, -1
	for _, s := range sizes {
		n := len(dir.Topics)
		if n == 0 || dir.Topics[n-1].Topic != s.topic {
			t := kmsg.NewDescribeLogDirsResponseDirTopic()
			t.Topic = s.topic
			dir.Topics = append(dir.Topics, t)
			n++
		}
		p := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
		p.Partition, p.Size = s.partition, s.bytes
		dir.Topics[n-1].Partitions = append(dir.Topics[n-1].Partitions, p)
	}
	resp.Dirs = append(resp.Dirs, dir)
	return resp, nil
}
