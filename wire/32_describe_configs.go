package wire

import (
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/groupconfig"
	"github.com/coordsim/coordsim/internal/topicname"
	"github.com/coordsim/coordsim/kerr"
)

// DescribeConfigs: v1-4 (Kafka 4.x), as trunk's ConfigHelper.describeConfigs:
//
//   - GROUP: every group config served (groupconfig.go), the group's value
//     with source GROUP_CONFIG, or the broker's with DEFAULT_CONFIG; the
//     synonym (v1+ with IncludeSynonyms) first, then the broker key. An
//     empty name is INVALID_REQUEST "Group name must not be empty". Any
//     group id is described, existing or not, as in Kafka.
//   - TOPIC: the few topic configs the data plane has (cleanup.policy,
//     retention.bytes, retention.ms, min.insync.replicas,
//     compression.type, with their true values here) and every key set at
//     creation, with source TOPIC_CONFIG (topicconfig.go); an invalid name
//     is INVALID_TOPIC_EXCEPTION, an unknown topic UNKNOWN_TOPIC_OR_PARTITION.
//   - BROKER: "" is the dynamic cluster defaults (none here); this broker's
//     id its static configs, the group coordinator's among them; another
//     id is INVALID_REQUEST "Unexpected broker id, expected N or empty
//     string, but received M".
//   - anything else: INVALID_REQUEST "Unsupported resource type: T".
//
// ConfigNames filters the configs (empty: all); documentation is not
// served (nil).

var apiDescribeConfigs = api{key: 32, min: 1, max: 4, handle: handleDescribeConfigs}

func handleDescribeConfigs(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DescribeConfigsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
	for _, res := range req.Resources {
		row := kmsg.NewDescribeConfigsResponseResource()
		row.ResourceType, row.ResourceName = res.ResourceType, res.ResourceName
		entries, err := r.describeResource(res)
		if err != nil {
			row.ErrorCode, row.ErrorMessage = errCode(err)
		} else {
			for _, e := range entries {
				if len(res.ConfigNames) > 0 && !slices.Contains(res.ConfigNames, e.name) {
					continue
				}
				row.Configs = append(row.Configs, e.wire(req.IncludeSynonyms))
			}
		}
		resp.Resources = append(resp.Resources, row)
	}
	return resp, nil
}

// configEntry is one described config: its value, source, type, and the
// broker key it falls back to.
type configEntry struct {
	name, value string
	source      kmsg.ConfigSource
	typ         kmsg.ConfigType
	// synonym is the broker key and its value (with its source) when the
	// entry has one.
	synonym, synonymValue string
	synonymSource         kmsg.ConfigSource
	// group marks a group config, whose own name always heads its
	// synonyms (ConfigHelper.createGroupConfigEntry: GROUP_CONFIG when
	// set, else DEFAULT_CONFIG); a topic or broker config's heads them
	// only when set on the resource (a topic's: TOPIC_CONFIG).
	group bool
}

func (e configEntry) wire(withSynonyms bool) kmsg.DescribeConfigsResponseResourceConfig {
	c := kmsg.NewDescribeConfigsResponseResourceConfig()
	c.Name, c.Value, c.Source, c.ConfigType = e.name, kmsg.StringPtr(e.value), e.source, e.typ
	c.IsDefault = e.source == kmsg.ConfigSourceDefaultConfig
	if !withSynonyms {
		return c
	}
	if e.group || e.synonym == "" || e.source == kmsg.ConfigSourceDynamicTopicConfig {
		s := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
		s.Name, s.Value, s.Source = e.name, kmsg.StringPtr(e.value), e.source
		c.ConfigSynonyms = append(c.ConfigSynonyms, s)
	}
	if e.synonym != "" {
		s := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
		s.Name, s.Value, s.Source = e.synonym, kmsg.StringPtr(e.synonymValue), e.synonymSource
		c.ConfigSynonyms = append(c.ConfigSynonyms, s)
	}
	return c
}

// describeResource lists one resource's configs.
func (r *request) describeResource(res kmsg.DescribeConfigsRequestResource) ([]configEntry, error) {
	switch res.ResourceType {
	case kmsg.ConfigResourceTypeGroupConfig:
		if res.ResourceName == "" {
			return nil, kerr.InvalidRequest.WithMessage("Group name must not be empty")
		}
		return r.cl.describeGroupConfig(res.ResourceName), nil
	case kmsg.ConfigResourceTypeTopic:
		if p := topicname.Problem(res.ResourceName); p != "" {
			return nil, kerr.InvalidTopicException.WithMessage("Topic name %q is invalid: %s", res.ResourceName, p)
		}
		set, ok := r.cl.data.configsOf(res.ResourceName)
		if !ok {
			return nil, kerr.UnknownTopicOrPartition
		}
		return r.cl.topicConfigs(set), nil
	case kmsg.ConfigResourceTypeBroker:
		if res.ResourceName == "" {
			return nil, nil
		}
		id, err := strconv.ParseInt(res.ResourceName, 10, 32)
		if err != nil || int32(id) != r.b.node {
			return nil, kerr.InvalidRequest.WithMessage("Unexpected broker id, expected %d or empty string, but received %s", r.b.node, res.ResourceName)
		}
		return r.cl.brokerConfigs(r.b.node), nil
	}
	return nil, kerr.InvalidRequest.WithMessage("Unsupported resource type: %s", res.ResourceType)
}

