package connect

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/coordsim/coordsim/groupconfig"
	"github.com/coordsim/coordsim/internal/enumname"
	"github.com/coordsim/coordsim/internal/topicname"
)

// Props is a flat Kafka-style property map (a worker file, a connector's
// JSON config, or a client's configs). Go's map order is random, so nothing
// in this package iterates a Props without sorting its keys first.
type Props map[string]string

// SortedKeys returns p's keys in ascending order: the only order in which
// a caller should iterate p when the result reaches an output.
func (p Props) SortedKeys() []string {
	return slices.Sorted(maps.Keys(p))
}

// SinkKind is which Connect task class runs a sink connector's tasks. The
// zero value is invalid so a SinkConfig that did not come from Resolve is
// caught.
type SinkKind int8

// The two sink task classes.
const (
	// ConsumerSink is WorkerSinkTask on a consumer group (group.protocol
	// classic or consumer, or absent).
	ConsumerSink SinkKind = iota + 1
	// ShareSink is KIP-1302's WorkerShareSinkTask on a share group
	// (group.protocol=share).
	ShareSink
)

var sinkKinds = enumname.New("SinkKind", ConsumerSink, "consumer", "share")

// String returns "consumer" or "share", the words a Connect log would use.
func (k SinkKind) String() string { return sinkKinds.String(k) }

func (k SinkKind) valid() bool { return k == ConsumerSink || k == ShareSink }

// Tolerance is Connect's errors.tolerance (KIP-298): whether a conversion
// or transformation failure kills the task or skips the record. The zero
// value is Kafka's default, none.
type Tolerance int8

// The errors.tolerance values.
const (
	// ToleranceNone fails the task on the first conversion failure.
	ToleranceNone Tolerance = iota
	// ToleranceAll skips failed records (reporting them to Connect's DLQ
	// when one is configured).
	ToleranceAll
)

var tolerances = enumname.New("Tolerance", ToleranceNone, "none", "all")

// String returns Kafka's spelling, "none" or "all".
func (t Tolerance) String() string { return tolerances.String(t) }

// Config keys, spelled as Kafka spells them, so a Kafka engineer can grep.
const (
	keyName            = "name"
	keyTopics          = "topics"
	keyTopicsRegex     = "topics.regex"
	keyTasksMax        = "tasks.max"
	keyErrorsTolerance = "errors.tolerance"
	keyDLQTopic        = "errors.deadletterqueue.topic.name"
	keyGroupID         = "group.id"
	keyGroupProtocol   = "group.protocol"
	keyAutoOffsetReset = "auto.offset.reset"
	keyAutoCommit      = "enable.auto.commit"
	keyAckMode         = "share.acknowledgement.mode"

	// GroupConfigShareAutoOffsetReset is the group-level config (KIP-932 §1.8)
	// a share sink sets to carry Connect's auto.offset.reset intent.
	GroupConfigShareAutoOffsetReset = "share.auto.offset.reset"
	// GroupConfigShareRecordLockDurationMs is the group-level lock duration
	// a share sink sets when the user tunes KIP-1302's
	// share.acquisition.lock.timeout.ms.
	GroupConfigShareRecordLockDurationMs = "share.record.lock.duration.ms"
	// KeyAcquisitionLockTimeoutMs is the key KIP-1302 tells users to tune.
	// No Kafka config has that name; Resolve maps it onto the group config
	// share.record.lock.duration.ms (§1.5), and never ignores it silently.
	KeyAcquisitionLockTimeoutMs = "share.acquisition.lock.timeout.ms"

	workerConsumerPrefix    = "consumer."
	connectorOverridePrefix = "consumer.override."
	groupIDPrefix           = "connect-"
	byDurationPrefix        = "by_duration:"
	ackModeExplicit         = "explicit"
	protocolClassic         = "classic"
	protocolConsumer        = "consumer"
	protocolShare           = "share"
	resetEarliest           = "earliest"
	resetLatest             = "latest"
	resetNone               = "none"
	defaultTasks            = 1
)

