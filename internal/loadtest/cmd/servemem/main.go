// Command servemem measures the memory of coordsim's wire endpoint under
// a long, constant load: it starts a wire.Cluster as `coordsim serve` does
// (in this process, on loopback), drives it with internal/loadtest's
// producers and consumer group, samples VmRSS and runtime.MemStats every
// --every, and prints the samples as a table and RSS's growth after
// --warmup. RSS covers the clients too: they keep no per-record state, so
// what grows is the endpoint's.
//
//	go run ./internal/loadtest/cmd/servemem --duration 30m --every 1m
//
// Ctrl-C ends the sampling early, and only the sampling: the producers
// stop sending, the records in flight finish (for up to --drain), the
// group consumes what was acknowledged, and the table is printed as at the
// end of --duration. A second Ctrl-C quits at once.
//
// Exit status 0 when no record failed and the group consumed every
// acknowledged record; 1 when a sample or a record failed, or the group
// fell short; 2 on a bad flag. Records still unanswered after --drain are
// reported as unfinished, not failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"time"

	"github.com/coordsim/coordsim/internal/loadtest"
	"github.com/coordsim/coordsim/wire"
)

func main() {
	interrupted, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(interrupted, stop, os.Args[1:], os.Stdout, os.Stderr))
}

// run measures until --duration or until interrupted ends; then it calls
// restore (which gives Ctrl-C back its default, quitting) and drains the
// load. Only the sampling watches interrupted: the cluster and the load
// run on their own context so that the records in flight can finish.
func run(interrupted context.Context, restore func(), args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("servemem", flag.ContinueOnError)
	fs.SetOutput(stderr)
	duration := fs.Duration("duration", 30*time.Minute, "how long the load runs")
	every := fs.Duration("every", time.Minute, "sampling interval")
	warmup := fs.Duration("warmup", 5*time.Minute, "growth is measured from the first sample at or after this (let the logs fill to the cap first)")
	brokers := fs.Int("brokers", 3, "brokers in the cluster")
	maxDataBytes := fs.Int64("max-data-bytes", 256<<20, "the endpoint's cap on all partitions' record bytes (serve --max-data-bytes)")
	retentionBytes := fs.Int64("retention-bytes", wire.DefaultRetentionBytes, "log.retention.bytes per partition (serve --retention-bytes)")
	partitions := fs.Int("partitions", 64, "partitions of the load's topic")
	producers := fs.Int("producers", 2, "producer clients")
	consumers := fs.Int("consumers", 3, "members of the consumer group")
	rate := fs.Int("rate", 2000, "records per second, all producers together")
	recordBytes := fs.Int("record-bytes", 1024, "bytes per record value")
	drain := fs.Duration("drain", 30*time.Second, "at the end, how long the records in flight get to be acknowledged and consumed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *every <= 0 || *duration < *every || *warmup < 0 || *drain <= 0 {
		fmt.Fprintln(stderr, "servemem: want 0 < --every <= --duration, --warmup >= 0 and --drain > 0")
		return 2
	}
	ctx := context.Background()

	cfg := wire.DefaultConfig()
	cfg.Brokers, cfg.MaxDataBytes, cfg.RetentionBytes = *brokers, *maxDataBytes, *retentionBytes
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, "servemem:", err)
		return 2
	}
	lcfg := loadtest.Config{
		Topic: "servemem", Partitions: int32(*partitions), Producers: *producers, Rate: *rate,
		RecordBytes: *recordBytes, Group: "servemem", Consumers: *consumers,
	}
	lcfg.Addrs = []string{"127.0.0.1:1"} // validated before the cluster starts
	if err := lcfg.Validate(); err != nil {
		fmt.Fprintln(stderr, "servemem:", err)
		return 2
	}
	cl, err := wire.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "servemem:", err)
		return 1
	}
	defer cl.Close()
	lcfg.Addrs = cl.Addrs()

	fmt.Fprintf(stdout, "servemem %s: %d brokers, max-data-bytes %d, retention-bytes %d; topic of %d partitions; %d producers at %d records/s of %d bytes; %d consumers; %s, a sample every %s, warmup %s\n",
		revision(), *brokers, *maxDataBytes, *retentionBytes, *partitions, *producers, *rate, *recordBytes, *consumers, *duration, *every, *warmup)
	load, err := loadtest.Start(ctx, lcfg)
	if err != nil {
		fmt.Fprintln(stderr, "servemem:", err)
		return 1
	}
	samples, err := sample(interrupted, load, *duration, *every, stderr)
	wasInterrupted := interrupted.Err() != nil // restore ends interrupted too
	restore()
	if wasInterrupted {
		fmt.Fprintf(stderr, "servemem: interrupted; draining for up to %s (Ctrl-C again to quit now)\n", *drain)
	}
	stopCtx, cancel := context.WithTimeout(ctx, *drain)
	defer cancel()
	final := load.Stop(stopCtx)
	if werr := loadtest.WriteTable(stdout, samples); werr != nil {
		return 1
	}
	fmt.Fprintf(stdout, "records: sent %d, acked %d, failed %d, unfinished %d, consumed %d\n",
		final.Sent, final.Acked, final.Failed, final.Unfinished, final.Consumed)
	if pct, spread, ok := loadtest.Growth(samples, *warmup); ok {
		fmt.Fprintf(stdout, "rss growth after %s: %+.1f%% (spread %.1f MiB)\n", *warmup, pct, float64(spread)/(1<<20))
	} else {
		fmt.Fprintf(stdout, "rss growth: fewer than two samples after %s\n", *warmup)
	}
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "servemem:", err)
		return 1
	case final.FirstErr != nil:
		fmt.Fprintln(stderr, "servemem: a record failed:", final.FirstErr)
		return 1
	case final.Consumed < final.Acked:
		fmt.Fprintf(stderr, "servemem: the group consumed %d of %d acknowledged records within --drain\n", final.Consumed, final.Acked)
		return 1
	}
	return 0
}

// sample takes a sample at once and every interval until duration has
// passed or ctx ends (Ctrl-C: the samples so far are kept).
func sample(ctx context.Context, load *loadtest.Load, duration, every time.Duration, progress io.Writer) ([]loadtest.Sample, error) {
	start := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	var out []loadtest.Sample
	for {
		mem, err := loadtest.ReadMem()
		if err != nil {
			return out, err
		}
		logBytes, err := load.LogBytes(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return out, nil // interrupted mid-sample: no half sample
			}
			return out, err
		}
		s := loadtest.Sample{Elapsed: time.Since(start), Mem: mem, Stats: load.Stats(), LogBytes: logBytes}
		out = append(out, s)
		fmt.Fprintf(progress, "%s rss %.1f MiB, log %.1f MiB, acked %d, consumed %d\n",
			s.Elapsed.Round(time.Second), float64(mem.RSSBytes)/(1<<20), float64(logBytes)/(1<<20), s.Stats.Acked, s.Stats.Consumed)
		if s.Elapsed >= duration {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, nil
		case <-t.C:
		}
	}
}

// revision is the commit this binary was built from, when the build
// recorded it.
func revision() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				return s.Value[:7]
			}
		}
	}
	return "(revision unknown)"
}
