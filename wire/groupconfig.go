package wire

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// Group configs (ConfigResource type GROUP, KIP-848/932/1071): what
// IncrementalAlterConfigs sets and DescribeConfigs reads. Kafka keeps them
// as strings in the cluster metadata; so does groupConfigs, the one copy
// of the cluster, from which each alteration builds the coordinators'
// coordinator.GroupConfig and the share plane's sharebroker.GroupConfig.
// Validation is trunk's GroupConfig.validate: the names, then ConfigDef's
// parse in definition order, then validateValues' ranges in its order.

// configType is a ConfigDef type, with DescribeConfigs' ConfigType id.
type configType int8

const (
	configBoolean configType = 1
	configString  configType = 2
	configInt     configType = 3
)

// groupConfigKey is one GroupConfig key this endpoint acts on.
type groupConfigKey struct {
	name string
	typ  configType
	// min is ConfigDef's atLeast for an int key.
	min int64
	// validate is a string key's ConfigDef validator: the reason after
	// "Invalid value V for configuration K: ", or "".
	validate func(v string) string
	// synonym is the broker key whose value a group without the key
	// takes (GroupConfig.ALL_GROUP_CONFIG_SYNONYMS), "" when none.
	synonym string
}

// groupConfigKeys are the keys served, in GroupConfig.CONFIG_DEF's order
// (the order ConfigDef.parse reports the first bad value in).
var groupConfigKeys = []groupConfigKey{
	{name: "consumer.session.timeout.ms", typ: configInt, min: 1, synonym: "group.consumer.session.timeout.ms"},
	{name: "consumer.heartbeat.interval.ms", typ: configInt, min: 1, synonym: "group.consumer.heartbeat.interval.ms"},
	{name: "share.session.timeout.ms", typ: configInt, min: 1, synonym: "group.share.session.timeout.ms"},
	{name: "share.heartbeat.interval.ms", typ: configInt, min: 1, synonym: "group.share.heartbeat.interval.ms"},
	{name: "share.record.lock.duration.ms", typ: configInt, min: 1000, synonym: "group.share.record.lock.duration.ms"},
	{name: "share.delivery.count.limit", typ: configInt, min: 2, synonym: "group.share.delivery.count.limit"},
	{name: "share.partition.max.record.locks", typ: configInt, min: 100, synonym: "group.share.partition.max.record.locks"},
	{name: "share.auto.offset.reset", typ: configString, validate: validateShareAutoOffsetReset},
	{name: "share.isolation.level", typ: configString, validate: validateIsolationLevel},
	{name: "share.renew.acknowledge.enable", typ: configBoolean},
	{name: "streams.session.timeout.ms", typ: configInt, min: 1, synonym: "group.streams.session.timeout.ms"},
	{name: "streams.heartbeat.interval.ms", typ: configInt, min: 1, synonym: "group.streams.heartbeat.interval.ms"},
	{name: "streams.num.standby.replicas", typ: configInt, min: 0, synonym: "group.streams.num.standby.replicas"},
	{name: "streams.initial.rebalance.delay.ms", typ: configInt, min: 0, synonym: "group.streams.initial.rebalance.delay.ms"},
}

// unmodelledGroupConfigKeys are trunk's other GroupConfig keys: coordsim
// has no assignment interval, assignor offloading, task offsets, warm-up
// replicas or acceptable recovery lag, so setting one is INVALID_CONFIG
// rather than a silent no-op. The share dead-letter queue is modelled by
// sharebroker (GroupConfig.DLQTopic) but not on the wire: sharebroker
// counts the dead-letter records into its mirror of the topic's log, which
// the data plane would then no longer match (sharePlane.appended panics on
// the next produce to that topic), and the data plane has no records to
// serve for them; errors.deadletterqueue.copy.record.enable has no setting
// anywhere.
var unmodelledGroupConfigKeys = []string{
	"consumer.assignment.interval.ms", "consumer.assignor.offload.enable",
	"share.assignment.interval.ms", "share.assignor.offload.enable",
	"streams.assignment.interval.ms", "streams.assignor.offload.enable",
	"streams.task.offset.interval.ms", "streams.num.warmup.replicas", "streams.acceptable.recovery.lag",
	"errors.deadletterqueue.topic.name", "errors.deadletterqueue.copy.record.enable",
}

