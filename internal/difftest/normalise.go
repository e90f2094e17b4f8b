package difftest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The normalisation: what the oracle answers, in Kafka's JSON, brought to
// the canonical Outcome. Every rule here is a difference of representation,
// not of behaviour, and docs/fidelity.md lists them:
//
//   - topic ids become topic names (coordsim's records carry names);
//   - Kafka's null strings become "" (Go has no null; shard.doc.go),
//     GroupMetadataValue's protocol, leader and members' groupInstanceId
//     included (groupMetadataValue; its members are compared whole, ids
//     through the labels of memberids.go, bytes as bytes);
//   - subscribed topic names are sorted (coordsim stores them sorted and
//     deduplicated, Kafka as sent);
//   - the group metadata hash is dropped: coordsim's is its own FNV sum
//     over names, partition counts and racks, a change detector that
//     never leaves the coordinator, where Kafka's is Murmur3 over the
//     topic image;
//   - an empty target-assignment member record is dropped (outcome.go,
//     emptyTarget);
//   - an offset's topic id (OffsetCommitValue.topicId, written from
//     OffsetCommit v10) is dropped: coordsim's offsets carry names only
//     (shard/topic_deletion.go);
//   - the ConsumerGroupPartitionMetadata tombstone Kafka writes for logs
//     of older brokers when it deletes a group is dropped;
//   - record fields coordsim does not model, or this driver does not
//     send, are dropped: clientHost (a connection property: the oracle's
//     request context is its loopback address, the driver sends none),
//     and the KIP-1251 assignmentEpochs (derived on replay); a
//     ShareGroupStatePartitionMetadata record's deleting topics are
//     compared by count (a TopicInfo is only an id and a name);
//   - lists of topic partitions and per-partition answers are sorted, and
//     the records of one operation are compared as a set.

// dropRecordTypes are Kafka record types coordsim does not write.
// ConsumerGroupPartitionMetadata is a record type Kafka stopped writing
// (KIP-1101 moved the subscribed topics' metadata into a hash); Kafka 4.4
// still tombstones it when it deletes a consumer group, for logs written by
// older brokers, and coordsim never had it.
var dropRecordTypes = map[string]bool{"ConsumerGroupPartitionMetadata": true}

// dropFields are record and response fields coordsim does not model.
var dropFields = map[string]bool{"metadataHash": true, "topicId": true,
	"clientHost": true, "assignmentEpochs": true, "throttleTimeMs": true, "topicName": true}

// nullAsEmpty are string fields whose null Go spells "".
var nullAsEmpty = map[string]bool{"instanceId": true, "rackId": true, "serverAssignor": true, "subscribedTopicRegex": true}

// oracleAnswer is one line the oracle writes.
type oracleAnswer struct {
	Op        string            `json:"op"`
	Response  json.RawMessage   `json:"response"`
	Exception *oracleException  `json:"exception"`
	Records   []json.RawMessage `json:"records"`
	Bad       string            `json:"bad"`
	Completed json.RawMessage   `json:"completed"`
	Crash     string            `json:"crash"`
}

type oracleException struct {
	Code    int16  `json:"code"`
	Name    string `json:"name"`
	Message string `json:"message"`
}

