package difftest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/shard"
)

// A reproduction file is a cockroachdb/datadriven file: a paragraph on the
// divergence, then one directive per op, "op <name>" with the op's JSON as
// input and Kafka's canonical outcome as the expected output. ReplayRepro
// runs each op on coordsim's shard only and compares with what Kafka
// answered, so a reproduction is a regression test that needs no Java.
// Never regenerate one with -rewrite (that would write coordsim's answers
// as Kafka's); the oracle writes them (WriteRepro).

// WriteRepro writes d's sequence to dir as a reproduction file and returns
// its path.
func WriteRepro(dir string, d Divergence) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	o, err := startedOracleOutcomes(d)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Divergence found by the differential runner (seed %d), reduced to %d ops.\n", d.Seed, len(d.Ops))
	fmt.Fprintf(&b, "# The last op diverges: Kafka answered what is below; coordsim answered\n#   %s\n", d.Ours.canonical())
	b.WriteString("# Expected outputs are Kafka 4.4's (the oracle's), never regenerate them with -rewrite.\n\n")
	for i, op := range d.Ops {
		fmt.Fprintf(&b, "op name=%s\n%s\n----\n%s\n\n", op.Name(), EncodeOp(op), o[i])
	}
	path := filepath.Join(dir, fmt.Sprintf("divergence-seed-%d-step-%d", d.Seed, d.Step))
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// startedOracleOutcomes is the Kafka outcome of every op of d. The runner
// compared each op before the last and found them equal, so coordsim's
// outcome stands for Kafka's there; the last is Kafka's own.
func startedOracleOutcomes(d Divergence) ([]string, error) {
	s, err := newOursOnly()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(d.Ops))
	for i, op := range d.Ops {
		out[i] = s.step(op).canonical()
	}
	out[len(out)-1] = d.Kafka.canonical()
	return out, nil
}

// ReplayRepro is the datadriven handler of reproduction files: it runs each
// op on a fresh coordsim shard (one per file) and returns coordsim's
// canonical outcome, which datadriven compares with Kafka's.
func ReplayRepro(path string) func(*datadriven.TestData) string {
	var s *oursOnly
	var legacy bool
	return func(td *datadriven.TestData) string {
		if s == nil {
			var cfg shard.Config
			var err error
			cfg, legacy, err = reproConfig(path)
			if err == nil {
				s, err = newOursOnlyWith(cfg)
			}
			if err != nil {
				return err.Error()
			}
		}
		if td.Cmd != "op" {
			return fmt.Sprintf("%s: unknown command %q", path, td.Cmd)
		}
		var name string
		for _, a := range td.CmdArgs {
			if a.Key == "name" && len(a.Vals) == 1 {
				name = a.Vals[0]
			}
		}
		op, err := DecodeOp(name, []byte(td.Input))
		if err != nil {
			return err.Error()
		}
		out := s.step(op)
		if legacy {
			dropAssignmentTimestamps(out.Records)
		}
		return out.canonical()
	}
}

// dropAssignmentTimestamps removes the assignmentTimestamp of the target
// assignment metadata records among records.
func dropAssignmentTimestamps(records []any) {
	for _, r := range records {
		if m, ok := r.(map[string]any); ok {
			if v, ok := m["value"].(map[string]any); ok {
				delete(v, "assignmentTimestamp")
			}
		}
	}
}

// intervalDirective is the header line of a reproduction recorded before
// the runner kept Kafka's default assignment interval (1 s) on both sides:
// "# assignment-interval-ms: 0". Those files were recorded at that
// interval, and while the runner dropped the targets' timestamps.
const intervalDirective = "# assignment-interval-ms: "

// reproConfig is the shard configuration a reproduction file replays with:
// DriverConfig, with the assignment intervals its header names; legacy
// says the header has the directive (its timestamps are not compared).
func reproConfig(path string) (cfg shard.Config, legacy bool, err error) {
	cfg = DriverConfig()
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, false, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		if v, ok := strings.CutPrefix(line, intervalDirective); ok {
			v, _, _ = strings.Cut(v, " ")
			ms, err := strconv.ParseInt(v, 10, 32)
			if err != nil || ms < 0 {
				return cfg, false, fmt.Errorf("%s: bad %q", path, line)
			}
			cfg.ConsumerAssignmentIntervalMs, cfg.ShareAssignmentIntervalMs, cfg.StreamsAssignmentIntervalMs = int32(ms), int32(ms), int32(ms)
			legacy = true
		}
	}
	return cfg, legacy, nil
}

// RecordRepro runs ops on a fresh oracle session and writes them to
// dir/name as a reproduction file whose expected outputs are all Kafka's:
// a hand-written regression sequence, checked against coordsim by
// TestRepros without Java. about is the file's opening paragraph.
func RecordRepro(o *Oracle, dir, name, about string, ops []Op) (string, error) {
	s, err := newSession(o)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(about), "\n") {
		fmt.Fprintf(&b, "# %s\n", line)
	}
	b.WriteString("# Expected outputs are Kafka 4.4's (the oracle's), never regenerate them with -rewrite.\n\n")
	for _, op := range ops {
		kafka, _, err := s.step(op)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "op name=%s\n%s\n----\n%s\n\n", op.Name(), EncodeOp(op), kafka.canonical())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}