func groupConfigKeyOf(name string) (groupConfigKey, bool) {
	for _, k := range groupConfigKeys {
		if k.name == name {
			return k, true
		}
	}
	return groupConfigKey{}, false
}

// Kafka's broker ranges for the share keys (ShareGroupConfig's
// group.share.min/max.* defaults, which sharebroker enforces too).
var shareKeyRanges = map[string][2]int64{
	"share.record.lock.duration.ms":    {sharebroker.GroupRecordLockDurationMin, sharebroker.GroupRecordLockDurationMax},
	"share.delivery.count.limit":       {int64(sharebroker.GroupDeliveryCountLimitMin), int64(sharebroker.GroupDeliveryCountLimitMax)},
	"share.partition.max.record.locks": {sharebroker.GroupMaxRecordLocksMin, sharebroker.GroupMaxRecordLocksMax},
}

func validateIsolationLevel(v string) string {
	if v == "read_committed" || v == "read_uncommitted" {
		return ""
	}
	return "String must be one of: read_committed, read_uncommitted"
}

// validateShareAutoOffsetReset is ShareGroupAutoOffsetResetStrategy.Validator.
func validateShareAutoOffsetReset(v string) string {
	if _, _, err := parseShareAutoOffsetReset(v); err != nil {
		return "Invalid value `" + v + "` for configuration share.auto.offset.reset. " +
			"The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS.>'."
	}
	return ""
}

// SetShareAutoOffsetReset sets the share.auto.offset.reset of every share
// group without its own (the endpoint's default; Kafka has no broker key
// for it and always uses latest): latest, earliest or
// by_duration:<ISO-8601 duration>, validated as the group config is. A
// bad value is INVALID_CONFIG with Kafka's message and changes nothing.
func (c *Config) SetShareAutoOffsetReset(v string) error {
	if reason := validateShareAutoOffsetReset(v); reason != "" {
		return configError("Invalid value %s for configuration share.auto.offset.reset: %s", v, reason)
	}
	reset, d, _ := parseShareAutoOffsetReset(v) // validated above
	durationMs := int64(0)
	if reset == share.ResetByDuration {
		// As a group's by_duration: below a millisecond is latest.
		if durationMs = d.Milliseconds(); durationMs <= 0 {
			reset, durationMs = share.ResetLatest, 0
		}
	}
	c.Share.Defaults.AutoOffsetReset, c.Share.Defaults.AutoOffsetResetDurationMs = reset, durationMs
	return nil
}

// parseShareAutoOffsetReset is ShareGroupAutoOffsetResetStrategy.fromString:
// earliest, latest or by_duration:<ISO-8601 duration, not negative>.
func parseShareAutoOffsetReset(v string) (share.AutoOffsetReset, time.Duration, error) {
	switch {
	case v == "earliest":
		return share.ResetEarliest, 0, nil
	case v == "latest":
		return share.ResetLatest, 0, nil
	case strings.HasPrefix(v, "by_duration:"):
		d, err := parseISODuration(strings.TrimPrefix(v, "by_duration:"))
		if err != nil || d < 0 {
			return 0, 0, fmt.Errorf("unable to parse duration string in by_duration offset reset strategy")
		}
		return share.ResetByDuration, d, nil
	}
	return 0, 0, fmt.Errorf("unknown auto offset reset strategy: %s", v)
}

// maxISODuration bounds a parsed duration (Go's time.Duration holds about
// 292 years; Java's Duration more, but no reset reaches that far back).
const maxISODuration = 100 * 365 * 24 * time.Hour