// normalise brings an oracle answer for op to the canonical Outcome.
func normalise(op Op, line []byte, names map[string]string) Outcome {
	var a oracleAnswer
	if err := json.Unmarshal(line, &a); err != nil {
		return Outcome{Bad: fmt.Sprintf("oracle answer %q: %v", line, err)}
	}
	switch {
	case a.Bad != "":
		return Outcome{Bad: "oracle: " + a.Bad}
	case a.Crash != "":
		// Kafka threw something that is not an ApiException: the runtime
		// answers UNKNOWN_SERVER_ERROR.
		return Outcome{Error: "UNKNOWN_SERVER_ERROR", Message: a.Crash, Records: []any{}}
	}
	n := normaliser{names: names}
	out := Outcome{Records: []any{}}
	for _, raw := range a.Records {
		var r map[string]any
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber() // metadata hashes need all 64 bits
		if err := dec.Decode(&r); err != nil {
			return Outcome{Bad: err.Error()}
		}
		typ, _ := r["type"].(string)
		if dropRecordTypes[typ] {
			continue
		}
		rec := n.value(r)
		switch typ {
		case "GroupMetadata":
			// After value: the decoded assignment's typed partition
			// lists are not value's JSON lists.
			m := asMap(rec)
			m["value"] = groupMetadataValue(m["value"])
		case "ConsumerGroupRegularExpression":
			// Kafka's version is the metadata image's offset; coordsim's
			// a fingerprint of the topic names (shard/regex.go), which the
			// brokers of a simulation agree on without a shared log.
			delete(asMap(asMap(rec)["value"]), "version")
		}
		out.Records = append(out.Records, rec)
	}
	if len(a.Completed) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(a.Completed)))
		dec.UseNumber()
		var cs []any
		if err := dec.Decode(&cs); err != nil {
			return Outcome{Bad: err.Error()}
		}
		if out.Completed = n.completed(cs); len(out.Completed) == 0 {
			out.Completed = nil
		}
	}
	if a.Exception != nil {
		out.Error, out.Message = a.Exception.Name, a.Exception.Message
		return out
	}
	var resp any
	if len(a.Response) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(a.Response)))
		dec.UseNumber()
		if err := dec.Decode(&resp); err != nil {
			return Outcome{Bad: err.Error()}
		}
	}
	out.Response = n.response(op, resp)
	return out
}

// groupMetadataValue is a GroupMetadataValue as coordsim's outcome
// writes it (outcome.go): Kafka's null protocol, leader and
// groupInstanceId are "" (coordsim's Go strings), and each member's
// clientHost goes (dropFields: the request context's address). Member
// ids stay raw here; the runner relabels them (memberids.go), which also
// sorts the members by label. A subscription is compared as bytes: both
// sides store what the member's JoinGroup sent for the group's protocol.
// An assignment is compared decoded (assignmentBytesJSON), as SyncGroup
// answers are: the leader's bytes decode alike on both sides, and the
// assignment a downgrade from a consumer group serialises
// (ClassicGroup.fromConsumerGroup) lists the topics in the order of
// Kafka's HashMap by topic id, which coordsim, with names only, cannot
// follow (--first-seed 201, seed 225).
func groupMetadataValue(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // a tombstone
	}
	for _, k := range []string{"protocol", "leader"} {
		if m[k] == nil {
			m[k] = ""
		}
	}
	for _, x := range asList(m["members"]) {
		mm := asMap(x)
		if mm == nil {
			continue
		}
		if mm["groupInstanceId"] == nil {
			mm["groupInstanceId"] = ""
		}
		if a, ok := mm["assignment"].(string); ok {
			if b, err := base64.StdEncoding.DecodeString(a); err == nil {
				mm["assignment"] = assignmentBytesJSON(b)
			}
		}
	}
	if m["members"] == nil {
		m["members"] = []any{}
	}
	return m
}

type normaliser struct {
	names map[string]string // topic id → name
}

func (n normaliser) topic(id any) string {
	s, _ := id.(string)
	if name, ok := n.names[s]; ok {
		return name
	}
	return "id:" + s
}

