package connect

import (
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/share"
)

// connectorProps returns a minimal valid connector config plus extra keys
// ("" values are kept: a key set to "" is not a missing key).
func connectorProps(extra ...string) Props {
	p := Props{"name": "orders-sink", "topics": "orders"}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i]] = extra[i+1]
	}
	return p
}

// manyTopics returns n distinct topic names, comma-separated.
func manyTopics(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = "t" + strconv.Itoa(i)
	}
	return strings.Join(names, ",")
}

// mustResolve resolves or fails the test.
func mustResolve(t *testing.T, worker, connector Props) SinkConfig {
	t.Helper()
	cfg, err := Resolve(worker, connector)
	require.NoError(t, err)
	return cfg
}

// requireConfigError asserts err is a *ConfigError for key and returns it.
func requireConfigError(t *testing.T, err error, key string) *ConfigError {
	t.Helper()
	var ce *ConfigError
	require.Error(t, err)
	require.True(t, errors.As(err, &ce), "want *ConfigError, got %T: %v", err, err)
	assert.Equal(t, key, ce.Key, "error: %v", err)
	assert.Contains(t, err.Error(), key)
	return ce
}

// A connector with only name and topics is a classic WorkerSinkTask with
// Connect's three consumer defaults and nothing else.
func TestResolveDefaults(t *testing.T) {
	cfg := mustResolve(t, nil, connectorProps())
	assert.Equal(t, SinkConfig{
		Name:          "orders-sink",
		Kind:          ConsumerSink,
		GroupProtocol: "classic",
		GroupID:       "connect-orders-sink",
		Topics:        []string{"orders"},
		Tasks:         1,
		Consumer:      Props{"group.id": "connect-orders-sink", "enable.auto.commit": "false", "auto.offset.reset": "earliest"},
		GroupConfigs:  Props{},
	}, cfg)
	assert.NotNil(t, cfg.GroupConfigs)
	assert.Equal(t, "consumer", cfg.Kind.String())
	assert.Equal(t, "none", cfg.ErrorsTolerance.String())
}

// The effective group.protocol picks the task class; the connector's
// override wins over the worker's in both directions, case-insensitively.
func TestResolveSelectsKind(t *testing.T) {
	cases := []struct {
		name      string
		worker    string // consumer.group.protocol, "-" = absent
		connector string // consumer.override.group.protocol, "-" = absent
		kind      SinkKind
		protocol  string
	}{
		{"absent", "-", "-", ConsumerSink, "classic"},
		{"worker selects share", "share", "-", ShareSink, "share"},
		{"connector selects share", "-", "share", ShareSink, "share"},
		{"worker share, connector consumer", "share", "consumer", ConsumerSink, "consumer"},
		{"worker share, connector classic", "share", "classic", ConsumerSink, "classic"},
		{"worker consumer, connector share", "consumer", "share", ShareSink, "share"},
		{"worker classic, connector share", "classic", "share", ShareSink, "share"},
		{"upper case SHARE", "-", "SHARE", ShareSink, "share"},
		{"mixed case Consumer", "Consumer", "-", ConsumerSink, "consumer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			worker, connector := Props{}, connectorProps()
			if tc.worker != "-" {
				worker["consumer.group.protocol"] = tc.worker
			}
			if tc.connector != "-" {
				connector["consumer.override.group.protocol"] = tc.connector
			}
			cfg := mustResolve(t, worker, connector)
			assert.Equal(t, tc.kind, cfg.Kind)
			assert.Equal(t, tc.protocol, cfg.GroupProtocol)
			if tc.kind == ShareSink {
				assert.NotContains(t, cfg.Consumer, "group.protocol")
			}
		})
	}
}