// parseISODuration parses java.time.Duration.parse's format,
// [-+]PnDTnHnMn.nS (case-insensitive, each part optionally signed, at
// least one part, a fraction on seconds only).
func parseISODuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("text cannot be parsed to a Duration: %q", s)
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) < 2 || (s[0] != 'P' && s[0] != 'p') {
		return 0, bad
	}
	s = s[1:]
	var total time.Duration
	parts := 0
	add := func(n string, unit time.Duration, frac bool) error {
		sign := time.Duration(1)
		if n != "" && (n[0] == '-' || n[0] == '+') {
			if n[0] == '-' {
				sign = -1
			}
			n = n[1:]
		}
		whole, fraction, hasFrac := strings.Cut(n, ".")
		if whole == "" || (hasFrac && (!frac || fraction == "" || len(fraction) > 9)) {
			return bad
		}
		w, err := strconv.ParseUint(whole, 10, 63)
		if err != nil || time.Duration(w) > maxISODuration/unit {
			return bad
		}
		v := time.Duration(w) * unit
		if hasFrac {
			f, err := strconv.ParseUint(fraction+strings.Repeat("0", 9-len(fraction)), 10, 63)
			if err != nil {
				return bad
			}
			v += time.Duration(f)
		}
		total += sign * v
		if total > maxISODuration || total < -maxISODuration {
			return bad
		}
		parts++
		return nil
	}
	date, clock, hasT := strings.Cut(s, "T")
	if !hasT {
		date, clock, hasT = strings.Cut(s, "t")
	}
	if date != "" {
		n, ok := strings.CutSuffix(strings.ToUpper(date), "D")
		if !ok || add(n, 24*time.Hour, false) != nil {
			return 0, bad
		}
	}
	if hasT {
		if clock == "" {
			return 0, bad
		}
		rest := strings.ToUpper(clock)
		for _, u := range []struct {
			suffix string
			unit   time.Duration
			frac   bool
		}{{"H", time.Hour, false}, {"M", time.Minute, false}, {"S", time.Second, true}} {
			i := strings.Index(rest, u.suffix)
			if i < 0 {
				continue
			}
			if add(rest[:i], u.unit, u.frac) != nil {
				return 0, bad
			}
			rest = rest[i+1:]
		}
		if rest != "" {
			return 0, bad
		}
	}
	if parts == 0 {
		return 0, bad
	}
	if neg {
		total = -total
	}
	return total, nil
}

// parsedGroupConfig is one group's validated config, as the coordinators
// and the share plane take it.
type parsedGroupConfig struct {
	coord coordinator.GroupConfig
	share sharebroker.GroupConfig
}

// configError is INVALID_CONFIG with a ConfigException's message.
func configError(format string, args ...any) error {
	return kerr.InvalidConfig.WithMessage(format, args...)
}

