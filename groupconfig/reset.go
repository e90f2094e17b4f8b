package groupconfig

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

// ValidateShareAutoOffsetReset is ShareGroupAutoOffsetResetStrategy's
// Validator: the reason after "Invalid value V for configuration K: ", or
// "" when v is earliest, latest or by_duration:<ISO-8601 duration, not
// negative>.
func ValidateShareAutoOffsetReset(v string) string {
	if _, _, err := ParseShareAutoOffsetReset(v); err != nil {
		return "Invalid value `" + v + "` for configuration " + ShareAutoOffsetReset + ". " +
			"The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS.>'."
	}
	return ""
}

// ParseShareAutoOffsetReset is ShareGroupAutoOffsetResetStrategy.fromString
// (AutoOffsetResetStrategy.fromString underneath): exactly earliest or
// latest (case-sensitive, as Kafka's enumOptions match), or by_duration:
// followed by a duration Java's Duration.parse reads that is not
// negative. durationMs is 0 unless the strategy is by_duration.
func ParseShareAutoOffsetReset(v string) (strategy share.AutoOffsetReset, durationMs int64, err error) {
	switch {
	case v == "earliest":
		return share.ResetEarliest, 0, nil
	case v == "latest":
		return share.ResetLatest, 0, nil
	case strings.HasPrefix(v, "by_duration:"):
		ms, err := ParseISODurationMs(strings.TrimPrefix(v, "by_duration:"))
		if err != nil {
			return 0, 0, fmt.Errorf("unable to parse duration string in by_duration offset reset strategy: %w", err)
		}
		return share.ResetByDuration, ms, nil
	}
	return 0, 0, fmt.Errorf("unknown auto offset reset strategy: %s", v)
}

// ShareResetConfig is one share.auto.offset.reset value checked as Parse
// checks the key (ValidateShareAutoOffsetReset, INVALID_CONFIG with
// Kafka's message) and, when valid, in the form package share takes
// (ShareReset). It serves a default set outside a group's config, such as
// an endpoint's.
func ShareResetConfig(v string) (strategy share.AutoOffsetReset, durationMs int64, err error) {
	if reason := ValidateShareAutoOffsetReset(v); reason != "" {
		return 0, 0, invalidValue(v, ShareAutoOffsetReset, reason)
	}
	return ShareReset(v)
}

// ShareReset is a valid share.auto.offset.reset in the form package share
// takes: a by_duration below one millisecond starts at the first record
// stamped from now on, which is latest (share needs a positive duration).
func ShareReset(v string) (strategy share.AutoOffsetReset, durationMs int64, err error) {
	strategy, durationMs, err = ParseShareAutoOffsetReset(v)
	if err == nil && strategy == share.ResetByDuration && durationMs <= 0 {
		strategy, durationMs = share.ResetLatest, 0
	}
	return strategy, durationMs, err
}

// isoDuration is java.time.Duration.parse's grammar (PnDTnHnMn.nS, signs
// allowed on the whole and on each part, case-insensitive, a fraction of
// up to nine digits on seconds only). A *regexp.Regexp is safe to share.
var isoDuration = regexp.MustCompile(`(?i)^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)

// ParseISODurationMs parses an ISO-8601 duration as Java's Duration.parse
// does and returns it in whole milliseconds (rounded down). It refuses
// what Kafka's by_duration refuses (a malformed or negative duration, a
// part overflowing Java's long seconds) and, beyond Kafka, a duration
// whose milliseconds overflow int64, which Kafka would only discover when
// it uses the value.
func ParseISODurationMs(iso string) (int64, error) {
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

// FormatDurationMs is java.time.Duration.toString of a number of
// milliseconds, not negative: PT, then hours, minutes and seconds (with
// the milliseconds as a fraction, trailing zeros dropped), each only when
// not zero; days count as hours, as Java prints them.
func FormatDurationMs(ms int64) string {
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