// A group.protocol other than classic, consumer or share (untrimmed, as
// Kafka compares it) is a ConfigError naming the key as the user wrote it.
func TestResolveBadProtocol(t *testing.T) {
	cases := []struct {
		name    string
		worker  Props
		conn    Props
		wantKey string
	}{
		{"worker typo", Props{"consumer.group.protocol": "sharee"}, connectorProps(), "consumer.group.protocol"},
		{"connector empty", nil, connectorProps("consumer.override.group.protocol", ""), "consumer.override.group.protocol"},
		{"connector padded", nil, connectorProps("consumer.override.group.protocol", " share"), "consumer.override.group.protocol"},
		{"connector streams", Props{"consumer.group.protocol": "share"}, connectorProps("consumer.override.group.protocol", "streams"), "consumer.override.group.protocol"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.worker, tc.conn)
			ce := requireConfigError(t, err, tc.wantKey)
			assert.Contains(t, ce.Error(), "group.protocol")
			assert.Contains(t, ce.Error(), "Invalid value")
		})
	}
}

// A share sink strips every key a KafkaShareConsumer rejects, lists them
// sorted, keeps the rest, and warns about each one the user set (but not
// about group.protocol or auto.offset.reset, which it honours otherwise).
func TestResolveShareStripsRejectedKeys(t *testing.T) {
	connector := connectorProps("consumer.override.group.protocol", "share", "consumer.override.max.poll.records", "50")
	worker := Props{"consumer.fetch.max.bytes": "1024"}
	for _, k := range shareRejectedKeys() {
		if k != "group.protocol" {
			connector["consumer.override."+k] = "x-" + k
		}
	}
	connector["consumer.override.auto.offset.reset"] = "earliest"
	cfg := mustResolve(t, worker, connector)

	want := []string{
		"auto.offset.reset", "enable.auto.commit", "group.instance.id", "group.protocol", "group.remote.assignor",
		"heartbeat.interval.ms", "interceptor.classes", "isolation.level", "partition.assignment.strategy", "session.timeout.ms",
	}
	assert.Equal(t, want, cfg.Stripped)
	for _, k := range want {
		assert.NotContains(t, cfg.Consumer, k)
	}
	assert.Equal(t, Props{
		"group.id":                   "connect-orders-sink",
		"max.poll.records":           "50",
		"fetch.max.bytes":            "1024",
		"share.acknowledgement.mode": "explicit",
	}, cfg.Consumer)

	require.Len(t, cfg.Warnings, len(want)-2, "%q", cfg.Warnings)
	for i, w := range cfg.Warnings {
		assert.True(t, strings.HasPrefix(w, "consumer.override."), w)
		assert.Contains(t, w, "a share consumer rejects it")
		if i > 0 {
			assert.Less(t, cfg.Warnings[i-1], w, "warnings follow the sorted stripped keys")
		}
	}
	assert.Contains(t, cfg.Warnings[len(cfg.Warnings)-1], "share.session.timeout.ms")
}

// A consumer sink hands every layered key to its KafkaConsumer unchanged:
// nothing is stripped, forced or moved to the group.
func TestResolveConsumerSinkKeepsEveryKey(t *testing.T) {
	connector := connectorProps("consumer.override.group.protocol", "consumer", "consumer.override.share.acknowledgement.mode", "implicit")
	want := Props{"group.protocol": "consumer", "share.acknowledgement.mode": "implicit", "group.id": "connect-orders-sink"}
	for _, k := range shareRejectedKeys() {
		if k != "group.protocol" {
			connector["consumer.override."+k] = "none"
			want[k] = "none"
		}
	}
	cfg := mustResolve(t, nil, connector)
	assert.Equal(t, ConsumerSink, cfg.Kind)
	assert.Equal(t, want, cfg.Consumer)
	assert.Empty(t, cfg.Stripped)
	assert.Empty(t, cfg.GroupConfigs)
	assert.Empty(t, cfg.Warnings)
}