// value normalises a JSON value: records, assignments, members.
func (n normaliser) value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if id, ok := v["topicId"]; ok {
			if ps, ok := v["partitions"]; ok {
				return map[string]any{"topic": n.topic(id), "partitions": sortedInts(ps)}
			}
		}
		if id, ok := v["subtopologyId"]; ok && len(v) == 2 {
			if ps, ok := v["partitions"]; ok {
				return map[string]any{"subtopologyId": id, "partitions": sortedInts(ps)}
			}
		}
		out := map[string]any{}
		for k, x := range v {
			switch {
			case dropFields[k]:
			case nullAsEmpty[k] && x == nil:
				out[k] = ""
			case k == "subscribedTopicNames" && x != nil:
				out[k] = sortedAny(asList(x))
			default:
				out[k] = n.value(x)
			}
		}
		return out
	case []any:
		out := make([]any, 0, len(v))
		for _, x := range v {
			y := n.value(x)
			if m, ok := y.(map[string]any); ok && len(m) == 2 && (m["topic"] != nil || m["subtopologyId"] != nil) {
				if ps, _ := m["partitions"].([]any); len(ps) == 0 {
					continue // an empty topic or task entry says nothing
				}
			}
			out = append(out, y)
		}
		if len(out) > 0 && isTopicPartitions(out[0]) {
			slices.SortFunc(out, func(a, b any) int {
				return strings.Compare(fmt.Sprint(asMap(a)["topic"]), fmt.Sprint(asMap(b)["topic"]))
			})
		}
		if len(out) > 0 && isTasks(out[0]) {
			slices.SortFunc(out, func(a, b any) int {
				return strings.Compare(fmt.Sprint(asMap(a)["subtopologyId"]), fmt.Sprint(asMap(b)["subtopologyId"]))
			})
		}
		return out
	}
	return v
}

func isTopicPartitions(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 2 && m["topic"] != nil && m["partitions"] != nil
}

func isTasks(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 2 && m["subtopologyId"] != nil && m["partitions"] != nil
}

func sortedInts(v any) []any {
	xs, _ := v.([]any)
	out := make([]any, len(xs))
	copy(out, xs)
	slices.SortFunc(out, func(a, b any) int { return compareNumber(a, b) })
	for i, x := range out {
		if f, ok := x.(float64); ok {
			out[i] = json.Number(fmt.Sprintf("%.0f", f))
		}
	}
	return out
}

