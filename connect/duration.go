package connect

import (
	"strings"

	"github.com/coordsim/coordsim/groupconfig"
	"github.com/coordsim/coordsim/share"
)

// ParseShareAutoOffsetReset turns a share.auto.offset.reset value (as
// Resolve puts in GroupConfigs, or as an operator sets it) into package
// share's form, so the simulator builds a share.Config without parsing
// ISO-8601 itself. durationMs is 0 unless the strategy is by_duration.
// Beyond groupconfig's (Kafka's) rule it takes the strategy name in any
// case, as a connector's auto.offset.reset, and refuses a by_duration
// below one millisecond, which the simulator's clock cannot express.
func ParseShareAutoOffsetReset(value string) (strategy share.AutoOffsetReset, durationMs int64, err error) {
	lower := strings.ToLower(value)
	switch {
	case lower == resetLatest, lower == resetEarliest:
		strategy, durationMs, err = groupconfig.ParseShareAutoOffsetReset(lower)
	case strings.HasPrefix(lower, byDurationPrefix):
		strategy, durationMs, err = groupconfig.ParseShareAutoOffsetReset(byDurationPrefix + value[len(byDurationPrefix):])
		if err == nil && durationMs < 1 {
			return 0, 0, &ConfigError{Key: GroupConfigShareAutoOffsetReset, Value: value, Reason: "by_duration must be at least 1 ms in the simulator"}
		}
	default:
		return 0, 0, &ConfigError{Key: GroupConfigShareAutoOffsetReset, Value: value, Reason: "must be one of latest, earliest, by_duration:<ISO-8601 duration> (case-insensitive)"}
	}
	if err != nil {
		return 0, 0, &ConfigError{Key: GroupConfigShareAutoOffsetReset, Value: value, Reason: err.Error()}
	}
	return strategy, durationMs, nil
}