// A share sink always acknowledges explicitly; a user's other choice is
// overridden with a warning.
func TestResolveShareForcesExplicitAcknowledgement(t *testing.T) {
	cases := []struct {
		name    string
		mode    string // "-" = absent
		warning bool
	}{
		{"absent", "-", false},
		{"explicit", "explicit", false},
		{"EXPLICIT", "EXPLICIT", false},
		{"implicit", "implicit", true},
		{"garbage", "sometimes", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			connector := connectorProps("consumer.override.group.protocol", "share")
			if tc.mode != "-" {
				connector["consumer.override.share.acknowledgement.mode"] = tc.mode
			}
			cfg := mustResolve(t, nil, connector)
			assert.Equal(t, "explicit", cfg.Consumer["share.acknowledgement.mode"])
			if tc.warning {
				require.Len(t, cfg.Warnings, 1)
				assert.Equal(t, "consumer.override.share.acknowledgement.mode="+tc.mode+" overridden to explicit: a share sink acknowledges each record by its outcome", cfg.Warnings[0])
			} else {
				assert.Empty(t, cfg.Warnings)
			}
		})
	}
}

// auto.offset.reset's intent becomes the share group's
// share.auto.offset.reset: earliest and by_duration carry over, latest is
// Kafka's default and sets nothing, and none (which a share group lacks) or
// a bad value is refused.
func TestResolveShareAutoOffsetReset(t *testing.T) {
	cases := []struct {
		name    string
		reset   string // consumer.override.auto.offset.reset, "-" = Connect's default
		want    Props
		wantErr bool
	}{
		{"connect default earliest", "-", Props{"share.auto.offset.reset": "earliest"}, false},
		{"earliest", "earliest", Props{"share.auto.offset.reset": "earliest"}, false},
		{"EARLIEST", "EARLIEST", Props{"share.auto.offset.reset": "earliest"}, false},
		{"latest", "latest", Props{}, false},
		{"by_duration", "by_duration:PT1H", Props{"share.auto.offset.reset": "by_duration:PT1H"}, false},
		{"BY_DURATION", "BY_DURATION:p1d", Props{"share.auto.offset.reset": "by_duration:p1d"}, false},
		{"none", "none", nil, true},
		{"unknown", "smallest", nil, true},
		{"negative by_duration", "by_duration:-PT1H", nil, true},
		{"malformed by_duration", "by_duration:1h", nil, true},
		{"sub-millisecond by_duration", "by_duration:PT0.0001S", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			connector := connectorProps("consumer.override.group.protocol", "share")
			if tc.reset != "-" {
				connector["consumer.override.auto.offset.reset"] = tc.reset
			}
			cfg, err := Resolve(nil, connector)
			if tc.wantErr {
				ce := requireConfigError(t, err, "consumer.override.auto.offset.reset")
				assert.Equal(t, tc.reset, ce.Value)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.GroupConfigs)
			assert.NotContains(t, cfg.Consumer, "auto.offset.reset")
		})
	}
}

// A share sink refuses auto.offset.reset=none with a message saying why
// and what to set instead; a consumer sink keeps none, which its consumer
// honours.
func TestResolveAutoOffsetResetNone(t *testing.T) {
	_, err := Resolve(Props{"consumer.group.protocol": "share", "consumer.auto.offset.reset": "none"}, connectorProps())
	ce := requireConfigError(t, err, "consumer.auto.offset.reset")
	assert.Contains(t, ce.Reason, "share.auto.offset.reset has only latest, earliest and by_duration")

	cfg := mustResolve(t, Props{"consumer.auto.offset.reset": "none"}, connectorProps())
	assert.Equal(t, "none", cfg.Consumer["auto.offset.reset"])
	assert.Empty(t, cfg.GroupConfigs)

	_, err = Resolve(Props{"consumer.auto.offset.reset": "whenever"}, connectorProps())
	requireConfigError(t, err, "consumer.auto.offset.reset")
}