// staticSource is STATIC_BROKER_CONFIG for a broker value that differs
// from Kafka's default, DEFAULT_CONFIG otherwise.
func staticSource(value, kafkaDefault string) kmsg.ConfigSource {
	if value == kafkaDefault {
		return kmsg.ConfigSourceDefaultConfig
	}
	return kmsg.ConfigSourceStaticBrokerConfig
}

// brokerDefaults are Kafka's defaults of the broker keys group configs
// fall back to, to tell a serve flag's value (STATIC_BROKER_CONFIG) from
// Kafka's (DEFAULT_CONFIG).
var brokerDefaults = map[string]string{
	"group.consumer.session.timeout.ms":        "45000",
	"group.consumer.heartbeat.interval.ms":     "5000",
	"group.share.session.timeout.ms":           "45000",
	"group.share.heartbeat.interval.ms":        "5000",
	"group.share.record.lock.duration.ms":      "30000",
	"group.share.delivery.count.limit":         "5",
	"group.share.partition.max.record.locks":   "2000",
	"group.streams.session.timeout.ms":         "45000",
	"group.streams.heartbeat.interval.ms":      "5000",
	"group.streams.num.standby.replicas":       "0",
	"group.streams.initial.rebalance.delay.ms": "3000",
	"group.consumer.assignment.interval.ms":    "1000",
	"group.share.assignment.interval.ms":       "1000",
	"group.streams.assignment.interval.ms":     "1000",
	"group.streams.task.offset.interval.ms":    "60000",
	"group.streams.acceptable.recovery.lag":    "10000",
}

func (cl *Cluster) describeGroupConfig(group string) []configEntry {
	set := cl.groupConfigs.get(group)
	out := make([]configEntry, 0, len(groupconfig.Keys))
	for _, k := range groupconfig.Keys {
		if _, ok := set[k.Name]; k.Internal && !ok {
			continue // ConfigHelperUtils lists an internal key only when set
		}
		e := configEntry{name: k.Name, typ: kmsg.ConfigType(k.Type), value: cl.groupConfigDefault(k), source: kmsg.ConfigSourceDefaultConfig, group: true}
		if k.Synonym != "" {
			e.synonym, e.synonymValue = k.Synonym, e.value
			e.synonymSource = staticSource(e.value, brokerDefaults[k.Synonym])
		}
		if v, ok := set[k.Name]; ok {
			e.value, e.source = k.Normalize(v), kmsg.ConfigSourceGroupConfig
		}
		out = append(out, e)
	}
	return out
}

