package wire

import (
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/internal/topicname"
	"github.com/coordsim/coordsim/kerr"
)

// Topic config changes (AlterConfigs and IncrementalAlterConfigs on TOPIC
// resources), as KRaft's ConfigurationControlManager and
// ControllerConfigurationValidator make them: an empty name is
// INVALID_REQUEST "Default topic resources are not allowed.", an invalid
// one INVALID_TOPIC_EXCEPTION with Topic.validate's message, an unknown
// topic UNKNOWN_TOPIC_OR_PARTITION "The topic 'T' does not exist."; the
// topic's whole new config is then validated as CreateTopics validates it
// (validateTopicConfigs: LogConfig.validate's names, types, ranges and
// messages, INVALID_CONFIG), and installed unless validateOnly. The data
// plane applies it from its next append or retention pass.

// alterTopicConfig changes topic name's configs with change, which gets a
// copy of the current ones.
func (cl *Cluster) alterTopicConfig(name string, validateOnly bool, change func(cur map[string]string) (map[string]string, error)) error {
	if name == "" {
		return kerr.InvalidRequest.WithMessage("Default topic resources are not allowed.")
	}
	if msg := topicname.KafkaMessage(name); msg != "" {
		return kerr.InvalidTopicException.WithMessage("%s", msg)
	}
	defer cl.lockTopics()() // one change at a time, none during a deletion
	cur, ok := cl.data.configsOf(name)
	if !ok {
		return kerr.UnknownTopicOrPartition.WithMessage("The topic '%s' does not exist.", name)
	}
	next, err := change(maps.Clone(cur))
	if err != nil {
		return err
	}
	if next == nil {
		next = map[string]string{}
	}
	configs := make([]kmsg.CreateTopicsRequestTopicConfig, 0, len(next))
	for _, k := range slices.Sorted(maps.Keys(next)) {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, kmsg.StringPtr(next[k])
		configs = append(configs, c)
	}
	set, err := validateTopicConfigs(configs)
	if err != nil {
		return kerr.InvalidConfig.WithMessage("%s", err.Error())
	}
	if validateOnly {
		return nil
	}
	cl.data.setTopicConfigs(name, set)
	cl.log.Info("altered a topic's configs", "topic", name)
	return nil
}

// incrementalTopicChange applies IncrementalAlterConfigs' operations to a
// topic's configs, as ConfigurationControlManager.incrementalAlterConfigResource:
// SET and DELETE any key; APPEND and SUBTRACT only list keys
// (cleanup.policy and the throttled replica lists; "Can't APPEND to key K
// because its type is not LIST."), APPEND adding the values not there
// yet, SUBTRACT removing every occurrence. An unknown key is left to
// validateTopicConfigs ("Unknown topic config name: k").
func incrementalTopicChange(ops []kmsg.IncrementalAlterConfigsRequestResourceConfig) func(cur map[string]string) (map[string]string, error) {
	return func(cur map[string]string) (map[string]string, error) {
		for _, c := range ops {
			if setOrDelete(cur, c) {
				continue
			}
			k, known := topicConfigKeyOf(c.Name)
			if known && k.typ != kmsg.ConfigTypeList {
				return nil, kerr.InvalidConfig.WithMessage("Can't %s to key %s because its type is not LIST.", opName(c.Op), c.Name)
			}
			if !known {
				cur[c.Name] = *c.Value // refused by validateTopicConfigs
				continue
			}
			old, ok := cur[c.Name]
			if !ok {
				old = k.kafkaDefault
			}
			cur[c.Name] = strings.Join(listOp(splitList(old), splitList(*c.Value), c.Op == kmsg.IncrementalAlterConfigOpAppend), ",")
		}
		return cur, nil
	}
}

// splitList reads a LIST config value as ConfigDef does.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// listOp is APPEND (values not yet in cur, in order) or SUBTRACT (cur
// without values).
func listOp(cur, values []string, appendOp bool) []string {
	if appendOp {
		for _, v := range values {
			if !slices.Contains(cur, v) {
				cur = append(cur, v)
			}
		}
		return cur
	}
	return slices.DeleteFunc(cur, func(s string) bool { return slices.Contains(values, s) })
}