// parseGroupConfig is GroupConfigManager.validate (GroupConfig.validate)
// on a group's whole new config, then its translation.
func (cl *Cluster) parseGroupConfig(props map[string]string) (parsedGroupConfig, error) {
	var out parsedGroupConfig
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	// GroupConfig.validateNames first: a name that is no Kafka group
	// config is Kafka's error whatever else the config holds; then a Kafka
	// key this endpoint does not act on is refused rather than ignored.
	for _, name := range names {
		if _, ok := groupConfigKeyOf(name); !ok && !slices.Contains(unmodelledGroupConfigKeys, name) {
			return out, configError("Unknown group config name: %s", name)
		}
	}
	for _, name := range names {
		if slices.Contains(unmodelledGroupConfigKeys, name) {
			return out, configError("Group config %s is not modelled by coordsim.", name)
		}
	}
	ints := map[string]int64{}
	for _, k := range groupConfigKeys {
		raw, ok := props[k.name]
		if !ok {
			continue
		}
		v := strings.TrimSpace(raw)
		switch k.typ {
		case configInt:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return out, configError("Invalid value %s for configuration %s: Not a number of type INT", raw, k.name)
			}
			if n < k.min {
				return out, configError("Invalid value %d for configuration %s: Value must be at least %d", n, k.name, k.min)
			}
			ints[k.name] = n
		case configBoolean:
			if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
				return out, configError("Invalid value %s for configuration %s: Expected value to be either true or false", raw, k.name)
			}
			out.share.RenewDisabled = strings.EqualFold(v, "false")
		case configString:
			if reason := k.validate(v); reason != "" {
				return out, configError("Invalid value %s for configuration %s: %s", v, k.name, reason)
			}
		}
	}
	if err := cl.checkGroupConfigRanges(ints); err != nil {
		return out, err
	}
	i32 := func(name string) *int32 {
		n, ok := ints[name]
		if !ok {
			return nil
		}
		v := int32(n)
		return &v
	}
	out.coord = coordinator.GroupConfig{
		ConsumerSessionTimeoutMs: i32("consumer.session.timeout.ms"), ConsumerHeartbeatIntervalMs: i32("consumer.heartbeat.interval.ms"),
		ShareSessionTimeoutMs: i32("share.session.timeout.ms"), ShareHeartbeatIntervalMs: i32("share.heartbeat.interval.ms"),
		StreamsSessionTimeoutMs: i32("streams.session.timeout.ms"), StreamsHeartbeatIntervalMs: i32("streams.heartbeat.interval.ms"),
		StreamsNumStandbyReplicas: i32("streams.num.standby.replicas"), StreamsInitialRebalanceDelayMs: i32("streams.initial.rebalance.delay.ms"),
	}
	out.share.RecordLockDurationMs = ints["share.record.lock.duration.ms"]
	out.share.MaxDeliveryCount = int32(ints["share.delivery.count.limit"])
	out.share.MaxRecordLocks = ints["share.partition.max.record.locks"]
	if v, ok := props["share.auto.offset.reset"]; ok {
		reset, d, _ := parseShareAutoOffsetReset(strings.TrimSpace(v)) // validated above
		out.share.AutoOffsetReset, out.share.AutoOffsetResetSet = reset, true
		if reset == share.ResetByDuration {
			// share needs a positive duration; by_duration:PT0S (or below
			// a millisecond) starts at the first record stamped from now
			// on, which is latest.
			if ms := d.Milliseconds(); ms > 0 {
				out.share.AutoOffsetResetDurationMs = ms
			} else {
				out.share.AutoOffsetReset = share.ResetLatest
			}
		}
	}
	return out, nil
}

