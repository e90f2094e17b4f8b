package connect

import (
	"errors"
	"maps"
	"slices"
	"testing"
)

// FuzzResolve feeds Resolve arbitrary worker and connector values: it must
// never panic (its invariants included), must answer bad input with a
// *ConfigError, and a config it accepts must keep its promises (a share
// consumer without a rejected key, explicit acknowledgement, sorted
// Stripped, topics unique) and come out the same on a second call without
// touching its inputs. `go test` runs the seed corpus; `go test -fuzz
// FuzzResolve ./connect/` explores further.
func FuzzResolve(f *testing.F) {
	f.Add("share", "", "orders-sink", "orders", "1", "none", "", "", "", "")
	f.Add("", "SHARE", "s", "a, b,a", " 8 ", "ALL", "latest", "implicit", "consumer.override.session.timeout.ms", "10000")
	f.Add("share", "consumer", "x", "t", "1000", "all", "by_duration:PT1H", "explicit", "errors.deadletterqueue.topic.name", "dlq")
	f.Add("classic", "share", "x", "t", "0", "none", "none", "", "consumer.override.", "v")
	f.Add("consumer", "-", "", "", "abc", "some", "by_duration:-P1D", "", "topics.regex", ".*")
	f.Add("sharee", "", "n\x00", "..", "1001", "", "EARLIEST", "x", "consumer.override.group.id", "")
	f.Add("share", "", "n", "t", "1", "none", "by_duration:PT0.0001S", "", "group.id", "g")
	f.Fuzz(func(t *testing.T, workerProto, connProto, name, topics, tasks, tolerance, reset, ackMode, extraKey, extraVal string) {
		worker := Props{"consumer.auto.offset.reset": reset}
		if workerProto != "-" {
			worker["consumer.group.protocol"] = workerProto
		}
		connector := Props{
			"name": name, "topics": topics, "tasks.max": tasks, "errors.tolerance": tolerance,
			"consumer.override.share.acknowledgement.mode": ackMode,
		}
		if connProto != "" {
			connector["consumer.override.group.protocol"] = connProto
		}
		if extraKey != "" {
			connector[extraKey] = extraVal
		}
		workerBefore, connectorBefore := maps.Clone(worker), maps.Clone(connector)

		cfg, err := Resolve(worker, connector)
		if !maps.Equal(worker, workerBefore) || !maps.Equal(connector, connectorBefore) {
			t.Fatalf("Resolve modified its inputs")
		}
		again, errAgain := Resolve(worker, connector)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not a *ConfigError", err, err)
			}
			if errAgain == nil || errAgain.Error() != err.Error() {
				t.Fatalf("second call answered %v, first %v", errAgain, err)
			}
			return
		}
		if errAgain != nil || !sameConfig(cfg, again) {
			t.Fatalf("second call differs: %+v vs %+v (%v)", cfg, again, errAgain)
		}
		if !slices.IsSorted(cfg.Stripped) || cfg.Consumer == nil || cfg.GroupConfigs == nil {
			t.Fatalf("bad shape: %+v", cfg)
		}
		if len(cfg.Topics) == 0 || len(slices.Compact(slices.Sorted(slices.Values(cfg.Topics)))) != len(cfg.Topics) {
			t.Fatalf("topics empty or duplicated: %q", cfg.Topics)
		}
		switch cfg.Kind {
		case ShareSink:
			for _, k := range shareRejectedKeys() {
				if _, ok := cfg.Consumer[k]; ok {
					t.Fatalf("share consumer kept rejected key %s: %v", k, cfg.Consumer)
				}
			}
			if cfg.Consumer["share.acknowledgement.mode"] != "explicit" {
				t.Fatalf("share consumer not explicit: %v", cfg.Consumer)
			}
			if v, ok := cfg.GroupConfigs[GroupConfigShareAutoOffsetReset]; ok {
				if _, _, err := ParseShareAutoOffsetReset(v); err != nil {
					t.Fatalf("group config %q does not parse: %v", v, err)
				}
			}
		case ConsumerSink:
			if len(cfg.Stripped) != 0 || len(cfg.GroupConfigs) != 0 {
				t.Fatalf("consumer sink stripped or set group configs: %+v", cfg)
			}
		default:
			t.Fatalf("kind %v", cfg.Kind)
		}
	})
}

// sameConfig compares two configs field by field (maps by content).
func sameConfig(a, b SinkConfig) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.GroupProtocol == b.GroupProtocol && a.GroupID == b.GroupID &&
		slices.Equal(a.Topics, b.Topics) && a.Tasks == b.Tasks && maps.Equal(a.Consumer, b.Consumer) &&
		slices.Equal(a.Stripped, b.Stripped) && maps.Equal(a.GroupConfigs, b.GroupConfigs) &&
		a.ErrorsTolerance == b.ErrorsTolerance && a.DLQTopic == b.DLQTopic && slices.Equal(a.Warnings, b.Warnings)
}