// Every bad connector value is a ConfigError naming its key; absent
// required keys read as Kafka's "Missing required configuration".
func TestResolveConnectorErrors(t *testing.T) {
	cases := []struct {
		name    string
		conn    Props
		key     string
		missing bool
	}{
		{"no name", Props{"topics": "orders"}, "name", true},
		{"empty name", Props{"name": "", "topics": "orders"}, "name", false},
		{"control char in name", Props{"name": "a\nb", "topics": "orders"}, "name", false},
		{"no topics", Props{"name": "x"}, "topics", true},
		{"empty topics", connectorProps("topics", ""), "topics", false},
		{"only commas", connectorProps("topics", " , ,"), "topics", false},
		{"illegal topic char", connectorProps("topics", "orders,pay/ments"), "topics", false},
		{"dot topic", connectorProps("topics", ".."), "topics", false},
		{"topic too long", connectorProps("topics", strings.Repeat("t", 250)), "topics", false},
		{"too many topics", connectorProps("topics", manyTopics(TopicsMax+1)), "topics", false},
		{"topics.regex", connectorProps("topics.regex", "orders.*"), "topics.regex", false},
		{"tasks.max zero", connectorProps("tasks.max", "0"), "tasks.max", false},
		{"tasks.max negative", connectorProps("tasks.max", "-3"), "tasks.max", false},
		{"tasks.max too big", connectorProps("tasks.max", "1001"), "tasks.max", false},
		{"tasks.max not a number", connectorProps("tasks.max", "four"), "tasks.max", false},
		{"tasks.max empty", connectorProps("tasks.max", ""), "tasks.max", false},
		{"tasks.max overflows int", connectorProps("tasks.max", "2147483648"), "tasks.max", false},
		{"tolerance unknown", connectorProps("errors.tolerance", "some"), "errors.tolerance", false},
		{"tolerance padded", connectorProps("errors.tolerance", " all"), "errors.tolerance", false},
		{"DLQ is a source topic", connectorProps("errors.deadletterqueue.topic.name", "orders"), "errors.deadletterqueue.topic.name", false},
		{"DLQ illegal name", connectorProps("errors.deadletterqueue.topic.name", "dlq orders"), "errors.deadletterqueue.topic.name", false},
		{"bare override prefix", connectorProps("consumer.override.", "x"), "consumer.override.", false},
		{"empty group id", connectorProps("consumer.override.group.id", ""), "consumer.override.group.id", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(nil, tc.conn)
			ce := requireConfigError(t, err, tc.key)
			assert.Equal(t, tc.missing, ce.Missing)
			if tc.missing {
				assert.Equal(t, `Missing required configuration "`+tc.key+`" which has no default value.`, err.Error())
			} else {
				assert.True(t, strings.HasPrefix(err.Error(), "Invalid value "), err.Error())
			}
		})
	}
}

// Good connector values are parsed as Connect parses them: tasks.max
// trimmed, topics trimmed and de-duplicated in their given order,
// errors.tolerance case-insensitive.
func TestResolveConnectorValues(t *testing.T) {
	cfg := mustResolve(t, Props{"consumer.errors.tolerance": "all"}, connectorProps(
		"tasks.max", " 1000 ",
		"topics", " b, a,b,, c ",
		"errors.tolerance", "ALL",
		"errors.deadletterqueue.topic.name", " dlq-orders ",
	))
	assert.Equal(t, 1000, cfg.Tasks)
	assert.Len(t, mustResolve(t, nil, connectorProps("topics", manyTopics(TopicsMax))).Topics, TopicsMax)
	assert.Equal(t, []string{"b", "a", "c"}, cfg.Topics)
	assert.Equal(t, ToleranceAll, cfg.ErrorsTolerance)
	assert.Equal(t, "dlq-orders", cfg.DLQTopic)
	assert.Empty(t, cfg.Warnings)
	assert.Equal(t, "all", cfg.Consumer["errors.tolerance"], "a worker consumer.* key is a client config, not errors.tolerance")
}

// The warnings name configurations Resolve accepted but that do nothing:
// a connector's bare group.id and a DLQ under errors.tolerance=none.
func TestResolveWarnsAboutIneffectiveKeys(t *testing.T) {
	cfg := mustResolve(t, nil, connectorProps("group.id", "mine", "errors.deadletterqueue.topic.name", "dlq"))
	assert.Equal(t, "connect-orders-sink", cfg.GroupID)
	assert.Equal(t, []string{
		"connector group.id=mine is ignored: Connect takes a sink's group id from consumer.override.group.id, else connect-<name>",
		"errors.deadletterqueue.topic.name=dlq has no effect while errors.tolerance=none: the first conversion failure fails the task",
	}, cfg.Warnings)
}

