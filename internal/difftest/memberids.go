package difftest

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/coordsim/coordsim/shard"
)

// Generated member ids. A classic member's id is made by the coordinator:
// its client id (or instance id), a dash and a UUID in a classic group, a
// bare Uuid in a consumer group. Kafka draws the UUID
// at random (ClassicGroup.generateMemberId), coordsim hashes the request
// (shard/classic.go), so the same member has a different id on each side.
// Each side keeps a table of the UUIDs it generated, in the order they
// first appear in its answers; an answer shows the n-th as "@m<n>" (so
// "client-1-@m0" on both sides for the first member), and an op that
// names "@m<n>" is sent to each side with that side's n-th UUID. The
// generator only ever sees and sends the labels, and a reproduction
// replays with them.

var generatedUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// kafkaUUID is a whole string in Kafka's Uuid text form (22 characters of
// URL-safe base64): the member id Kafka gives a classic member joining a
// consumer group (Uuid.randomUuid), which coordsim imitates. Topic ids,
// the other such strings, are names by now (normalise.go).
var kafkaUUID = regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)

// idFields are the fields whose whole value may be a bare Uuid member id.
var idFields = map[string]bool{"memberId": true, "leader": true}

var memberLabel = regexp.MustCompile(`@m([0-9]+)`)

// idTable is one side's generated UUIDs in order of first appearance.
type idTable struct {
	uuids []string
	index map[string]int
}

func (t *idTable) label(uuid string) string {
	if t.index == nil {
		t.index = map[string]int{}
	}
	n, ok := t.index[uuid]
	if !ok {
		n = len(t.uuids)
		t.uuids = append(t.uuids, uuid)
		t.index[uuid] = n
	}
	return fmt.Sprintf("@m%d", n)
}

// relabel replaces the generated UUIDs in an outcome by their labels,
// walking it in a fixed order (map keys sorted) so both sides label a new
// UUID the same when their answers agree.
func (t *idTable) relabel(o Outcome) Outcome {
	o.Message = t.relabelString(o.Message)
	o.Response = t.relabelValue(o.Response)
	o.Completed = asList(t.relabelValue(anyList(o.Completed)))
	if o.Records != nil {
		o.Records = asList(t.relabelValue(o.Records))
	}
	return o
}

func anyList(l []any) any {
	if l == nil {
		return nil
	}
	return l
}

func (t *idTable) relabelString(s string) string {
	if generatedUUID.MatchString(s) {
		s = generatedUUID.ReplaceAllStringFunc(s, t.label)
	}
	// A known id inside a longer string: a request that put a label
	// after a prefix (a reduced sequence renumbers labels, so
	// "client-@m0" may name a bare Uuid), echoed back.
	for i, u := range t.uuids {
		if len(s) > len(u) && strings.Contains(s, u) {
			s = strings.ReplaceAll(s, u, fmt.Sprintf("@m%d", i))
		}
	}
	return s
}

func (t *idTable) relabelValue(v any) any {
	switch v := v.(type) {
	case string:
		return t.relabelString(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if id, ok := v[k].(string); ok && idFields[k] && kafkaUUID.MatchString(id) {
				out[k] = t.label(id)
				continue
			}
			out[k] = t.relabelValue(v[k])
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = t.relabelValue(x)
		}
		sortMembersByID(out)
		return out
	}
	// Typed values (the driver's []string, []int32...) carry no member id
	// a coordinator generated, except strings handled above; go through
	// JSON for anything else that might.
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || !generatedUUID.Match(b) {
		return v
	}
	var x any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return v
	}
	return t.relabelValue(x)
}

// resolve is op with every "@m<n>" this side has generated replaced by
// its UUID (a label it never generated stays, an id neither side knows).
func (t *idTable) resolve(op Op) Op {
	body := EncodeOp(op)
	if !strings.Contains(body, "@m") {
		return op
	}
	body = memberLabel.ReplaceAllStringFunc(body, func(l string) string {
		n, err := strconv.Atoi(l[2:])
		if err != nil || n >= len(t.uuids) {
			return l
		}
		return t.uuids[n]
	})
	out, err := DecodeOp(op.Name(), []byte(body))
	if err != nil {
		panic(fmt.Sprintf("difftest: resolving %s: %v", op.Name(), err)) // ops are plain data
	}
	return out
}

// oursOnly runs ops on coordsim's side alone as a session does (labels
// resolved, answers relabelled, parked answers collected): reproduction
// files and the known-divergence matchers that replay a sequence use it.
type oursOnly struct {
	d   *driver
	ids idTable
}

func newOursOnly() (*oursOnly, error) { return newOursOnlyWith(DriverConfig()) }

func newOursOnlyWith(cfg shard.Config) (*oursOnly, error) {
	d, err := newDriver(cfg)
	if err != nil {
		return nil, err
	}
	return &oursOnly{d: d}, nil
}

func (s *oursOnly) step(op Op) Outcome {
	out := s.ids.resolve(op).run(s.d)
	if c := s.d.takeCompleted(); len(c) > 0 {
		out.Completed = c
	}
	out = s.ids.relabel(out)
	if !carriesMessage(op) {
		out.Message = "" // as the runner compares (session.step)
	}
	return out
}

// sortMembersByID sorts a list of members (maps with a memberId) by their
// ids again once relabelled: both sides sorted them by ids that differ.
func sortMembersByID(l []any) {
	for _, x := range l {
		if _, ok := asMap(x)["memberId"].(string); !ok {
			return
		}
	}
	slices.SortStableFunc(l, func(a, b any) int {
		return strings.Compare(asMap(a)["memberId"].(string), asMap(b)["memberId"].(string))
	})
}
