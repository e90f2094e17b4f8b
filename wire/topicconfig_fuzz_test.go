package wire

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzValidateTopicConfigs feeds arbitrary topic config keys and values to
// CreateTopics' validation (LogConfig.validate's port). Whatever the input
// it must not panic; a config it accepts must be accepted again as the map
// it returned (what the topic keeps and DescribeConfigs reports), and the
// answer's effective configs must include every key set, with its value.
func FuzzValidateTopicConfigs(f *testing.F) {
	for _, seed := range [][4]string{
		{"cleanup.policy", "compact,delete", "retention.bytes", "1048576"},
		{"min.compaction.lag.ms", "10", "max.compaction.lag.ms", "5"},
		{"compression.type", "zstd", "compression.zstd.level", "22"},
		{"remote.storage.enable", "true", "retention.ms", "-1"},
		{"min.insync.replicas", "0", "segment.bytes", "1"},
		{"message.timestamp.type", "LogAppendTime", "unknown.key", "x"},
		{"retention.bytes", " -1 ", "cleanup.policy", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	cl := &Cluster{cfg: DefaultConfig()}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		req := []kmsg.CreateTopicsRequestTopicConfig{{Name: k1, Value: &v1}, {Name: k2, Value: &v2}}
		set, err := validateTopicConfigs(req)
		if err != nil {
			if _, ok := err.(topicConfigError); !ok {
				t.Fatalf("%v: error %T, want topicConfigError (INVALID_CONFIG)", req, err)
			}
			return
		}
		again := make([]kmsg.CreateTopicsRequestTopicConfig, 0, len(set))
		for k, v := range set {
			again = append(again, kmsg.CreateTopicsRequestTopicConfig{Name: k, Value: &v})
		}
		if _, err := validateTopicConfigs(again); err != nil {
			t.Fatalf("accepted %v, then refused the kept configs %v: %v", req, set, err)
		}
		shown := map[string]string{}
		for _, c := range cl.createTopicsConfigs(set) {
			if c.Value != nil {
				shown[c.Name] = *c.Value
			}
		}
		for k, v := range set {
			if shown[k] != v {
				t.Fatalf("set %s=%q, the answer shows %q", k, v, shown[k])
			}
		}
	})
}
