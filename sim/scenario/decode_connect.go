package scenario

import (
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/coordsim/coordsim/sim/connectsim"
)

// Limits on the connect section (the simulator's own limits are checked by
// sim.Options.Validate afterwards).
const (
	maxListItems = 1000
	maxProps     = 1000
	maxPropLen   = 4096
)

// connectFields are the keys of the connect section.
func (d *decoder) connectFields(c *connectsim.Workload) []field {
	return []field{
		{"topics", func(p string, n *yaml.Node) (perr *Error) {
			c.Topics, perr = d.topics(p, n)
			return perr
		}},
		listField(d, "producers", &c.Producers, d.producerFields),
		listField(d, "connectors", &c.Connectors, d.connectorFields),
		d.durField("drain", &c.Drain),
		d.durField("record_lock_duration", &c.RecordLockDuration),
		d.int32Field("delivery_count_limit", &c.DeliveryCountLimit),
		{"max_record_locks", func(p string, n *yaml.Node) (perr *Error) {
			c.MaxRecordLocks, perr = d.integer(p, n, math.MinInt32, math.MaxInt32)
			return perr
		}},
		d.durField("dlq_write_delay", &c.DLQWriteDelay),
		d.durField("connection_idle_timeout", &c.ConnectionIdleTimeout),
	}
}

func (d *decoder) producerFields(pr *connectsim.Producer) []field {
	return []field{
		d.strField("topic", &pr.Topic),
		d.numberField("rate", &pr.RatePerSec),
		d.int32Field("batch_records", &pr.BatchRecords),
		d.durField("start_at", &pr.StartAt),
		d.durField("stop_at", &pr.StopAt),
	}
}

func (d *decoder) connectorFields(k *connectsim.Connector) []field {
	return []field{
		{"worker", func(p string, n *yaml.Node) (perr *Error) {
			k.Worker, perr = d.props(p, n)
			return perr
		}},
		{"config", func(p string, n *yaml.Node) (perr *Error) {
			k.Config, perr = d.props(p, n)
			return perr
		}},
		d.durField("start_at", &k.StartAt),
		listField(d, "scale", &k.Scale, func(s *connectsim.ScaleStep) []field {
			return []field{d.durField("at", &s.At), d.intField("tasks", &s.Tasks, math.MinInt32, math.MaxInt32)}
		}),
		listField(d, "kills", &k.Kills, func(kl *connectsim.TaskKill) []field {
			return []field{d.durField("at", &kl.At), d.intField("task", &kl.Task, math.MinInt32, math.MaxInt32)}
		}),
		listField(d, "reset_offsets", &k.ResetOffsets, func(r *connectsim.OffsetReset) []field {
			return []field{d.durField("at", &r.At), d.strField("to", &r.To)}
		}),
		listField(d, "group_config_changes", &k.GroupConfigChanges, func(c *connectsim.GroupConfigChange) []field {
			return []field{d.durField("at", &c.At), d.int32Field("delivery_count_limit", &c.DeliveryCountLimit), d.durField("record_lock_duration", &c.RecordLockDuration)}
		}),
		d.int32Field("max_poll_records", &k.MaxPollRecords),
		d.durField("put_latency_min", &k.PutLatencyMin),
		d.durField("put_latency_max", &k.PutLatencyMax),
		d.durField("put_per_record", &k.PutPerRecord),
		d.probField("put_retriable_prob", &k.PutRetriableProb),
		d.probField("put_fatal_prob", &k.PutFatalProb),
		d.probField("convert_fail_prob", &k.ConvertFailProb),
		d.strField("fatal_put", &k.FatalPut),
		d.strField("retriable_put", &k.RetriablePut),
		d.intField("retriable_put_retries", &k.RetriablePutRetries, math.MinInt32, math.MaxInt32),
		d.durField("restart_failed_after", &k.RestartFailedAfter),
		d.durField("rebalance_pause", &k.RebalancePause),
		d.durField("flush_interval", &k.FlushInterval),
		d.strField("broker_dlq", &k.BrokerDLQ),
		d.strField("existing_group", &k.ExistingGroup),
	}
}

// listField is a key whose value is a list of mappings, each decoded into
// a new T with fields(&t) and appended to dst.
func listField[T any](d *decoder, key string, dst *[]T, fields func(*T) []field) field {
	return field{key, func(p string, n *yaml.Node) *Error {
		return d.list(p, n, func(ip string, item *yaml.Node) *Error {
			var v T
			if perr := d.mapping(ip, item, fields(&v), nil); perr != nil {
				return perr
			}
			*dst = append(*dst, v)
			return nil
		})
	}}
}

// list walks a sequence, calling item for each element with its path
// ("connect.connectors[2]").
func (d *decoder) list(path string, n *yaml.Node, item func(string, *yaml.Node) *Error) *Error {
	if n.Kind != yaml.SequenceNode {
		return d.errAt(n, path, "expects a list, got %s", describe(n))
	}
	if len(n.Content) > maxListItems {
		return d.errAt(n, path, "too many items (%d, at most %d)", len(n.Content), maxListItems)
	}
	for i, it := range n.Content {
		ip := path + "[" + strconv.Itoa(i) + "]"
		d.given[ip] = deref(it) // validation errors name items: connect.connectors[2]
		if perr := item(ip, deref(it)); perr != nil {
			return perr
		}
	}
	return nil
}

// props reads a mapping of Kafka property names to string values. Numbers
// and booleans are accepted and kept as written ("tasks.max: 4").
func (d *decoder) props(path string, n *yaml.Node) (map[string]string, *Error) {
	if n.Kind != yaml.MappingNode {
		return nil, d.errAt(n, path, "expects a mapping of property names to values, got %s", describe(n))
	}
	if len(n.Content)/2 > maxProps {
		return nil, d.errAt(n, path, "too many properties (%d, at most %d)", len(n.Content)/2, maxProps)
	}
	out := make(map[string]string, len(n.Content)/2)
	if perr := d.entries(path, n, "property", func(_, v *yaml.Node, key, full string) *Error {
		if !isScalar(v, "!!str", "!!int", "!!float", "!!bool") {
			return d.errAt(v, full, "expects a value (string, number or boolean), got %s", describe(v))
		}
		if len(key) > maxPropLen || len(v.Value) > maxPropLen {
			return d.errAt(v, full, "property too long (at most %d bytes)", maxPropLen)
		}
		out[key] = v.Value
		return nil
	}); perr != nil {
		return nil, perr
	}
	return out, nil
}

// connectDefaults is what an empty connect: mapping starts from.
func connectDefaults() *connectsim.Workload {
	return &connectsim.Workload{}
}