// Limits (TIGER_STYLE: a limit on everything).
const (
	// TasksMax bounds tasks.max. Connect itself only asks for ≥ 1; the
	// simulator runs every task as an actor and needs a ceiling.
	TasksMax = 1000
	// TopicsMax bounds how many topics one sink subscribes to.
	TopicsMax = 1000
)

// shareRejectedKeys returns, sorted, the consumer configs a
// KafkaShareConsumer refuses with "cannot be set when using a share group"
// (§1.12); a share sink strips them before building its consumer. It is a
// function, not a package variable, so nothing can mutate the list.
func shareRejectedKeys() []string {
	return []string{
		keyAutoOffsetReset,
		keyAutoCommit,
		"group.instance.id",
		keyGroupProtocol,
		"group.remote.assignor",
		"heartbeat.interval.ms",
		"interceptor.classes",
		"isolation.level",
		"partition.assignment.strategy",
		"session.timeout.ms",
	}
}

// strippedHint says, for a user-set key a share sink drops, what governs
// that concern on a share group instead. Keys missing here get no hint.
func strippedHint(key string) string {
	switch key {
	case keyAutoCommit:
		return "; explicit acknowledgements replace offset commits"
	case "group.instance.id":
		return "; share groups have no static membership"
	case "heartbeat.interval.ms":
		return "; the group config share.heartbeat.interval.ms governs it"
	case "session.timeout.ms":
		return "; the group config share.session.timeout.ms governs it"
	case "isolation.level":
		return "; the group config share.isolation.level governs it"
	case "partition.assignment.strategy", "group.remote.assignor":
		return "; the broker's group.share.assignors governs assignment"
	}
	return ""
}

// ConfigError is a rejected configuration value, worded like Kafka's
// ConfigException so a message reads the same as Connect's would. Resolve
// returns it for every bad input; match it with errors.As.
type ConfigError struct {
	// Key is the key as the caller wrote it, with its prefix
	// ("consumer.override.group.protocol"), because that is what to fix.
	Key string
	// Value is the rejected value ("" when Missing).
	Value string
	// Reason says what a valid value looks like.
	Reason string
	// Missing marks a required key that is absent; the message then reads
	// as Kafka's "Missing required configuration".
	Missing bool
}

