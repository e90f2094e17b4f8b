package wire

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
)

// IncrementalAlterConfigs: v0-1 (Kafka 4.x), GROUP resources (the group
// configs of groupconfig.go) and TOPIC resources (topic_alter.go). Per resource, in Kafka's order:
// ConfigAdminManager.preprocess (a resource named twice: INVALID_REQUEST
// "Each resource must appear at most once." on both; a config key named
// twice; a value missing on an operation other than DELETE), then the
// controller's ConfigurationControlManager.incrementalAlterConfigResource
// (APPEND and SUBTRACT: INVALID_CONFIG "Can't APPEND to key K because its
// type is not LIST.", no group config being a list), then
// ControllerConfigurationValidator (an empty group name: INVALID_REQUEST
// "Default group resources are not allowed.") and GroupConfig.validate on
// the group's whole new config (INVALID_CONFIG with Kafka's messages).
// ValidateOnly validates and changes nothing. Any broker answers: Kafka
// forwards group configs to the controller, and here every broker's
// coordinator and the share plane take each change. A TOPIC resource's
// change is validated and applied as topic_alter.go describes. A BROKER
// or other resource is INVALID_REQUEST: coordsim models no dynamic broker
// configs.

var apiIncrementalAlterConfigs = api{key: 44, min: 0, max: 1, handle: handleIncrementalAlterConfigs}

func handleIncrementalAlterConfigs(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.IncrementalAlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	resp.Resources = configResourceRows[kmsg.IncrementalAlterConfigsResponseResource](req.Resources, func(res kmsg.IncrementalAlterConfigsRequestResource, namedTwice bool) error {
		if namedTwice {
			return kerr.InvalidRequest.WithMessage("Each resource must appear at most once.")
		}
		return r.alterResource(res, req.ValidateOnly)
	})
	return resp, nil
}

// alterResource is one resource's preprocess and alteration.
func (r *request) alterResource(res kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) error {
	var names, nulls []string
	for _, c := range res.Configs {
		if c.Op != kmsg.IncrementalAlterConfigOpDelete && c.Value == nil {
			nulls = append(nulls, c.Name)
		}
		if slices.Contains(names, c.Name) {
			return kerr.InvalidRequest.WithMessage("Error due to duplicate config keys")
		}
		names = append(names, c.Name)
	}
	if len(nulls) > 0 {
		return kerr.InvalidRequest.WithMessage("Null value not supported for : %s", strings.Join(nulls, ", "))
	}
	for _, c := range res.Configs {
		if c.Op < kmsg.IncrementalAlterConfigOpSet || c.Op > kmsg.IncrementalAlterConfigOpSubtract {
			return kerr.InvalidRequest.WithMessage("Unknown alter config operation %d for key %s.", int8(c.Op), c.Name)
		}
	}
	switch res.ResourceType {
	case kmsg.ConfigResourceTypeTopic:
		return r.cl.alterTopicConfig(res.ResourceName, validateOnly, incrementalTopicChange(res.Configs))
	case kmsg.ConfigResourceTypeGroupConfig:
	default:
		return kerr.InvalidRequest.WithMessage("Unexpected resource type %s: coordsim serves GROUP and TOPIC configs only.", res.ResourceType)
	}
	return r.cl.alterGroupConfig(r.ctx, res.ResourceName, validateOnly, func(cur map[string]string) (map[string]string, error) {
		for _, c := range res.Configs {
			if !setOrDelete(cur, c) {
				return nil, kerr.InvalidConfig.WithMessage("Can't %s to key %s because its type is not LIST.", opName(c.Op), c.Name)
			}
		}
		if res.ResourceName == "" {
			return nil, kerr.InvalidRequest.WithMessage("Default group resources are not allowed.")
		}
		return cur, nil
	})
}

// setOrDelete applies a SET or DELETE operation to cur; it is false, and
// changes nothing, for APPEND and SUBTRACT, which only list keys take.
func setOrDelete(cur map[string]string, c kmsg.IncrementalAlterConfigsRequestResourceConfig) bool {
	switch c.Op {
	case kmsg.IncrementalAlterConfigOpSet:
		cur[c.Name] = *c.Value
	case kmsg.IncrementalAlterConfigOpDelete:
		delete(cur, c.Name)
	default:
		return false
	}
	return true
}

func opName(op kmsg.IncrementalAlterConfigOp) string {
	if op == kmsg.IncrementalAlterConfigOpAppend {
		return "APPEND"
	}
	return "SUBTRACT"
}
