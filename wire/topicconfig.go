package wire

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Topic configs, as Kafka's LogConfig defines them (trunk, storage module):
// every key a CreateTopics may set, its type and validator, its broker
// synonym and its Kafka default.
//
// What the data plane does with them: every value it accepts is honoured
// or has nothing to act on here, never silently ignored.
//   - Honoured: retention.bytes and retention.ms (retention.go),
//     cleanup.policy, delete.retention.ms and min.compaction.lag.ms
//     (compaction.go), max.compaction.lag.ms and min.cleanable.dirty.ratio
//     (every retention pass cleans, which both bounds allow),
//     max.message.bytes (MESSAGE_TOO_LARGE) and min.insync.replicas
//     (above 1, acks=-1 is NOT_ENOUGH_REPLICAS: one replica is in sync).
//   - Nothing to act on in a single-replica in-memory log whose every batch
//     is its own segment: segment.*, flush.*, index.*, file.delete.delay.ms,
//     preallocate, unclean.leader.election.enable, the throttled replica
//     lists, the compression levels (no broker-side compression),
//     local.retention.* and the remote.* keys (no tiered storage;
//     remote.storage.enable=true is refused, as Kafka refuses it without).
//   - Refused (unhonoured): a compression.type other than producer,
//     message.timestamp.type=LogAppendTime, and the timestamp bounds.
// DescribeConfigs lists the keys the data plane models
// (modelledTopicConfigs) and every key set on the topic; Kafka lists
// every key.

// topicConfigKey is one key of Kafka's LogConfig.CONFIG.
type topicConfigKey struct {
	name string
	typ  kmsg.ConfigType
	// check is the key's ConfigDef validator; nil when it has none.
	check check
	// synonym is the broker key the topic key falls back to
	// (ServerTopicConfigSynonyms), "" when none; kafkaDefault is the
	// value when neither is set.
	synonym, kafkaDefault string
}

// A check is a ConfigDef validator on a parsed value: the value as Java
// prints it and ConfigException's reason, "" when valid.
type check = func(v any) (shown, reason string)

// atLeast is ConfigDef.Range.atLeast.
func atLeast(min float64) check {
	return func(v any) (string, string) {
		if toFloat(v) < min {
			return javaString(v), "Value must be at least " + formatBound(min)
		}
		return "", ""
	}
}

// between is ConfigDef.Range.between.
func between(min, max float64) check {
	return func(v any) (string, string) {
		switch f := toFloat(v); {
		case f < min:
			return javaString(v), "Value must be at least " + formatBound(min)
		case f > max:
			return javaString(v), "Value must be no more than " + formatBound(max)
		}
		return "", ""
	}
}

// oneOf is ConfigDef.ValidString.in, and ValidList.in on each element.
func oneOf(valid ...string) check {
	return func(v any) (string, string) {
		list, ok := v.([]string)
		if !ok {
			list = []string{v.(string)}
		}
		for _, s := range list {
			if !slices.Contains(valid, s) {
				return s, "String must be one of: " + strings.Join(valid, ", ")
			}
		}
		return "", ""
	}
}