// Error returns Kafka's ConfigException wording.
func (e *ConfigError) Error() string {
	if e.Missing {
		return fmt.Sprintf("Missing required configuration %q which has no default value.", e.Key)
	}
	msg := fmt.Sprintf("Invalid value %s for configuration %s", e.Value, e.Key)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// SinkConfig is a connector's resolved configuration: everything a sink
// task's actor needs to build its consumer and decide about records. Only
// Resolve makes valid ones.
type SinkConfig struct {
	// Name is the connector name.
	Name string
	// Kind is the task class: ConsumerSink or ShareSink.
	Kind SinkKind
	// GroupProtocol is the effective group.protocol, lower-cased:
	// "classic" (also when absent: the client default), "consumer" or
	// "share". It decides what the broker answers a colliding group.
	GroupProtocol string
	// GroupID is the effective group.id (connect-<name> unless a worker
	// consumer.group.id or connector consumer.override.group.id says
	// otherwise); equal to Consumer["group.id"].
	GroupID string
	// Topics are the connector's "topics": comma-separated entries, trimmed,
	// empty entries dropped, duplicates dropped keeping the first occurrence
	// and the given order (Connect's SinkConnectorConfig.parseTopicsList).
	Topics []string
	// Tasks is tasks.max.
	Tasks int
	// Consumer is the effective client configuration after layering and,
	// for share sinks, stripping and forcing explicit acknowledgement;
	// never nil.
	Consumer Props
	// Stripped are the keys removed from Consumer because a share consumer
	// rejects them (§1.12), sorted; empty for consumer sinks.
	Stripped []string
	// GroupConfigs are group-level configs to set with
	// incrementalAlterConfigs on the GROUP resource before the first task
	// starts; never nil, empty when Kafka's defaults already match.
	GroupConfigs Props
	// ErrorsTolerance is errors.tolerance.
	ErrorsTolerance Tolerance
	// DLQTopic is errors.deadletterqueue.topic.name, Connect's KIP-298 DLQ
	// ("" = none). It is not the broker's KIP-1191 DLQ.
	DLQTopic string
	// Warnings are configurations Resolve accepted but changed or ignored,
	// in a fixed order (connector keys, stripped keys sorted, the
	// acknowledgement mode, the lock timeout, the DLQ), for the simulator's
	// log.
	Warnings []string
	// OnFatalPut is what a share sink does when put() throws a fatal
	// exception. Resolve leaves KIP-1302's default (FatalPutReject); the
	// caller may choose FatalPutFailTask. Consumer sinks always fail.
	OnFatalPut FatalPutPolicy
	// OnRetriablePut and RetriablePutRetries are what a share sink does
	// when put() throws RetriableException: KIP-1302's RELEASE at once (the
	// default), or retry in the task with renewed locks (OnPutAttempt).
	OnRetriablePut      RetriablePutPolicy
	RetriablePutRetries int
}

// source is one layered client config value and the key it came from
// ("" for a Connect default).
type source struct {
	value string
	from  string
}

// Resolve layers and validates a sink connector's configuration the way
// Connect's Worker.baseConsumerConfigs and SinkConnectorConfig do, then
// prepares it for the chosen task class (§4.2). It reads only its inputs,
// never modifies them, and answers a *ConfigError for any bad value.
func Resolve(worker, connector Props) (SinkConfig, error) {
	cfg := SinkConfig{Consumer: Props{}, GroupConfigs: Props{}}

	name, ok := connector[keyName]
	if !ok {
		return SinkConfig{}, &ConfigError{Key: keyName, Missing: true}
	}
	if err := validateConnectorName(name); err != nil {
		return SinkConfig{}, err
	}
	cfg.Name = name

	topics, err := parseTopics(connector)
	if err != nil {
		return SinkConfig{}, err
	}
	cfg.Topics = topics

	if cfg.Tasks, err = parseTasks(connector); err != nil {
		return SinkConfig{}, err
	}
	if cfg.ErrorsTolerance, err = parseTolerance(connector); err != nil {
		return SinkConfig{}, err
	}
	if cfg.DLQTopic, err = parseDLQTopic(connector, topics); err != nil {
		return SinkConfig{}, err
	}
	if v, ok := connector[keyGroupID]; ok {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("connector %s=%s is ignored: Connect takes a sink's group id from consumer.override.group.id, else connect-<name>", keyGroupID, v))
	}

	eff, err := layer(name, worker, connector)
	if err != nil {
		return SinkConfig{}, err
	}
	if err := resolveProtocol(&cfg, eff); err != nil {
		return SinkConfig{}, err
	}
	gid := eff[keyGroupID]
	if gid.value == "" {
		return SinkConfig{}, &ConfigError{Key: gid.from, Value: gid.value, Reason: "a sink needs a non-empty group id"}
	}
	cfg.GroupID = gid.value

	reset := eff[keyAutoOffsetReset]
	groupReset, err := parseAutoOffsetReset(reset, cfg.Kind)
	if err != nil {
		return SinkConfig{}, err
	}

	lockTimeout, lockFrom := eff[KeyAcquisitionLockTimeoutMs], eff[KeyAcquisitionLockTimeoutMs].from
	if v, ok := connector[KeyAcquisitionLockTimeoutMs]; ok {
		lockTimeout, lockFrom = source{value: v, from: KeyAcquisitionLockTimeoutMs}, KeyAcquisitionLockTimeoutMs
	}
	delete(eff, KeyAcquisitionLockTimeoutMs) // no client knows it
	if cfg.Kind == ShareSink {
		shareVariant(&cfg, eff, groupReset)
		if lockFrom != "" {
			if err := mapLockTimeout(&cfg, lockTimeout); err != nil {
				return SinkConfig{}, err
			}
		}
	} else {
		for k, s := range eff {
			cfg.Consumer[k] = s.value
		}
		if lockFrom != "" {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s=%s ignored: a consumer-group sink holds no acquisition locks (on a share sink it would set the group config %s)",
				lockFrom, lockTimeout.value, GroupConfigShareRecordLockDurationMs))
		}
	}
	if cfg.DLQTopic != "" && cfg.ErrorsTolerance == ToleranceNone {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s=%s has no effect while %s=none: the first conversion failure fails the task", keyDLQTopic, cfg.DLQTopic, keyErrorsTolerance))
	}
	cfg.check()
	return cfg, nil
}

