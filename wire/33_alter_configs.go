package wire

import (
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
)

// AlterConfigs: v0-2 (Kafka 4.4's AlterConfigsRequest.json keeps v0, which
// segmentio/kafka-go sends; v1 only changed throttling), the legacy call that
// replaces a resource's whole config set, as ControllerApis.handleLegacyAlterConfigs
// and ConfigurationControlManager.legacyAlterConfigs answer it: an unknown
// resource type UNSUPPORTED_VERSION "Unknown resource type N." (N the raw byte); a resource
// named twice INVALID_REQUEST "Duplicate resource." on each, untouched; a
// key named twice keeps its last value (Kafka's HashMap). A TOPIC
// resource's new set is checked and installed as IncrementalAlterConfigs'
// (topic_alter.go: null values are "Null value not supported for topic
// configs: k"); a GROUP resource's likewise through the group configs
// (groupconfig.go); BROKER and the others INVALID_REQUEST, coordsim having
// no dynamic broker configs. ValidateOnly checks and changes nothing.

var apiAlterConfigs = api{key: 33, min: 0, max: 2, handle: handleAlterConfigs}

func handleAlterConfigs(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.AlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.AlterConfigsResponse)
	resp.Resources = configResourceRows[kmsg.AlterConfigsResponseResource](req.Resources, func(res kmsg.AlterConfigsRequestResource, namedTwice bool) error {
		switch {
		case !knownResourceType(res.ResourceType):
			return kerr.UnsupportedVersion.WithMessage("Unknown resource type %d.", int8(res.ResourceType)) // the raw byte, as ControllerApis concatenates it
		case namedTwice:
			return kerr.InvalidRequest.WithMessage("Duplicate resource.")
		}
		return r.replaceConfigs(res, req.ValidateOnly)
	})
	return resp, nil
}

// configResource is a config resource as a request names it.
type configResource struct {
	typ  kmsg.ConfigResourceType
	name string
}

// wireConfigResourceRow is a resource row of an AlterConfigs or
// IncrementalAlterConfigs response (kmsg has one named type for each).
type wireConfigResourceRow = struct {
	ErrorCode    int16
	ErrorMessage *string
	ResourceType kmsg.ConfigResourceType
	ResourceName string
	UnknownTags  kmsg.Tags
}

// wireConfigResource is a resource of an AlterConfigs or
// IncrementalAlterConfigs request, C its config type (kmsg has one named
// type for each).
type wireConfigResource[C any] = struct {
	ResourceType kmsg.ConfigResourceType
	ResourceName string
	Configs      []C
	UnknownTags  kmsg.Tags
}

// configResourceOf is the resource a request's resource names.
func configResourceOf[R ~wireConfigResource[C], C any](res R) configResource {
	w := wireConfigResource[C](res)
	return configResource{w.ResourceType, w.ResourceName}
}

// configResourceRows answers each resource of an AlterConfigs or
// IncrementalAlterConfigs, in request order, with the error answer gives
// it. answer is told whether the request names the resource more than
// once: Kafka refuses such a resource on every row
// (ControllerApis.handleLegacyAlterConfigs, ConfigAdminManager.preprocess),
// each API with its message and in its order of checks.
func configResourceRows[T ~wireConfigResourceRow, R ~wireConfigResource[C], C any](resources []R, answer func(res R, namedTwice bool) error) []T {
	named := map[configResource]int{}
	for _, res := range resources {
		named[configResourceOf(res)]++
	}
	out := make([]T, 0, len(resources))
	for _, res := range resources {
		k := configResourceOf(res)
		code, msg := errCode(answer(res, named[k] > 1))
		out = append(out, T(wireConfigResourceRow{ErrorCode: code, ErrorMessage: msg, ResourceType: k.typ, ResourceName: k.name}))
	}
	return out
}

// knownResourceType is whether Kafka's ConfigResource.Type knows t.
func knownResourceType(t kmsg.ConfigResourceType) bool {
	switch t {
	case kmsg.ConfigResourceTypeTopic, kmsg.ConfigResourceTypeBroker, kmsg.ConfigResourceTypeBrokerLogger,
		kmsg.ConfigResourceTypeClientMetrics, kmsg.ConfigResourceTypeGroupConfig:
		return true
	}
	return false
}

// replaceConfigs installs res's configs as the resource's whole set.
func (r *request) replaceConfigs(res kmsg.AlterConfigsRequestResource, validateOnly bool) error {
	var nulls []string
	set := map[string]string{}
	for _, c := range res.Configs {
		if c.Value == nil {
			nulls = append(nulls, c.Name)
			continue
		}
		set[c.Name] = *c.Value
	}
	replace := func(map[string]string) (map[string]string, error) { return set, nil }
	switch res.ResourceType {
	case kmsg.ConfigResourceTypeTopic:
		if len(nulls) > 0 {
			return kerr.InvalidConfig.WithMessage("Null value not supported for topic configs: %s", strings.Join(nulls, ","))
		}
		return r.cl.alterTopicConfig(res.ResourceName, validateOnly, replace)
	case kmsg.ConfigResourceTypeGroupConfig:
		if len(nulls) > 0 {
			slices.Sort(nulls)
			return kerr.InvalidRequest.WithMessage("Null value not supported for : %s", strings.Join(nulls, ", "))
		}
		return r.cl.alterGroupConfig(r.ctx, res.ResourceName, validateOnly, func(map[string]string) (map[string]string, error) {
			if res.ResourceName == "" {
				return nil, kerr.InvalidRequest.WithMessage("Default group resources are not allowed.")
			}
			return set, nil
		})
	}
	return kerr.InvalidRequest.WithMessage("Unexpected resource type %s: coordsim serves GROUP and TOPIC configs only.", res.ResourceType)
}