// gzipLevel is CompressionType.GZIP's level validator.
func gzipLevel(v any) (string, string) {
	if l := v.(int64); l != -1 && (l < 1 || l > 9) {
		return javaString(v), "Value must be between 1 and 9 or equal to -1"
	}
	return "", ""
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

// javaString prints a parsed number as Java's toString does.
func javaString(v any) string {
	switch n := v.(type) {
	case int64:
		return strconv.FormatInt(n, 10)
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1e7 {
			return strconv.FormatFloat(n, 'f', 1, 64)
		}
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// formatBound prints a bound as Java prints the Number given to Range
// (the ranges here are all integers).
func formatBound(f float64) string { return strconv.FormatInt(int64(f), 10) }

const maxLongText = "9223372036854775807"

// topicConfigKeys is LogConfig.CONFIG in definition order, the order
// ConfigDef.parse checks the values in (internal.segment.bytes, a testing
// key, left out).
var topicConfigKeys = []topicConfigKey{
	{"segment.bytes", kmsg.ConfigTypeInt, atLeast(1024 * 1024), "log.segment.bytes", "1073741824"},
	{"segment.ms", kmsg.ConfigTypeLong, atLeast(1), "log.roll.ms", "604800000"},
	{"segment.jitter.ms", kmsg.ConfigTypeLong, atLeast(0), "log.roll.jitter.ms", "0"},
	{"segment.index.bytes", kmsg.ConfigTypeInt, atLeast(4), "log.index.size.max.bytes", "10485760"},
	{"flush.messages", kmsg.ConfigTypeLong, atLeast(1), "log.flush.interval.messages", maxLongText},
	{"flush.ms", kmsg.ConfigTypeLong, atLeast(0), "log.flush.interval.ms", maxLongText},
	{"retention.bytes", kmsg.ConfigTypeLong, nil, "log.retention.bytes", "-1"},
	{"retention.ms", kmsg.ConfigTypeLong, atLeast(-1), "log.retention.ms", "604800000"},
	{"max.message.bytes", kmsg.ConfigTypeInt, atLeast(0), "message.max.bytes", "1048588"},
	{"index.interval.bytes", kmsg.ConfigTypeInt, atLeast(0), "log.index.interval.bytes", "4096"},
	{"delete.retention.ms", kmsg.ConfigTypeLong, atLeast(0), "log.cleaner.delete.retention.ms", "86400000"},
	{"min.compaction.lag.ms", kmsg.ConfigTypeLong, atLeast(0), "log.cleaner.min.compaction.lag.ms", "0"},
	{"max.compaction.lag.ms", kmsg.ConfigTypeLong, atLeast(1), "log.cleaner.max.compaction.lag.ms", maxLongText},
	{"file.delete.delay.ms", kmsg.ConfigTypeLong, atLeast(0), "log.segment.delete.delay.ms", "60000"},
	{"min.cleanable.dirty.ratio", kmsg.ConfigTypeDouble, between(0, 1), "log.cleaner.min.cleanable.ratio", "0.5"},
	{"cleanup.policy", kmsg.ConfigTypeList, oneOf("compact", "delete"), "log.cleanup.policy", "delete"},
	{"unclean.leader.election.enable", kmsg.ConfigTypeBoolean, nil, "unclean.leader.election.enable", "false"},
	{"min.insync.replicas", kmsg.ConfigTypeInt, atLeast(1), "min.insync.replicas", "1"},
	{"compression.type", kmsg.ConfigTypeString, oneOf("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"), "compression.type", "producer"},
	{"compression.gzip.level", kmsg.ConfigTypeInt, gzipLevel, "compression.gzip.level", "-1"},
	{"compression.lz4.level", kmsg.ConfigTypeInt, between(1, 17), "compression.lz4.level", "9"},
	{"compression.zstd.level", kmsg.ConfigTypeInt, between(-131072, 22), "compression.zstd.level", "3"},
	{"preallocate", kmsg.ConfigTypeBoolean, nil, "log.preallocate", "false"},
	{"message.timestamp.type", kmsg.ConfigTypeString, oneOf("CreateTime", "LogAppendTime"), "log.message.timestamp.type", "CreateTime"},
	{"message.timestamp.before.max.ms", kmsg.ConfigTypeLong, atLeast(0), "log.message.timestamp.before.max.ms", maxLongText},
	{"message.timestamp.after.max.ms", kmsg.ConfigTypeLong, atLeast(0), "log.message.timestamp.after.max.ms", "3600000"},
	// ThrottledReplicaListValidator is not reproduced: any list is taken.
	{"leader.replication.throttled.replicas", kmsg.ConfigTypeList, nil, "", ""},
	{"follower.replication.throttled.replicas", kmsg.ConfigTypeList, nil, "", ""},
	{"remote.storage.enable", kmsg.ConfigTypeBoolean, nil, "", "false"},
	{"local.retention.ms", kmsg.ConfigTypeLong, atLeast(-2), "log.local.retention.ms", "-2"},
	{"local.retention.bytes", kmsg.ConfigTypeLong, atLeast(-2), "log.local.retention.bytes", "-2"},
	{"remote.log.copy.disable", kmsg.ConfigTypeBoolean, nil, "", "false"},
	{"remote.copy.lag.ms", kmsg.ConfigTypeLong, atLeast(-1), "", "0"},
	{"remote.copy.lag.bytes", kmsg.ConfigTypeLong, atLeast(-1), "", "0"},
	{"remote.log.delete.on.disable", kmsg.ConfigTypeBoolean, nil, "", "false"},
}

func topicConfigKeyOf(name string) (topicConfigKey, bool) {
	for _, k := range topicConfigKeys {
		if k.name == name {
			return k, true
		}
	}
	return topicConfigKey{}, false
}

// parseTopicConfig is ConfigDef.parseType for one key: the parsed value,
// or ConfigException's reason.
func parseTopicConfig(k topicConfigKey, value string) (any, string) {
	trimmed := strings.TrimSpace(value)
	notNumber := func(t string) (any, string) { return nil, "Not a number of type " + t }
	switch k.typ {
	case kmsg.ConfigTypeBoolean:
		switch strings.ToLower(trimmed) {
		case "true":
			return true, ""
		case "false":
			return false, ""
		}
		return nil, "Expected value to be either true or false"
	case kmsg.ConfigTypeInt:
		n, err := strconv.ParseInt(trimmed, 10, 32)
		if err != nil {
			return notNumber("INT")
		}
		return n, ""
	case kmsg.ConfigTypeLong:
		n, err := strconv.ParseInt(trimmed, 10, 64)
		if err != nil {
			return notNumber("LONG")
		}
		return n, ""
	case kmsg.ConfigTypeDouble:
		f, err := strconv.ParseFloat(trimmed, 64)
		if err != nil {
			return notNumber("DOUBLE")
		}
		return f, ""
	case kmsg.ConfigTypeList:
		if trimmed == "" {
			return []string{}, ""
		}
		parts := strings.Split(trimmed, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts, ""
	}
	return trimmed, ""
}

// validateTopicConfigs checks a CreateTopics topic's configs as Kafka's
// controller does, in its order: ReplicationControlManager.computeConfigChanges
// refuses null values ("Null value not supported for topic configs: a,b"),
// then ConfigurationControlManager.incrementalAlterConfig runs
// ControllerConfigurationValidator.validate -> LogConfig.validate:
// validateNames ("Unknown topic config name: k"), ConfigDef.parse over the
// keys in definition order ("Invalid value v for configuration k: reason"),
// validateValues (the compaction lags) and, as no broker here has tiered
// storage, remote.storage.enable=true refused. Every fault is
// INVALID_CONFIG. On success it returns the keys set (a key given twice
// keeps its last value, as the request's map does), values as given.
func validateTopicConfigs(configs []kmsg.CreateTopicsRequestTopicConfig) (map[string]string, error) {
	var nulls []string
	for _, c := range configs {
		if c.Value == nil {
			nulls = append(nulls, c.Name)
		}
	}
	if len(nulls) > 0 {
		return nil, topicConfigError("Null value not supported for topic configs: " + strings.Join(nulls, ","))
	}
	set := make(map[string]string, len(configs))
	for _, c := range configs {
		if _, ok := topicConfigKeyOf(c.Name); !ok {
			return nil, topicConfigError("Unknown topic config name: " + c.Name)
		}
		set[c.Name] = *c.Value
	}
	parsed := make(map[string]any, len(set))
	for _, k := range topicConfigKeys {
		value, ok := set[k.name]
		if !ok {
			continue
		}
		v, reason := parseTopicConfig(k, value)
		if reason != "" { // ConfigDef.parseType shows the value as given
			return nil, topicConfigError(fmt.Sprintf("Invalid value %s for configuration %s: %s", value, k.name, reason))
		}
		if k.check != nil {
			// The validator shows the parsed value (a list's bad element).
			if shown, reason := k.check(v); reason != "" {
				return nil, topicConfigError(fmt.Sprintf("Invalid value %s for configuration %s: %s", shown, k.name, reason))
			}
		}
		parsed[k.name] = v
	}
	minLag, maxLag := int64(0), int64(math.MaxInt64)
	if v, ok := parsed["min.compaction.lag.ms"]; ok {
		minLag = v.(int64)
	}
	if v, ok := parsed["max.compaction.lag.ms"]; ok {
		maxLag = v.(int64)
	}
	if minLag > maxLag {
		return nil, topicConfigError(fmt.Sprintf("conflict topic config setting min.compaction.lag.ms (%d) > max.compaction.lag.ms (%d)", minLag, maxLag))
	}
	if v, ok := parsed["remote.storage.enable"]; ok && v.(bool) {
		return nil, topicConfigError("Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.")
	}
	if reason := unhonoured(parsed); reason != "" {
		return nil, topicConfigError(reason)
	}
	return set, nil
}

// topicConfigError is an INVALID_CONFIG answer with Kafka's message.
type topicConfigError string

func (e topicConfigError) Error() string { return string(e) }

// modelledTopicConfigs are the keys every data topic reports, set or not:
// those the data plane has a value for.
var modelledTopicConfigs = []string{"cleanup.policy", "compression.type", "min.insync.replicas", "retention.bytes", "retention.ms"}

// topicConfigs are a data topic's configs, sorted by name as Kafka's
// CreateTopics answer sorts them: the modelled keys, the cluster's value
// or the topic's own (TOPIC_CONFIG), and every other key set on the topic.
func (cl *Cluster) topicConfigs(set map[string]string) []configEntry {
	retention := strconv.FormatInt(cl.cfg.RetentionBytes, 10)
	// The broker-level value and its source of a modelled key.
	broker := map[string]struct {
		value  string
		source kmsg.ConfigSource
	}{
		"cleanup.policy":      {"delete", kmsg.ConfigSourceDefaultConfig},
		"compression.type":    {"producer", kmsg.ConfigSourceDefaultConfig},
		"min.insync.replicas": {"1", kmsg.ConfigSourceDefaultConfig},
		"retention.bytes":     {retention, staticSource(retention, "-1")},
		"retention.ms":        {strconv.FormatInt(cl.cfg.RetentionMs, 10), staticSource(strconv.FormatInt(cl.cfg.RetentionMs, 10), "604800000")},
	}
	names := slices.Clone(modelledTopicConfigs)
	for name := range set {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := make([]configEntry, 0, len(names))
	for _, name := range names {
		k, _ := topicConfigKeyOf(name)
		e := configEntry{name: name, typ: k.typ, synonym: k.synonym}
		if b, ok := broker[name]; ok {
			e.value, e.source = b.value, b.source
			e.synonymValue, e.synonymSource = b.value, b.source
		} else {
			e.value, e.source = k.kafkaDefault, kmsg.ConfigSourceDefaultConfig
			e.synonymValue, e.synonymSource = k.kafkaDefault, kmsg.ConfigSourceDefaultConfig
		}
		if v, ok := set[name]; ok {
			e.value, e.source = v, kmsg.ConfigSourceDynamicTopicConfig
		}
		out = append(out, e)
	}
	return out
}

// createTopicsConfigs is CreateTopics' v5+ Configs: the effective configs
// (ReplicationControlManager.buildCreatableTopicResult, from
// ConfigurationControlManager.computeEffectiveTopicConfigs), sorted by
// name; none is read-only or sensitive.
func (cl *Cluster) createTopicsConfigs(set map[string]string) []kmsg.CreateTopicsResponseTopicConfig {
	entries := cl.topicConfigs(set)
	out := make([]kmsg.CreateTopicsResponseTopicConfig, 0, len(entries))
	for _, e := range entries {
		c := kmsg.NewCreateTopicsResponseTopicConfig()
		c.Name, c.Value, c.Source = e.name, kmsg.StringPtr(e.value), int8(e.source)
		out = append(out, c)
	}
	return out
}

// retentionOverride is the topic's own retention.bytes, if set: the limit
// its partitions keep instead of the cluster's.
func retentionOverride(set map[string]string) (int64, bool) {
	return longOverride(set, "retention.bytes")
}

// longOverride is a LONG topic config the topic sets itself, read from its
// own configs (set), already validated when stored; false when it is not
// set (or, which validation prevents, unreadable).
func longOverride(set map[string]string, key string) (int64, bool) {
	v, ok := set[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}

// unhonoured refuses the values the data plane would otherwise accept and
// ignore (coordsim's refusal, not Kafka's; every other key is honoured,
// or has nothing to act on in a single-replica in-memory log: see the
// package comment above): a broker-side compression.type (batches are
// kept as produced), LogAppendTime (timestamps are kept as produced), and
// the timestamp bounds (records' timestamps are not checked). "" when
// nothing is refused.
func unhonoured(parsed map[string]any) string {
	if v, ok := parsed["compression.type"]; ok && v.(string) != "producer" {
		return fmt.Sprintf("coordsim keeps batches as produced and does not recompress them: compression.type %s is not supported, only producer", v)
	}
	if v, ok := parsed["message.timestamp.type"]; ok && v.(string) == "LogAppendTime" {
		return "coordsim keeps the producer's timestamps: message.timestamp.type LogAppendTime is not supported, only CreateTime"
	}
	for _, k := range []string{"message.timestamp.before.max.ms", "message.timestamp.after.max.ms"} {
		if _, ok := parsed[k]; ok {
			return fmt.Sprintf("coordsim does not check record timestamps: %s is not supported", k)
		}
	}
	return ""
}