// layer builds the effective client configs: Connect's defaults, then the
// worker's consumer.* keys, then the connector's consumer.override.* keys
// (the default override policy All admits every key). Later layers win.
func layer(name string, worker, connector Props) (map[string]source, error) {
	eff := map[string]source{
		keyGroupID:         {value: groupIDPrefix + name},
		keyAutoCommit:      {value: "false"},
		keyAutoOffsetReset: {value: resetEarliest},
	}
	for _, layerProps := range []struct {
		props  Props
		prefix string
	}{{worker, workerConsumerPrefix}, {connector, connectorOverridePrefix}} {
		// Sorted so the first bad key reported is always the same one.
		for _, k := range layerProps.props.SortedKeys() {
			sub, ok := strings.CutPrefix(k, layerProps.prefix)
			if !ok {
				continue
			}
			if sub == "" {
				return nil, &ConfigError{Key: k, Value: layerProps.props[k], Reason: "the prefix names no client config"}
			}
			eff[sub] = source{value: layerProps.props[k], from: k}
		}
	}
	return eff, nil
}

// resolveProtocol reads the effective group.protocol into cfg.Kind and
// cfg.GroupProtocol. Kafka compares it case-insensitively and without
// trimming, and so do we.
func resolveProtocol(cfg *SinkConfig, eff map[string]source) error {
	p, ok := eff[keyGroupProtocol]
	if !ok {
		cfg.Kind, cfg.GroupProtocol = ConsumerSink, protocolClassic
		return nil
	}
	switch lower := strings.ToLower(p.value); lower {
	case protocolClassic, protocolConsumer:
		cfg.Kind, cfg.GroupProtocol = ConsumerSink, lower
	case protocolShare:
		cfg.Kind, cfg.GroupProtocol = ShareSink, lower
	default:
		return &ConfigError{Key: p.from, Value: p.value, Reason: "must be one of classic, consumer, share (case-insensitive)"}
	}
	return nil
}

// parseAutoOffsetReset validates auto.offset.reset as the consumer would
// (KIP-1106 values) and, for a share sink, returns the share.auto.offset.reset
// group config that carries the same intent ("" when Kafka's default,
// latest, already does). A share group has no "none" (§1.8), so a share
// sink refuses it rather than silently starting at latest.
func parseAutoOffsetReset(s source, kind SinkKind) (string, error) {
	lower := strings.ToLower(s.value)
	switch {
	case lower == resetEarliest:
		return resetEarliest, nil
	case lower == resetLatest:
		return "", nil
	case lower == resetNone:
		if kind == ShareSink {
			return "", &ConfigError{Key: s.from, Value: s.value, Reason: "a share sink cannot honour none: share.auto.offset.reset has only latest, earliest and by_duration; set earliest or latest"}
		}
		return "", nil
	case strings.HasPrefix(lower, byDurationPrefix):
		iso := s.value[len(byDurationPrefix):]
		ms, err := groupconfig.ParseISODurationMs(iso)
		if err != nil {
			return "", &ConfigError{Key: s.from, Value: s.value, Reason: err.Error()}
		}
		if kind == ShareSink && ms < 1 {
			return "", &ConfigError{Key: s.from, Value: s.value, Reason: "a share sink needs a by_duration of at least 1 ms (the simulator's clock counts milliseconds); use latest"}
		}
		return byDurationPrefix + iso, nil
	}
	return "", &ConfigError{Key: s.from, Value: s.value, Reason: "must be one of earliest, latest, none, by_duration:<ISO-8601 duration> (case-insensitive)"}
}

