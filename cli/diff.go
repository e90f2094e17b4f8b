package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/coordsim/coordsim/internal/difftest"
)

// exitOracleUnavailable is diff's exit code when the Kafka oracle cannot
// run (no java or mvn, or the jar does not build): nothing was compared,
// which must never read as a pass.
const exitOracleUnavailable = 3

// diffCmd is `coordsim diff`: the differential run of coordsim's shard
// against Kafka's own GroupCoordinatorShard (docs/fidelity.md). It exits 0
// when every divergence is a known one, 1 on an unexplained divergence, 2
// on bad flags, and 3 when the oracle is unavailable.
func (a *app) diffCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 200, "sequences to run (`N` >= 1)")
	ops := fs.Int("ops", 200, "operations per sequence after its topic image (`M` >= 1)")
	first := fs.Uint64("first-seed", 1, "seed of the first sequence")
	repo := fs.String("repo", "", "repository root holding oracle/pom.xml (default: the nearest one above the working directory)")
	reproDir := fs.String("repro-dir", "", "write each unexplained divergence, reduced, as a datadriven file in `dir`")
	share := fs.Bool("share", false, "add share groups (heartbeats, describes, share-state initialisation)")
	regex := fs.Bool("regex", false, "add regular-expression subscriptions (resolved asynchronously, as Kafka does)")
	streams := fs.Bool("streams", false, "add a streams group (open divergences streams-configured-topology, streams-answers-differ, ...)")
	noClassic := fs.Bool("no-classic", false, "leave out the classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups) and online migration")
	verbose := fs.Bool("v", false, "print every divergence, known ones too")
	var skipKnown []string
	fs.Func("skip-known", "treat the known divergence `NAME` as unexplained, so its divergences are reduced and written out (repeatable)", func(v string) error {
		if err := difftest.CheckKnownNames([]string{v}); err != nil {
			return err
		}
		skipKnown = append(skipKnown, v)
		return nil
	})
	fs.Usage = func() {
		fs.SetOutput(stdout)
		defer fs.SetOutput(stderr)
		fmt.Fprint(stdout, "usage: coordsim diff [flags]\n\nRuns seeded operation sequences through coordsim's shard and through Kafka's own\ngroup coordinator (the oracle/ Maven module, built on demand with mvn) and compares\nwhat clients and the log observe. Exit codes: 0 no unexplained divergence, 1 an\nunexplained one, 2 bad flags, 3 the oracle cannot run (java or mvn missing).\n\n")
		fs.PrintDefaults()
	}
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *seeds < 1 || *ops < 1 {
		fmt.Fprintln(stderr, "coordsim diff: --seeds and --ops must be >= 1")
		return exitUsage
	}
	if a.checkOnly {
		return exitOK // the documents' examples are checked, not run
	}
	root := *repo
	if root == "" {
		var err error
		if root, err = findRepo(); err != nil {
			fmt.Fprintf(stderr, "coordsim diff: %v; pass --repo\n", err)
			return exitOracleUnavailable
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	jar, err := difftest.OracleJar(ctx, root)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim diff: NOT RUN: %v\n", err)
		return exitOracleUnavailable
	}
	o, err := difftest.StartOracle(ctx, jar)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim diff: NOT RUN: %v\n", err)
		return exitOracleUnavailable
	}
	defer func() { _ = o.Close() }()
	opts := difftest.Options{
		Seeds: *seeds, Ops: *ops, FirstSeed: *first, ReproDir: *reproDir, SkipKnown: skipKnown,
		Gen: difftest.GenConfig{Share: *share, Regex: *regex, Streams: *streams, NoClassic: *noClassic},
	}
	if *verbose {
		opts.Log = stdout
	}
	rep, err := difftest.Run(ctx, o, opts)
	if err != nil {
		fmt.Fprintf(stderr, "coordsim diff: %v\n", err)
		return exitOracleUnavailable
	}
	fmt.Fprintln(stdout, rep.Summary())
	unexplained := rep.Unexplained()
	for _, d := range unexplained {
		if !*verbose {
			fmt.Fprintln(stdout, d.String())
		}
	}
	for _, p := range rep.Repros {
		fmt.Fprintln(stdout, "reproduction:", p)
	}
	if len(unexplained) > 0 {
		return exitViolation
	}
	return exitOK
}

// findRepo walks up from the working directory to the directory holding
// oracle/pom.xml.
func findRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "oracle", "pom.xml")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no oracle/pom.xml in the working directory or above")
		}
		dir = parent
	}
}
