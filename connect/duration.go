package connect

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/coordsim/coordsim/share"
)

// isoDuration is java.time.Duration.parse's grammar (PnDTnHnMn.nS, signs
// allowed on the whole and on each part, case-insensitive), which Kafka
// uses for by_duration. Compiled once; a *regexp.Regexp is safe to share.
var isoDuration = regexp.MustCompile(`(?i)^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)

// parseISODurationMs parses an ISO-8601 duration as Java's Duration.parse
// does and returns it in whole milliseconds (rounded down). It refuses what
// Kafka refuses (a malformed or negative duration, a part overflowing Java's
// long seconds) and, beyond Kafka, a duration whose milliseconds overflow
// int64, which Kafka would only discover when it uses the value.
func parseISODurationMs(iso string) (int64, error) {
	m := isoDuration.FindStringSubmatch(iso)
	// Java refuses "P" alone and a "T" with no time part.
	if m == nil || strings.EqualFold(m[3], "T") || (m[2] == "" && m[4] == "" && m[5] == "" && m[6] == "") {
		return 0, errors.New("not an ISO-8601 duration (PnDTnHnMn.nS)")
	}
	maxLong := big.NewInt(math.MaxInt64)
	minLong := big.NewInt(math.MinInt64)
	fits := func(x *big.Int) bool { return x.Cmp(minLong) >= 0 && x.Cmp(maxLong) <= 0 }
	seconds := new(big.Int)
	for _, part := range []struct {
		text  string
		scale int64
	}{{m[2], 86_400}, {m[4], 3_600}, {m[5], 60}, {m[6], 1}} {
		if part.text == "" {
			continue
		}
		n, err := strconv.ParseInt(part.text, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("duration part %s overflows a long", part.text)
		}
		term := new(big.Int).Mul(big.NewInt(n), big.NewInt(part.scale))
		seconds.Add(seconds, term)
		if !fits(term) || !fits(seconds) {
			return 0, errors.New("duration overflows a long number of seconds")
		}
	}
	nanos := new(big.Int)
	if frac := m[7]; frac != "" {
		n, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64) // at most 9 digits: cannot fail
		nanos.SetInt64(n)
		if strings.HasPrefix(m[6], "-") {
			nanos.Neg(nanos)
		}
	}
	total := new(big.Int).Mul(seconds, big.NewInt(1_000_000_000))
	total.Add(total, nanos)
	if m[1] == "-" {
		total.Neg(total)
	}
	if total.Sign() < 0 {
		return 0, errors.New("negative duration is not supported")
	}
	ms := total.Div(total, big.NewInt(1_000_000))
	if !fits(ms) {
		return 0, errors.New("duration overflows int64 milliseconds")
	}
	return ms.Int64(), nil
}

// ParseShareAutoOffsetReset turns a share.auto.offset.reset value (as
// Resolve puts in GroupConfigs, or as an operator sets it) into package
// share's form, so the simulator builds a share.Config without parsing
// ISO-8601 itself. durationMs is 0 unless the strategy is by_duration.
func ParseShareAutoOffsetReset(value string) (strategy share.AutoOffsetReset, durationMs int64, err error) {
	lower := strings.ToLower(value)
	switch {
	case lower == resetLatest:
		return share.ResetLatest, 0, nil
	case lower == resetEarliest:
		return share.ResetEarliest, 0, nil
	case strings.HasPrefix(lower, byDurationPrefix):
		ms, err := parseISODurationMs(value[len(byDurationPrefix):])
		if err != nil {
			return 0, 0, &ConfigError{Key: GroupConfigShareAutoOffsetReset, Value: value, Reason: err.Error()}
		}
		if ms < 1 {
			return 0, 0, &ConfigError{Key: GroupConfigShareAutoOffsetReset, Value: value, Reason: "by_duration must be at least 1 ms in the simulator"}
		}
		return share.ResetByDuration, ms, nil
	}
	return 0, 0, &ConfigError{Key: GroupConfigShareAutoOffsetReset, Value: value, Reason: "must be one of latest, earliest, by_duration:<ISO-8601 duration> (case-insensitive)"}
}