func compareNumber(a, b any) int {
	fa, _ := toFloat(a)
	fb, _ := toFloat(b)
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

func sortedAny(xs []any) []any {
	out := slices.Clone(xs)
	slices.SortFunc(out, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return out
}

func field(m map[string]any, k string) any {
	if m == nil {
		return nil
	}
	return m[k]
}

func num(v any) int64 {
	switch v := v.(type) {
	case json.Number:
		i, _ := v.Int64()
		return i
	case float64:
		return int64(v)
	case int64:
		return v
	case int32:
		return int64(v)
	case int:
		return int64(v)
	}
	return 0
}

// response normalises an operation's answer.
func (n normaliser) response(op Op, resp any) any {
	m, _ := resp.(map[string]any)
	switch op := op.(type) {
	case ConsumerHeartbeat, ShareHeartbeat:
		out := map[string]any{"memberId": field(m, "memberId"), "memberEpoch": num(field(m, "memberEpoch")),
			"heartbeatIntervalMs": num(field(m, "heartbeatIntervalMs")), "assignment": nil}
		if a, ok := field(m, "assignment").(map[string]any); ok {
			tps, _ := n.value(a["topicPartitions"]).([]any)
			out["assignment"] = nonNil(tps)
		}
		return out
	case OffsetCommit, TxnOffsetCommit, OffsetDelete:
		lines := []string{}
		for _, t := range asList(field(m, "topics")) {
			tm := asMap(t)
			name, _ := tm["name"].(string)
			if name == "" {
				name = n.topic(tm["topicId"]) // OffsetCommit v10 answers by id
			}
			for _, p := range asList(tm["partitions"]) {
				pm := asMap(p)
				lines = append(lines, fmt.Sprintf("%s-%d: %d", name, num(pm["partitionIndex"]), num(pm["errorCode"])))
			}
		}
		slices.Sort(lines)
		return map[string]any{"errorCode": num(field(m, "errorCode")), "partitions": lines}
	case OffsetFetch:
		lines := []string{}
		for _, t := range asList(field(m, "topics")) {
			tm := asMap(t)
			for _, p := range asList(tm["partitions"]) {
				pm := asMap(p)
				meta, _ := pm["metadata"].(string)
				lines = append(lines, fmt.Sprintf("%s-%d: offset=%d epoch=%d metadata=%q error=%d", tm["name"], num(pm["partitionIndex"]),
					num(pm["committedOffset"]), num(pm["committedLeaderEpoch"]), meta, num(pm["errorCode"])))
			}
		}
		slices.Sort(lines)
		return map[string]any{"errorCode": num(field(m, "errorCode")), "offsets": lines}
	case DeleteGroups:
		out := []any{}
		for _, g := range asList(resp) {
			gm := asMap(g)
			out = append(out, fmt.Sprintf("%s: %d", gm["groupId"], num(gm["errorCode"])))
		}
		slices.SortFunc(out, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		return out
	case ListGroups:
		out := []any{}
		for _, g := range asList(resp) {
			gm := asMap(g)
			out = append(out, fmt.Sprintf("%s %s %s", gm["groupId"], gm["groupType"], gm["groupState"]))
		}
		slices.SortFunc(out, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		return out
	case DescribeGroups:
		return n.describe(op, resp)
	case StreamsHeartbeat:
		return n.streamsHeartbeat(m)
	case StreamsDescribe:
		return n.streamsDescribe(resp)
	case ClassicJoin, ClassicSync, ClassicHeartbeat, ClassicLeave, ClassicDescribe:
		return n.classicResponse(op, m, resp)
	}
	return nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// describeError is a described group's error entry, compared by code, or
// false when the group was described.
func describeError(gm map[string]any) (map[string]any, bool) {
	if code := num(gm["errorCode"]); code != 0 {
		return map[string]any{"groupId": gm["groupId"], "errorCode": code}, true
	}
	return nil, false
}

func (n normaliser) describe(op DescribeGroups, resp any) any {
	return describeGroups(resp, func(map[string]any) map[string]any { return map[string]any{} }, func(mm map[string]any) map[string]any {
		md := map[string]any{
			"memberId": mm["memberId"], "memberEpoch": num(mm["memberEpoch"]), "clientId": mm["clientId"],
			"rackId":               asMap(n.value(map[string]any{"rackId": mm["rackId"]}))["rackId"],
			"subscribedTopicNames": sortedAny(nonNil(asList(mm["subscribedTopicNames"]))),
			"assignment":           nonNil(asList(n.value(field(asMap(mm["assignment"]), "topicPartitions")))),
		}
		if !op.Share {
			v := asMap(n.value(map[string]any{"instanceId": mm["instanceId"], "subscribedTopicRegex": mm["subscribedTopicRegex"]}))
			md["instanceId"], md["subscribedTopicRegex"] = v["instanceId"], v["subscribedTopicRegex"]
			md["targetAssignment"] = nonNil(asList(n.value(field(asMap(mm["targetAssignment"]), "topicPartitions"))))
		}
		return md
	})
}

// describeGroups is a describe answer in the canonical form: a group's
// error by code, a described group by its id, state and epochs, what group
// adds of its own, and its members (each as member makes it) by id.
func describeGroups(resp any, group, member func(map[string]any) map[string]any) any {
	out := []any{}
	for _, g := range asList(resp) {
		gm := asMap(g)
		if e, ok := describeError(gm); ok {
			out = append(out, e)
			continue
		}
		members := []any{}
		for _, m := range asList(gm["members"]) {
			members = append(members, member(asMap(m)))
		}
		slices.SortFunc(members, func(a, b any) int {
			return strings.Compare(fmt.Sprint(asMap(a)["memberId"]), fmt.Sprint(asMap(b)["memberId"]))
		})
		d := group(gm)
		d["groupId"], d["errorCode"], d["groupState"] = gm["groupId"], 0, gm["groupState"]
		d["groupEpoch"], d["assignmentEpoch"], d["members"] = num(gm["groupEpoch"]), num(gm["assignmentEpoch"]), members
		out = append(out, d)
	}
	return out
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