// Layers apply in Worker.baseConsumerConfigs' order: Connect defaults, then
// worker consumer.*, then connector consumer.override.*.
func TestResolveLayering(t *testing.T) {
	cases := []struct {
		name   string
		worker Props
		conn   Props
		key    string
		want   string
	}{
		{"worker overrides default", Props{"consumer.enable.auto.commit": "true"}, connectorProps(), "enable.auto.commit", "true"},
		{"connector overrides worker", Props{"consumer.max.poll.records": "100"}, connectorProps("consumer.override.max.poll.records", "200"), "max.poll.records", "200"},
		{"worker group id applies to every connector", Props{"consumer.group.id": "shared"}, connectorProps(), "group.id", "shared"},
		{"connector group id wins", Props{"consumer.group.id": "shared"}, connectorProps("consumer.override.group.id", "mine"), "group.id", "mine"},
		{"non-prefixed worker key ignored", Props{"max.poll.records": "7"}, connectorProps(), "max.poll.records", ""},
		{"connector consumer.* (no override) ignored", nil, connectorProps("consumer.max.poll.records", "7"), "max.poll.records", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustResolve(t, tc.worker, tc.conn)
			assert.Equal(t, tc.want, cfg.Consumer[tc.key])
			assert.Equal(t, cfg.Consumer["group.id"], cfg.GroupID)
		})
	}
}

// Resolve reads its inputs only, and its result shares no map or slice
// with them, so the simulator can reuse a connector's props.
func TestResolveDoesNotModifyInputs(t *testing.T) {
	worker := Props{"consumer.group.protocol": "share", "consumer.session.timeout.ms": "10000"}
	connector := connectorProps("consumer.override.auto.offset.reset", "latest", "consumer.override.share.acknowledgement.mode", "implicit")
	workerBefore, connectorBefore := maps.Clone(worker), maps.Clone(connector)

	cfg := mustResolve(t, worker, connector)
	assert.Equal(t, workerBefore, worker)
	assert.Equal(t, connectorBefore, connector)

	cfg.Consumer["max.poll.records"] = "1"
	cfg.GroupConfigs["x"] = "y"
	cfg.Topics[0] = "changed"
	again := mustResolve(t, worker, connector)
	assert.Equal(t, workerBefore, worker)
	assert.Equal(t, connectorBefore, connector)
	assert.NotContains(t, again.Consumer, "max.poll.records")
	assert.Equal(t, []string{"orders"}, again.Topics)
}

// Go's random map order never reaches Resolve's output: many runs over the
// same inputs give identical configs, warnings in the same order.
func TestResolveIsDeterministic(t *testing.T) {
	connector := connectorProps("consumer.override.group.protocol", "share", "group.id", "g", "errors.deadletterqueue.topic.name", "dlq",
		"consumer.override.share.acknowledgement.mode", "implicit")
	for _, k := range shareRejectedKeys() {
		if k != "group.protocol" && k != "auto.offset.reset" {
			connector["consumer.override."+k] = "v"
		}
	}
	first := mustResolve(t, nil, connector)
	require.Len(t, first.Warnings, 11)
	for range 50 {
		assert.Equal(t, first, mustResolve(t, nil, connector))
	}
}

// A share.auto.offset.reset value maps to package share's strategy and
// duration, the form the simulator builds a share.Config from.
func TestParseShareAutoOffsetReset(t *testing.T) {
	cases := []struct {
		in       string
		strategy share.AutoOffsetReset
		ms       int64
		wantErr  bool
	}{
		{"latest", share.ResetLatest, 0, false},
		{"Earliest", share.ResetEarliest, 0, false},
		{"by_duration:PT10M", share.ResetByDuration, 600_000, false},
		{"by_duration:PT0S", 0, 0, true},
		{"by_duration:", 0, 0, true},
		{"none", 0, 0, true},
		{"", 0, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			strategy, ms, err := ParseShareAutoOffsetReset(tc.in)
			if tc.wantErr {
				requireConfigError(t, err, "share.auto.offset.reset")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.strategy, strategy)
			assert.Equal(t, tc.ms, ms)
		})
	}
	// What Resolve writes to GroupConfigs always parses.
	cfg := mustResolve(t, nil, connectorProps("consumer.override.group.protocol", "share", "consumer.override.auto.offset.reset", "by_duration:P1D"))
	strategy, ms, err := ParseShareAutoOffsetReset(cfg.GroupConfigs["share.auto.offset.reset"])
	require.NoError(t, err)
	assert.Equal(t, share.ResetByDuration, strategy)
	assert.Equal(t, int64(86_400_000), ms)
}

