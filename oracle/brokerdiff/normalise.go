package brokerdiff

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ignored are the response fields two correct clusters answer
// differently, skipped wherever they appear: throttle times, the cluster
// id, node ids, hosts and ports (the brokers' addresses), and kmsg's
// unknown tagged fields.
var ignored = map[string]string{
	"ThrottleMillis": "throttle time is each broker's quota state",
	"ClusterID":      "each cluster's id",
	"NodeID":         "each cluster's node ids",
	"ControllerID":   "each cluster's node ids",
	"Host":           "each broker's address",
	"Port":           "each broker's address",
	"UnknownTags":    "kmsg's bookkeeping, not a field",
}

// Names maps the server-generated ids of one side to stable placeholders,
// so two sides' answers compare: a member id becomes member#N in the
// order the side first answered it, a topic id becomes topic:NAME, in its
// binary fields and written out in strings.
type Names struct {
	members map[string]string
	topics  map[[16]byte]string
	// inText maps a topic id as Kafka writes it in text (Uuid.toString:
	// URL-safe base64, as in a share-coordinator key) to its placeholder.
	inText map[string]string
}

// NewNames returns an empty mapping.
func NewNames() *Names {
	return &Names{members: map[string]string{}, topics: map[[16]byte]string{}, inText: map[string]string{}}
}

// Topic records that id names topic on this side.
func (n *Names) Topic(id [16]byte, name string) {
	n.topics[id] = "topic:" + name
	n.inText[base64.RawURLEncoding.EncodeToString(id[:])] = "topic:" + name
}

// ResetMembers forgets the member ids seen so far, so the next one is
// member#1 again: each case numbers its own, and a difference in one case
// does not shift the numbers of the next.
func (n *Names) ResetMembers() { clear(n.members) }

// member returns id's placeholder, numbering a new id. The empty id
// stays empty: Kafka answers it on errors.
func (n *Names) member(id string) string {
	if id == "" {
		return ""
	}
	if p, ok := n.members[id]; ok {
		return p
	}
	p := fmt.Sprintf("member#%d", len(n.members)+1)
	n.members[id] = p
	return p
}

// memberFields hold member ids: their values are mapped, not compared.
var memberFields = map[string]bool{"MemberID": true, "LeaderID": true, "Leader": true}

// Flatten writes v (a kmsg response or any value built of structs,
// slices, pointers and scalars) as one "path = value" line per leaf, with
// ignored fields left out and ids mapped through names.
func Flatten(v any, names *Names) []string {
	var lines []string
	flatten(reflect.ValueOf(v), "", "", names, &lines)
	return lines
}

func flatten(v reflect.Value, path, field string, names *Names, lines *[]string) {
	leaf := func(s string) { *lines = append(*lines, path+" = "+s) }
	switch v.Kind() {
	case reflect.Invalid:
		leaf("null")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			leaf("null")
			return
		}
		flatten(v.Elem(), path, field, names, lines)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || ignored[f.Name] != "" {
				continue
			}
			flatten(v.Field(i), path+"."+f.Name, f.Name, names, lines)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			leaf(fmt.Sprintf("%x", v.Bytes()))
			return
		}
		if v.Len() == 0 {
			leaf("[]")
		}
		for i := range v.Len() {
			flatten(v.Index(i), fmt.Sprintf("%s[%d]", path, i), field, names, lines)
		}
	case reflect.Array:
		if id, ok := v.Interface().([16]byte); ok {
			if id == ([16]byte{}) {
				leaf("zero-uuid")
			} else if name, ok := names.topics[id]; ok {
				leaf(name)
			} else {
				leaf("unknown-uuid")
			}
			return
		}
		leaf(fmt.Sprint(v.Interface()))
	case reflect.String:
		if memberFields[field] {
			leaf(names.member(v.String()))
			return
		}
		s := v.String()
		for id, name := range names.inText { // ids do not overlap: any order gives the same text
			s = strings.ReplaceAll(s, id, name)
		}
		leaf(fmt.Sprintf("%q", s))
	default:
		leaf(fmt.Sprint(v.Interface()))
	}
}

// Difference is one field two sides answer differently after
// normalisation: Ours or Kafka is "(absent)" when only the other side has
// the field (a longer list, a field of a version only one side speaks).
type Difference struct {
	Path, Ours, Kafka string
}

func (d Difference) String() string {
	return fmt.Sprintf("%s: coordsim %s, Kafka %s", d.Path, d.Ours, d.Kafka)
}

// Diff compares two flattened answers field by field.
func Diff(ours, kafka []string) []Difference {
	split := func(lines []string) (map[string]string, []string) {
		m := map[string]string{}
		var order []string
		for _, l := range lines {
			k, v, _ := strings.Cut(l, " = ")
			if _, dup := m[k]; !dup {
				order = append(order, k)
			}
			m[k] = v
		}
		return m, order
	}
	o, oOrder := split(ours)
	k, kOrder := split(kafka)
	var diffs []Difference
	for _, p := range oOrder {
		kv, ok := k[p]
		if !ok {
			kv = "(absent)"
		}
		if o[p] != kv {
			diffs = append(diffs, Difference{p, o[p], kv})
		}
	}
	for _, p := range kOrder {
		if _, ok := o[p]; !ok {
			diffs = append(diffs, Difference{p, "(absent)", k[p]})
		}
	}
	return diffs
}

// GroupKeys are the API keys whose ApiVersions ranges the comparison
// covers: the group coordinator's (classic, consumer, share, streams
// groups and offsets).
var GroupKeys = []int16{
	int16(kmsg.OffsetCommit), int16(kmsg.OffsetFetch), int16(kmsg.FindCoordinator),
	int16(kmsg.JoinGroup), int16(kmsg.Heartbeat), int16(kmsg.LeaveGroup), int16(kmsg.SyncGroup),
	int16(kmsg.DescribeGroups), int16(kmsg.ListGroups), int16(kmsg.DeleteGroups),
	int16(kmsg.TxnOffsetCommit), int16(kmsg.OffsetDelete),
	int16(kmsg.ConsumerGroupHeartbeat), int16(kmsg.ConsumerGroupDescribe),
	int16(kmsg.ShareGroupHeartbeat), int16(kmsg.ShareGroupDescribe),
	int16(kmsg.DescribeShareGroupOffsets), int16(kmsg.AlterShareGroupOffsets), int16(kmsg.DeleteShareGroupOffsets),
	int16(kmsg.StreamsGroupHeartbeat), int16(kmsg.StreamsGroupDescribe),
}

// GroupKeyRanges returns resp's version ranges for GroupKeys, one line
// each in GroupKeys' order; a key the side does not support reads
// "unsupported".
func GroupKeyRanges(resp *kmsg.ApiVersionsResponse) []string {
	got := map[int16]kmsg.ApiVersionsResponseApiKey{}
	for _, k := range resp.ApiKeys {
		got[k.ApiKey] = k
	}
	lines := make([]string, 0, len(GroupKeys))
	for _, key := range GroupKeys {
		name := kmsg.NameForKey(key)
		if k, ok := got[key]; ok {
			lines = append(lines, fmt.Sprintf("ApiVersions.%s = %d..%d", name, k.MinVersion, k.MaxVersion))
		} else {
			lines = append(lines, fmt.Sprintf("ApiVersions.%s = unsupported", name))
		}
	}
	return slices.Clip(lines)
}