// brokerConfigs are a broker's static configs: its id and the settings
// the endpoint and the group coordinator run with.
func (cl *Cluster) brokerConfigs(node int32) []configEntry {
	cc := cl.cfg.Coordinator
	ms := func(d interface{ Milliseconds() int64 }) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	entry := func(name, value, kafkaDefault string, typ kmsg.ConfigType) configEntry {
		src := staticSource(value, kafkaDefault)
		return configEntry{name: name, value: value, source: src, typ: typ, synonym: name, synonymValue: value, synonymSource: src}
	}
	id := strconv.Itoa(int(node))
	out := []configEntry{
		entry("auto.create.topics.enable", strconv.FormatBool(cl.cfg.AutoCreateTopics), "true", kmsg.ConfigTypeBoolean),
		entry("broker.id", id, "-1", kmsg.ConfigTypeInt),
	}
	if rack := cl.rackOf(node); rack != "" {
		// Kafka's default is null; shown only when set.
		out = append(out, entry("broker.rack", rack, "", kmsg.ConfigTypeString))
	}
	out = append(out,
		entry("group.consumer.assignment.interval.ms", ms(cc.ConsumerAssignmentInterval.Interval), "1000", kmsg.ConfigTypeInt),
		entry("group.consumer.heartbeat.interval.ms", ms(cc.ConsumerHeartbeatInterval), "5000", kmsg.ConfigTypeInt),
		entry("group.consumer.max.assignment.interval.ms", ms(cc.ConsumerAssignmentInterval.Max), "15000", kmsg.ConfigTypeInt),
		entry("group.consumer.max.heartbeat.interval.ms", ms(cc.ConsumerMaxHeartbeatInterval), "15000", kmsg.ConfigTypeInt),
		entry("group.consumer.max.session.timeout.ms", ms(cc.ConsumerMaxSessionTimeout), "60000", kmsg.ConfigTypeInt),
		// Kafka's ConsumerGroupMigrationPolicy.toString is the lower-case name.
		entry("group.consumer.migration.policy", strings.ToLower(cc.Classic.MigrationPolicy.String()), "bidirectional", kmsg.ConfigTypeString),
		entry("group.consumer.min.assignment.interval.ms", ms(cc.ConsumerAssignmentInterval.Min), "0", kmsg.ConfigTypeInt),
		entry("group.consumer.min.heartbeat.interval.ms", ms(cc.ConsumerMinHeartbeatInterval), "5000", kmsg.ConfigTypeInt),
		entry("group.consumer.min.session.timeout.ms", ms(cc.ConsumerMinSessionTimeout), "45000", kmsg.ConfigTypeInt),
		entry("group.consumer.session.timeout.ms", ms(cc.ConsumerSessionTimeout), "45000", kmsg.ConfigTypeInt),
		entry("group.share.assignment.interval.ms", ms(cc.ShareAssignmentInterval.Interval), "1000", kmsg.ConfigTypeInt),
		entry("group.share.heartbeat.interval.ms", ms(cc.ShareHeartbeatInterval), "5000", kmsg.ConfigTypeInt),
		entry("group.share.max.assignment.interval.ms", ms(cc.ShareAssignmentInterval.Max), "15000", kmsg.ConfigTypeInt),
		entry("group.share.max.heartbeat.interval.ms", ms(cc.ShareMaxHeartbeatInterval), "15000", kmsg.ConfigTypeInt),
		entry("group.share.max.session.timeout.ms", ms(cc.ShareMaxSessionTimeout), "60000", kmsg.ConfigTypeInt),
		entry("group.share.min.assignment.interval.ms", ms(cc.ShareAssignmentInterval.Min), "0", kmsg.ConfigTypeInt),
		entry("group.share.min.heartbeat.interval.ms", ms(cc.ShareMinHeartbeatInterval), "5000", kmsg.ConfigTypeInt),
		entry("group.share.min.session.timeout.ms", ms(cc.ShareMinSessionTimeout), "45000", kmsg.ConfigTypeInt),
		entry("group.share.session.timeout.ms", ms(cc.ShareSessionTimeout), "45000", kmsg.ConfigTypeInt),
		entry("group.streams.assignment.interval.ms", ms(cc.StreamsAssignmentInterval.Interval), "1000", kmsg.ConfigTypeInt),
		entry("group.streams.heartbeat.interval.ms", ms(cc.StreamsHeartbeatInterval), "5000", kmsg.ConfigTypeInt),
		entry("group.streams.max.assignment.interval.ms", ms(cc.StreamsAssignmentInterval.Max), "15000", kmsg.ConfigTypeInt),
		entry("group.streams.max.heartbeat.interval.ms", ms(cc.StreamsMaxHeartbeatInterval), "15000", kmsg.ConfigTypeInt),
		entry("group.streams.max.session.timeout.ms", ms(cc.StreamsMaxSessionTimeout), "60000", kmsg.ConfigTypeInt),
		entry("group.streams.max.standby.replicas", strconv.Itoa(cc.StreamsMaxStandbyReplicas), "2", kmsg.ConfigTypeInt),
		entry("group.streams.min.assignment.interval.ms", ms(cc.StreamsAssignmentInterval.Min), "0", kmsg.ConfigTypeInt),
		entry("group.streams.min.heartbeat.interval.ms", ms(cc.StreamsMinHeartbeatInterval), "5000", kmsg.ConfigTypeInt),
		entry("group.streams.min.session.timeout.ms", ms(cc.StreamsMinSessionTimeout), "45000", kmsg.ConfigTypeInt),
		entry("group.streams.num.standby.replicas", strconv.Itoa(cc.StreamsNumStandbyReplicas), "0", kmsg.ConfigTypeInt),
		entry("group.streams.session.timeout.ms", ms(cc.StreamsSessionTimeout), "45000", kmsg.ConfigTypeInt),
		entry("log.retention.bytes", strconv.FormatInt(cl.cfg.RetentionBytes, 10), "-1", kmsg.ConfigTypeLong),
		entry("node.id", id, "-1", kmsg.ConfigTypeInt),
		entry("num.partitions", strconv.Itoa(int(cl.cfg.NumPartitions)), "1", kmsg.ConfigTypeInt),
		entry("offsets.topic.num.partitions", strconv.Itoa(int(cc.NumPartitions)), "50", kmsg.ConfigTypeInt),
	)
	// Internal broker keys (defineInternal) are listed only when set, here
	// when they differ from Kafka's default, in their place by name.
	for _, e := range []configEntry{
		entry("group.streams.acceptable.recovery.lag", strconv.FormatInt(cc.StreamsAcceptableRecoveryLag, 10), "10000", kmsg.ConfigTypeLong),
		entry("group.streams.min.task.offset.interval.ms", ms(cc.StreamsMinTaskOffsetInterval), "15000", kmsg.ConfigTypeInt),
		entry("group.streams.task.offset.interval.ms", ms(cc.StreamsTaskOffsetInterval), "60000", kmsg.ConfigTypeInt),
	} {
		if e.source != kmsg.ConfigSourceDefaultConfig {
			at, _ := slices.BinarySearchFunc(out, e.name, func(x configEntry, name string) int { return strings.Compare(x.name, name) })
			out = slices.Insert(out, at, e)
		}
	}
	return out
}