// shareVariant turns the layered configs into a KafkaShareConsumer's: it
// strips §1.12's rejected keys, forces explicit acknowledgement (each
// record is acknowledged by its outcome, §4.2) and moves the
// auto.offset.reset intent to a group config.
func shareVariant(cfg *SinkConfig, eff map[string]source, groupReset string) {
	rejected := shareRejectedKeys()
	for _, k := range rejected {
		s, ok := eff[k]
		if !ok {
			continue
		}
		cfg.Stripped = append(cfg.Stripped, k)
		// group.protocol selected this variant and auto.offset.reset moves
		// to GroupConfigs: dropping them loses nothing the user asked for.
		if s.from != "" && k != keyGroupProtocol && k != keyAutoOffsetReset {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s=%s dropped: a share consumer rejects it%s", s.from, s.value, strippedHint(k)))
		}
	}
	for k, s := range eff {
		if !slices.Contains(rejected, k) {
			cfg.Consumer[k] = s.value
		}
	}
	if s, ok := eff[keyAckMode]; ok && !strings.EqualFold(s.value, ackModeExplicit) {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s=%s overridden to explicit: a share sink acknowledges each record by its outcome", s.from, s.value))
	}
	cfg.Consumer[keyAckMode] = ackModeExplicit
	if groupReset != "" {
		cfg.GroupConfigs[GroupConfigShareAutoOffsetReset] = groupReset
	}
}

// mapLockTimeout maps KIP-1302's share.acquisition.lock.timeout.ms onto the
// knob Kafka has: the group config share.record.lock.duration.ms, set with
// the other group configs before the first task starts. A value Kafka would
// refuse for the group config is a ConfigError that names both keys.
func mapLockTimeout(cfg *SinkConfig, s source) error {
	ms, err := strconv.ParseInt(strings.TrimFunc(s.value, javaTrimmed), 10, 32)
	if err != nil || ms < groupconfig.ShareRecordLockDurationMinMs || ms > groupconfig.ShareRecordLockDurationMaxMs {
		return &ConfigError{Key: s.from, Value: s.value, Reason: fmt.Sprintf(
			"Kafka has no %s; it is mapped onto the group config %s, which must be an integer in [%d, %d] ms",
			KeyAcquisitionLockTimeoutMs, GroupConfigShareRecordLockDurationMs, groupconfig.ShareRecordLockDurationMinMs, groupconfig.ShareRecordLockDurationMaxMs)}
	}
	cfg.GroupConfigs[GroupConfigShareRecordLockDurationMs] = strconv.FormatInt(ms, 10)
	cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s=%s mapped onto the group config %s=%d: Kafka has no %s",
		s.from, s.value, GroupConfigShareRecordLockDurationMs, ms, KeyAcquisitionLockTimeoutMs))
	return nil
}

// validateConnectorName applies Connect's name validator (non-empty, no ISO
// control characters; blanks are legal, as in Kafka), since the name
// becomes the group id.
func validateConnectorName(name string) error {
	if name == "" {
		return &ConfigError{Key: keyName, Value: name, Reason: "String must be non-empty"}
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return &ConfigError{Key: keyName, Value: strconv.Quote(name), Reason: "String may not contain control sequences"}
	}
	return nil
}

// parseTopics parses "topics" as Connect's LIST type and parseTopicsList
// do. topics.regex is not modelled: the simulator subscribes by name.
func parseTopics(connector Props) ([]string, error) {
	if v, ok := connector[keyTopicsRegex]; ok {
		return nil, &ConfigError{Key: keyTopicsRegex, Value: v, Reason: "not modelled by the simulator; list the topics in topics"}
	}
	raw, ok := connector[keyTopics]
	if !ok {
		return nil, &ConfigError{Key: keyTopics, Missing: true}
	}
	var topics []string
	if trimmed := strings.TrimFunc(raw, javaTrimmed); trimmed != "" {
		for _, t := range strings.Split(trimmed, ",") {
			t = strings.TrimFunc(t, unicode.IsSpace)
			if t == "" || slices.Contains(topics, t) {
				continue
			}
			if reason := topicname.Problem(t); reason != "" {
				return nil, &ConfigError{Key: keyTopics, Value: raw, Reason: fmt.Sprintf("topic %q %s", t, reason)}
			}
			topics = append(topics, t)
			if len(topics) > TopicsMax {
				return nil, &ConfigError{Key: keyTopics, Value: raw, Reason: fmt.Sprintf("at most %d topics", TopicsMax)}
			}
		}
	}
	if len(topics) == 0 {
		return nil, &ConfigError{Key: keyTopics, Value: raw, Reason: "a sink connector needs at least one topic"}
	}
	return topics, nil
}