// checkGroupConfigRanges is GroupConfig.validateValues: each key set
// within the broker's range, in trunk's order, then each session timeout
// above its heartbeat interval when either is set.
func (cl *Cluster) checkGroupConfigRanges(ints map[string]int64) error {
	cc := cl.cfg.Coordinator
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	type rng struct {
		key      string
		min, max int64
	}
	shareRange := func(key string) rng { r := shareKeyRanges[key]; return rng{key, r[0], r[1]} }
	for _, r := range []rng{
		{"consumer.heartbeat.interval.ms", ms(cc.ConsumerMinHeartbeatInterval), ms(cc.ConsumerMaxHeartbeatInterval)},
		{"consumer.session.timeout.ms", ms(cc.ConsumerMinSessionTimeout), ms(cc.ConsumerMaxSessionTimeout)},
		{"share.heartbeat.interval.ms", ms(cc.ShareMinHeartbeatInterval), ms(cc.ShareMaxHeartbeatInterval)},
		{"share.session.timeout.ms", ms(cc.ShareMinSessionTimeout), ms(cc.ShareMaxSessionTimeout)},
		shareRange("share.record.lock.duration.ms"),
		shareRange("share.delivery.count.limit"),
		shareRange("share.partition.max.record.locks"),
		{"streams.heartbeat.interval.ms", ms(cc.StreamsMinHeartbeatInterval), ms(cc.StreamsMaxHeartbeatInterval)},
		{"streams.session.timeout.ms", ms(cc.StreamsMinSessionTimeout), ms(cc.StreamsMaxSessionTimeout)},
	} {
		if v, ok := ints[r.key]; ok && (v < r.min || v > r.max) {
			return configError("%s must be in the range %d to %d inclusive.", r.key, r.min, r.max)
		}
	}
	if v, ok := ints["streams.num.standby.replicas"]; ok && v > int64(cc.StreamsMaxStandbyReplicas) {
		return configError("streams.num.standby.replicas must be less than or equal to %d", cc.StreamsMaxStandbyReplicas)
	}
	for _, p := range []struct {
		session, heartbeat       string
		defSession, defHeartbeat time.Duration
	}{
		{"consumer.session.timeout.ms", "consumer.heartbeat.interval.ms", cc.ConsumerSessionTimeout, cc.ConsumerHeartbeatInterval},
		{"share.session.timeout.ms", "share.heartbeat.interval.ms", cc.ShareSessionTimeout, cc.ShareHeartbeatInterval},
		{"streams.session.timeout.ms", "streams.heartbeat.interval.ms", cc.StreamsSessionTimeout, cc.StreamsHeartbeatInterval},
	} {
		s, sok := ints[p.session]
		h, hok := ints[p.heartbeat]
		if !sok && !hok {
			continue
		}
		if !sok {
			s = ms(p.defSession)
		}
		if !hok {
			h = ms(p.defHeartbeat)
		}
		if s <= h {
			return configError("%s must be greater than %s", p.session, p.heartbeat)
		}
	}
	return nil
}

// groupConfigStore is the cluster's group configs: group id → key → the
// value as set. mu also orders alterations, so the coordinators and the
// share plane see them in one order.
type groupConfigStore struct {
	mu      sync.Mutex
	configs map[string]map[string]string
}

// maxGroupConfigs bounds the groups with a config (the coordinator's and
// sharebroker's own bounds are higher).
const maxGroupConfigs = 10_000

// get returns a copy of a group's config.
func (s *groupConfigStore) get(group string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.configs[group]))
	for k, v := range s.configs[group] {
		out[k] = v
	}
	return out
}

