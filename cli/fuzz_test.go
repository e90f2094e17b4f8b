package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzArgs feeds run, replay and sweep arbitrary flags and values (the
// words of args), stopping after validation as the README test does
// (checkOnly), so nothing runs or is written. Whatever the words, parsing
// must not panic; it accepts (0) or refuses with a message (2), never
// anything else, and prints nothing on stdout. The fuzzer works in an empty
// directory and words holding a slash are skipped, so --scenario never
// names a file it could read (a device or a FIFO would block).
func FuzzArgs(f *testing.F) {
	for _, s := range []struct {
		cmd  uint8
		args string
	}{
		{0, "--scenario ci --duration 1h"},
		{0, "--scenario ci --seed 7 --faults heavy --duration 2h --json"},
		{0, "--swarm --seed 18446744073709551615 --groups 1000000"},
		{0, "--metrics-every 1s --metrics m.prom --protocol v1 --plugin=false"},
		{0, "--retention 0s --check-interval -1m --plugin-transient 1.5"},
		{1, "--scenario ci --seed 13 --stop-at 100000 --window 20 --group streams-000028"},
		{1, "--stop-at -1 --window 0"},
		{2, "--scenario ci --seeds 500 --require-marks tick-dropped,mark-skipped --shard 1/2"},
		{2, "--seeds 0 --parallel 2000 --shard 2/2 --start 0"},
		{2, "--merge --ignore-required-marks a b"},
		{2, "--shard -1/0 --require-marks nope --emit-scenario x --seed 1"},
		{0, "-h"},
		{1, "--brokers 0 --partitions 99999999999 --store bolt"},
	} {
		f.Add(s.cmd, s.args)
	}
	f.Chdir(f.TempDir())
	a := newApp()
	a.checkOnly = true
	f.Fuzz(func(t *testing.T, cmd uint8, words string) {
		args := []string{[]string{"run", "replay", "sweep"}[int(cmd)%3]}
		for _, w := range strings.Fields(words) {
			if strings.Contains(w, "/") && !strings.Contains(w, "-shard") && !isShardSpec(w) {
				return
			}
			args = append(args, w)
		}
		var out, errb bytes.Buffer
		code := a.run(args, &out, &errb)
		switch {
		case code != exitOK && code != exitUsage:
			t.Fatalf("%q: exit %d, want 0 or 2 (stderr %q)", args, code, errb.String())
		case code == exitUsage && errb.Len() == 0:
			t.Fatalf("%q: refused without a message", args)
		case out.Len() > 0 && !asksHelp(args):
			t.Fatalf("%q: printed %q on stdout while only checking", args, out.String())
		}
	})
}

// asksHelp reports whether args ask for the help (which goes to stdout).
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// isShardSpec reports whether w could be --shard's i/n (digits, a slash,
// digits, signs allowed): the one value with a slash FuzzArgs keeps.
func isShardSpec(w string) bool {
	i, n, ok := strings.Cut(w, "/")
	return ok && i != "" && n != "" && strings.Trim(i, "+-0123456789") == "" && strings.Trim(n, "+-0123456789") == ""
}

// FuzzMerge feeds `sweep --merge` an arbitrary file of sweep lines, the
// merge step's user input (files from other machines, possibly cut short
// or concatenated). It must not panic and must answer 0 or 1 with a
// summary, or 2 with a message; a line it accepts must be exactly one JSON
// value (a second value on the line would be a seed silently dropped), and
// accepted lines must decode again, unchanged, once re-encoded.
func FuzzMerge(f *testing.F) {
	line := `{"seed":1,"scenario":"ci","protocol":"v3","events":117933,"trace_hash":"0110440abc34c594","cycles":565,` +
		`"deletes_ok":44,"deletes_failed":8,"accepted_data_loss":0,"leaked_rows":0,"marks":{"tick-dropped":5},` +
		`"replay":"go run ./cmd/coordsim replay --scenario ci --seed 1","required_marks":["tick-dropped"]}`
	violated := `{"seed":2,"scenario":"ci","protocol":"v1","events":5,"trace_hash":"ff","cycles":0,"deletes_ok":0,` +
		`"deletes_failed":0,"accepted_data_loss":1,"leaked_rows":2,"marks":{},"violation":{"invariant":"6-liveness",` +
		`"step":3,"at_ms":4,"detail":"d","focus":["a"],"trace":[]},"replay":"r",` +
		`"sinks":[{"name":"s","lost":1,"lost_at_limit":2,"lost_rejected":3,"dead_lettered":4}]}`
	for _, s := range []string{
		line + "\n",
		line + "\n" + violated + "\n",
		line + "\n\n  \n" + strings.Replace(line, `"seed":1`, `"seed":3`, 1),
		line + "\n" + line + "\n",
		line + violated + "\n",
		`{"seed":1}` + "\n",
		strings.Replace(line, `"tick-dropped"]`, `"no-such-mark"]`, 1),
		strings.Replace(line, `"cycles"`, `"unknown"`, 1),
		"",
		"null\n[]\n",
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "in.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := mergeCmd([]string{path}, &out, &errb, nil)
		switch code {
		case exitOK, exitViolation:
			if !strings.Contains(out.String(), "sweep summary: ") {
				t.Fatalf("exit %d without a summary: %q", code, out.String())
			}
		case exitUsage:
			if errb.Len() == 0 {
				t.Fatalf("refused without a message")
			}
		default:
			t.Fatalf("exit %d, want 0, 1 or 2", code)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			l, err := decodeLine(sc.Bytes())
			if err != nil {
				continue
			}
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("accepted %q, which is not one JSON value", sc.Bytes())
			}
			enc, err := json.Marshal(l)
			if err != nil {
				t.Fatalf("re-encoding an accepted line: %v", err)
			}
			again, err := decodeLine(enc)
			if err != nil {
				t.Fatalf("the re-encoded line %s is refused: %v", enc, err)
			}
			if enc2, _ := json.Marshal(again); !bytes.Equal(enc, enc2) {
				t.Fatalf("a re-encoded line changes when decoded again:\n%s\n%s", enc, enc2)
			}
		}
	})
}