// javaTrimmed matches the characters Java's String.trim removes.
func javaTrimmed(r rune) bool { return r <= ' ' }

// parseTasks parses tasks.max as Connect's INT type (trimmed, 32-bit).
func parseTasks(connector Props) (int, error) {
	raw, ok := connector[keyTasksMax]
	if !ok {
		return defaultTasks, nil
	}
	n, err := strconv.ParseInt(strings.TrimFunc(raw, javaTrimmed), 10, 32)
	if err != nil {
		return 0, &ConfigError{Key: keyTasksMax, Value: raw, Reason: "Not a number of type INT"}
	}
	if n < 1 || n > TasksMax {
		return 0, &ConfigError{Key: keyTasksMax, Value: raw, Reason: fmt.Sprintf("must be in [1, %d]", TasksMax)}
	}
	return int(n), nil
}

// parseTolerance parses errors.tolerance, case-insensitive as Connect's
// ToleranceType; Connect does not trim STRING values, so neither do we.
func parseTolerance(connector Props) (Tolerance, error) {
	raw, ok := connector[keyErrorsTolerance]
	if !ok {
		return ToleranceNone, nil
	}
	switch strings.ToLower(raw) {
	case "none":
		return ToleranceNone, nil
	case "all":
		return ToleranceAll, nil
	}
	return 0, &ConfigError{Key: keyErrorsTolerance, Value: raw, Reason: "must be one of none, all (case-insensitive)"}
}

// parseDLQTopic validates errors.deadletterqueue.topic.name: a legal topic
// name that is not one of the sink's own topics (SinkConnectorConfig
// refuses that loop).
func parseDLQTopic(connector Props, topics []string) (string, error) {
	raw := connector[keyDLQTopic]
	t := strings.TrimFunc(raw, javaTrimmed)
	if t == "" {
		return "", nil
	}
	if reason := topicname.Problem(t); reason != "" {
		return "", &ConfigError{Key: keyDLQTopic, Value: raw, Reason: "topic " + reason}
	}
	if slices.Contains(topics, t) {
		return "", &ConfigError{Key: keyDLQTopic, Value: raw, Reason: "the DLQ topic may not be one of the topics the connector consumes"}
	}
	return t, nil
}

// check asserts what Resolve promises, where it is written (TIGER_STYLE);
// a failure is a bug in this package.
func (c SinkConfig) check() {
	invariant(c.Kind.valid(), "resolved kind is valid")
	invariant(c.Consumer != nil && c.GroupConfigs != nil, "Consumer and GroupConfigs are never nil")
	invariant(c.GroupID != "" && c.Consumer[keyGroupID] == c.GroupID, "GroupID is the consumer's group.id")
	invariant(len(c.Topics) > 0 && c.Tasks >= 1 && c.Tasks <= TasksMax, "topics and tasks in range")
	invariant(slices.IsSorted(c.Stripped), "Stripped is sorted")
	if c.Kind == ShareSink {
		for _, k := range shareRejectedKeys() {
			_, present := c.Consumer[k]
			invariant(!present, "a share consumer holds no rejected key")
		}
		invariant(c.Consumer[keyAckMode] == ackModeExplicit, "a share consumer acknowledges explicitly")
	} else {
		invariant(len(c.Stripped) == 0 && len(c.GroupConfigs) == 0, "a consumer sink strips nothing and sets no group config")
	}
}

// invariant panics when cond is false: it guards properties only a bug in
// this package can break, never bad input (that is a *ConfigError).
func invariant(cond bool, msg string) {
	if !cond {
		panic("connect: invariant violated: " + msg)
	}
}
