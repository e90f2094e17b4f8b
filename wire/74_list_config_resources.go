package wire

import (
	"strconv"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListConfigResources: v0-1 (KIP-1142; v0 was KIP-714's
// ListClientMetricsResources). As trunk's
// KafkaApis.handleListConfigResources: the types a version supports are
// ListConfigResourcesRequest.supportedResourceTypes (v0: CLIENT_METRICS;
// v1: TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS and GROUP); an empty
// type list means all of them; a type outside them fails the whole request
// with UNSUPPORTED_VERSION and no resources; a type named twice lists once;
// the resources come type by type in Kafka's order (GROUP, CLIENT_METRICS,
// BROKER_LOGGER, BROKER, TOPIC), each type's names sorted here (Kafka's
// follow its collections' order):
//
//   - GROUP: the groups with a group config (Kafka's
//     GroupConfigManager.groupIds), existing as groups or not; a group
//     without one is not listed, as in Kafka.
//   - CLIENT_METRICS: none (coordsim has no KIP-714 subscriptions).
//   - BROKER_LOGGER: none here (Kafka lists every broker; coordsim serves
//     no broker-logger configs, so it names no resource DescribeConfigs
//     would refuse).
//   - BROKER: every broker's id.
//   - TOPIC: every data topic, as Metadata lists them (coordsim's
//     __consumer_offsets is no data topic).
//
// There is no authorization, so no CLUSTER_AUTHORIZATION_FAILED.

var apiListConfigResources = api{key: 74, min: 0, max: 1, handle: handleListConfigResources}

// configResourceListers are the config resource types, in the order
// KafkaApis lists them, with the first version that supports each and what
// this endpoint holds of it.
var configResourceListers = []struct {
	typ        kmsg.ConfigResourceType
	minVersion int16
	names      func(cl *Cluster) []string
}{
	{kmsg.ConfigResourceTypeGroupConfig, 1, func(cl *Cluster) []string { return cl.groupConfigs.groups() }},
	{kmsg.ConfigResourceTypeClientMetrics, 0, func(*Cluster) []string { return nil }},
	{kmsg.ConfigResourceTypeBrokerLogger, 1, func(*Cluster) []string { return nil }},
	{kmsg.ConfigResourceTypeBroker, 1, func(cl *Cluster) []string {
		out := make([]string, 0, len(cl.brokers))
		for _, b := range cl.brokers {
			out = append(out, strconv.Itoa(int(b.node)))
		}
		return out
	}},
	{kmsg.ConfigResourceTypeTopic, 1, func(cl *Cluster) []string {
		topics := cl.data.all()
		out := make([]string, 0, len(topics))
		for _, t := range topics {
			out = append(out, t.name)
		}
		return out
	}},
}

func handleListConfigResources(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ListConfigResourcesRequest)
	resp := req.ResponseKind().(*kmsg.ListConfigResourcesResponse)
	supported := func(t int8) bool {
		for _, l := range configResourceListers {
			if int8(l.typ) == t && req.Version >= l.minVersion {
				return true
			}
		}
		return false
	}
	var asked [256]bool                   // by type + 128; a list of any length costs one pass
	for _, t := range req.ResourceTypes { // v1+; v0 has no list
		if !supported(t) {
			resp.ErrorCode = fkerr.UnsupportedVersion.Code
			return resp, nil
		}
		asked[int(t)+128] = true
	}
	for _, l := range configResourceListers {
		if req.Version < l.minVersion || (len(req.ResourceTypes) > 0 && !asked[int(l.typ)+128]) {
			continue
		}
		for _, name := range l.names(r.cl) {
			cr := kmsg.NewListConfigResourcesResponseConfigResource()
			cr.Name, cr.Type = name, int8(l.typ)
			resp.ConfigResources = append(resp.ConfigResources, cr)
		}
	}
	return resp, nil
}