// FuzzServeArgs feeds serve's flag parsing arbitrary words. parseServe
// opens, binds and starts nothing (serve does that after it), so any
// words are safe: it must not panic, must accept (0) or refuse with a
// message (2), and an accepted configuration must be one wire.Start
// validates, listening where --listen said.
func FuzzServeArgs(f *testing.F) {
	for _, s := range []string{
		"",
		"--brokers 3 --partitions 50 --listen 127.0.0.1:0 --http 127.0.0.1:0",
		"--broker-racks a,b,c --store bolt --store-path x.db --protocol v2 --retention-bytes -1",
		"--broker-racks a,,c --brokers 2 --partitions 0 --log-level loud",
		"--consumer-session-timeout 2s --consumer-min-session-timeout 1s --consumer-heartbeat-interval 500ms",
		"--share-max-heartbeat-interval 1.5ms --streams-session-timeout 9999999h",
		"--share-auto-offset-reset by_duration:PT1H --listen :99999",
		"--share-auto-offset-reset by_duration:-P1D --protocol v4 -h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, words string) {
		var out, errb bytes.Buffer
		o, code, ok := parseServe(strings.Fields(words), &out, &errb)
		switch {
		case ok:
			if code != exitOK {
				t.Fatalf("accepted with exit %d", code)
			}
			if err := o.cfg.Validate(); err != nil {
				t.Fatalf("accepted a configuration wire refuses: %v", err)
			}
			if o.cfg.Listen != o.listen {
				t.Fatalf("--listen %q became %q", o.listen, o.cfg.Listen)
			}
		case code == exitOK:
			// -h: the help, on stdout.
			if !strings.Contains(out.String(), "usage: coordsim serve") {
				t.Fatalf("exit 0 without serving or the help: %q", out.String())
			}
		case code != exitUsage:
			t.Fatalf("exit %d, want 0 or 2", code)
		case errb.Len() == 0:
			t.Fatalf("refused without a message")
		}
	})
}