// groups lists the groups with a config, sorted.
func (s *groupConfigStore) groups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.configs))
	for g := range s.configs {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// alterGroupConfig validates a group's new config and, unless
// validateOnly, installs it on every broker's coordinator and on the share
// plane, then keeps it. change maps the current config to the new one (it
// runs under the store's lock, so alterations do not interleave).
func (cl *Cluster) alterGroupConfig(ctx context.Context, group string, validateOnly bool, change func(cur map[string]string) (map[string]string, error)) error {
	s := &cl.groupConfigs
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := make(map[string]string, len(s.configs[group]))
	for k, v := range s.configs[group] {
		cur[k] = v
	}
	next, err := change(cur)
	if err != nil {
		return err
	}
	parsed, err := cl.parseGroupConfig(next)
	if err != nil {
		return err
	}
	if _, ok := s.configs[group]; !ok && len(next) > 0 && len(s.configs) >= maxGroupConfigs {
		return configError("at most %d groups may have a group config", maxGroupConfigs)
	}
	if validateOnly {
		return nil
	}
	for _, b := range cl.brokers {
		var setErr error
		if err := b.driver.Do(ctx, func(c *coordinator.Coordinator) { setErr = c.SetGroupConfig(group, parsed.coord) }); err != nil {
			return err
		}
		if setErr != nil {
			// Validated above with the same bounds: a refusal here is a bug
			// between the two validations, and brokers may now disagree.
			cl.log.Error("a coordinator refused a validated group config", "broker", b.node, "group", group, "err", setErr)
			return setErr
		}
	}
	var shareErr error
	cl.share.with(func(b *sharebroker.Broker, _ int64) { shareErr = b.SetGroupConfig(group, parsed.share) })
	if shareErr != nil {
		cl.log.Error("the share plane refused a validated group config", "group", group, "err", shareErr)
		return shareErr
	}
	if s.configs == nil {
		s.configs = map[string]map[string]string{}
	}
	if len(next) == 0 {
		delete(s.configs, group)
	} else {
		s.configs[group] = next
	}
	return nil
}

// groupConfigDefault is the value a group without key k takes, as
// DescribeConfigs shows it: the broker's (extractGroupConfigMap).
func (cl *Cluster) groupConfigDefault(k groupConfigKey) string {
	cc := cl.cfg.Coordinator
	sd := cl.cfg.Share.Defaults
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	or := func(v, def int64) string {
		if v == 0 {
			v = def
		}
		return strconv.FormatInt(v, 10)
	}
	switch k.name {
	case "consumer.session.timeout.ms":
		return ms(cc.ConsumerSessionTimeout)
	case "consumer.heartbeat.interval.ms":
		return ms(cc.ConsumerHeartbeatInterval)
	case "share.session.timeout.ms":
		return ms(cc.ShareSessionTimeout)
	case "share.heartbeat.interval.ms":
		return ms(cc.ShareHeartbeatInterval)
	case "share.record.lock.duration.ms":
		return or(sd.RecordLockDurationMs, share.DefaultRecordLockDurationMs)
	case "share.delivery.count.limit":
		return or(int64(sd.MaxDeliveryCount), int64(share.DefaultMaxDeliveryCount))
	case "share.partition.max.record.locks":
		return or(sd.MaxInFlightRecords, share.DefaultMaxInFlightRecords)
	case "share.auto.offset.reset":
		switch sd.AutoOffsetReset {
		case share.ResetEarliest:
			return "earliest"
		case share.ResetByDuration:
			return "by_duration:" + javaDuration(sd.AutoOffsetResetDurationMs)
		}
		return "latest"
	case "share.isolation.level":
		return "read_uncommitted"
	case "share.renew.acknowledge.enable":
		return strconv.FormatBool(!sd.RenewDisabled)
	case "streams.session.timeout.ms":
		return ms(cc.StreamsSessionTimeout)
	case "streams.heartbeat.interval.ms":
		return ms(cc.StreamsHeartbeatInterval)
	case "streams.num.standby.replicas":
		return strconv.Itoa(cc.StreamsNumStandbyReplicas)
	case "streams.initial.rebalance.delay.ms":
		return ms(cc.StreamsInitialRebalanceDelay)
	}
	return ""
}

// javaDuration is java.time.Duration.toString of a positive number of
// milliseconds: PT, then hours, minutes and seconds (with the
// milliseconds as a fraction, trailing zeros dropped), each only when not
// zero; days count as hours, as Java prints them.
func javaDuration(ms int64) string {
	if ms <= 0 {
		return "PT0S"
	}
	h, m, sec, frac := ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000
	out := "PT"
	if h > 0 {
		out += strconv.FormatInt(h, 10) + "H"
	}
	if m > 0 {
		out += strconv.FormatInt(m, 10) + "M"
	}
	if sec > 0 || frac > 0 {
		out += strconv.FormatInt(sec, 10)
		if frac > 0 {
			out += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
		}
		out += "S"
	}
	return out
}

// normalizeGroupConfigValue is the value as DescribeConfigs shows a set
// key: ConfigDef.convertToString of the parsed value.
func normalizeGroupConfigValue(k groupConfigKey, raw string) string {
	v := strings.TrimSpace(raw)
	switch k.typ {
	case configInt:
		if n, err := strconv.ParseInt(v, 10, 32); err == nil {
			return strconv.FormatInt(n, 10)
		}
	case configBoolean:
		return strings.ToLower(v)
	}
	return v
}