// Enum names print as Connect and traces spell them, and unknown values
// print their number rather than a wrong name.
func TestEnumStrings(t *testing.T) {
	assert.Equal(t, "share", ShareSink.String())
	assert.Equal(t, "SinkKind(0)", SinkKind(0).String())
	assert.Equal(t, "all", ToleranceAll.String())
	assert.Equal(t, "Tolerance(7)", Tolerance(7).String())
	assert.Equal(t, "ConvertFailed", ConvertFailed.String())
	assert.Equal(t, "ConvertOutcome(0)", ConvertOutcome(0).String())
	assert.Equal(t, "PutRetriable", PutRetriable.String())
	assert.Equal(t, "PutOutcome(0)", PutOutcome(0).String())
	assert.Equal(t, []string{"a", "b", "c"}, Props{"c": "", "a": "", "b": ""}.SortedKeys())
}

// TestResolveMapsAcquisitionLockTimeout proves KIP-1302's
// share.acquisition.lock.timeout.ms is never ignored: no Kafka config has
// that name, so a share sink maps it onto the group config
// share.record.lock.duration.ms (connector key, consumer.override.* or the
// worker's consumer.*, the connector's bare key winning) with a warning; a
// value outside Kafka's group bounds is a ConfigError naming the real key;
// a consumer-group sink warns that it has no locks.
func TestResolveMapsAcquisitionLockTimeout(t *testing.T) {
	shareConn := func(extra Props) Props {
		p := Props{"name": "s", "topics": "t", "consumer.override.group.protocol": "share"}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	for _, tc := range []struct {
		name      string
		worker    Props
		connector Props
		want      string
	}{
		{"connector key", nil, shareConn(Props{"share.acquisition.lock.timeout.ms": "20000"}), "20000"},
		{"connector override", nil, shareConn(Props{"consumer.override.share.acquisition.lock.timeout.ms": "45000"}), "45000"},
		{"worker", Props{"consumer.share.acquisition.lock.timeout.ms": "15000"}, shareConn(nil), "15000"},
		{"connector key wins", Props{"consumer.share.acquisition.lock.timeout.ms": "15000"}, shareConn(Props{"share.acquisition.lock.timeout.ms": "60000"}), "60000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Resolve(tc.worker, tc.connector)
			require.NoError(t, err)
			assert.Equal(t, tc.want, cfg.GroupConfigs[GroupConfigShareRecordLockDurationMs])
			assert.NotContains(t, cfg.Consumer, KeyAcquisitionLockTimeoutMs, "no client knows the key")
			require.NotEmpty(t, cfg.Warnings)
			assert.Contains(t, cfg.Warnings[len(cfg.Warnings)-1], "mapped onto the group config share.record.lock.duration.ms")
		})
	}
	for _, bad := range []string{"14999", "60001", "30s", ""} {
		_, err := Resolve(nil, shareConn(Props{"share.acquisition.lock.timeout.ms": bad}))
		var ce *ConfigError
		require.ErrorAs(t, err, &ce, bad)
		assert.Equal(t, KeyAcquisitionLockTimeoutMs, ce.Key)
		assert.Contains(t, ce.Error(), "share.record.lock.duration.ms", "the message names the real key")
	}
	cfg, err := Resolve(nil, Props{"name": "c", "topics": "t", "share.acquisition.lock.timeout.ms": "20000"})
	require.NoError(t, err)
	assert.Empty(t, cfg.GroupConfigs)
	require.NotEmpty(t, cfg.Warnings)
	assert.Contains(t, cfg.Warnings[len(cfg.Warnings)-1], "holds no acquisition locks")
}
