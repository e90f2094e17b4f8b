package loadtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"text/tabwriter"
	"time"
)

// Mem is one reading of the process's memory.
type Mem struct {
	// RSSBytes is VmRSS: what the kernel holds for the process.
	RSSBytes int64
	// HeapInuse, HeapSys and Sys are runtime.MemStats': the live heap's
	// spans, the heap's reservation, everything the runtime got from
	// the OS.
	HeapInuse, HeapSys, Sys uint64
	NumGC                   uint32
	Goroutines              int
}

// ReadMem reads VmRSS from /proc/self/status and the runtime's MemStats
// (which stops the world briefly).
func ReadMem() (Mem, error) {
	rss, err := ReadRSS()
	if err != nil {
		return Mem{}, err
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Mem{RSSBytes: rss, HeapInuse: ms.HeapInuse, HeapSys: ms.HeapSys, Sys: ms.Sys, NumGC: ms.NumGC, Goroutines: runtime.NumGoroutine()}, nil
}

// ReadRSS is this process's resident set size, VmRSS in /proc/self/status
// (Linux only).
func ReadRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("loadtest: %w", err)
	}
	defer f.Close()
	return parseVmRSS(f)
}

// parseVmRSS finds "VmRSS:   123 kB" in a /proc/PID/status file.
func parseVmRSS(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:"))
		if !ok {
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0, fmt.Errorf("loadtest: unexpected VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("loadtest: unexpected VmRSS line %q", sc.Text())
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("loadtest: %w", err)
	}
	return 0, errors.New("loadtest: no VmRSS line")
}

// Sample is one row of a memory run: the memory, the load's counts and
// the bytes the endpoint's logs held, at Elapsed.
type Sample struct {
	Elapsed  time.Duration
	Mem      Mem
	Stats    Stats
	LogBytes int64
}

// Growth is RSS's change from the first to the last sample at or after
// warmup, in percent of the first, and the spread (max - min) of RSS
// over those samples in bytes. ok is false with fewer than two such
// samples.
func Growth(samples []Sample, warmup time.Duration) (pct float64, spread int64, ok bool) {
	var first, last *Sample
	var lo, hi int64
	for i := range samples {
		s := &samples[i]
		if s.Elapsed < warmup {
			continue
		}
		if first == nil {
			first, lo, hi = s, s.Mem.RSSBytes, s.Mem.RSSBytes
		}
		last = s
		lo, hi = min(lo, s.Mem.RSSBytes), max(hi, s.Mem.RSSBytes)
	}
	if first == nil || first == last || first.Mem.RSSBytes == 0 {
		return 0, 0, false
	}
	return 100 * float64(last.Mem.RSSBytes-first.Mem.RSSBytes) / float64(first.Mem.RSSBytes), hi - lo, true
}

const mib = 1 << 20

// WriteTable writes samples as an aligned table, memory in MiB.
func WriteTable(w io.Writer, samples []Sample) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "elapsed\trss MiB\theap inuse MiB\theap sys MiB\tgo sys MiB\tgc\tgoroutines\tacked\tconsumed\tfailed\tlog MiB\t")
	for _, s := range samples {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t%d\t%.1f\t\n",
			s.Elapsed.Round(time.Second), float64(s.Mem.RSSBytes)/mib, float64(s.Mem.HeapInuse)/mib,
			float64(s.Mem.HeapSys)/mib, float64(s.Mem.Sys)/mib, s.Mem.NumGC, s.Mem.Goroutines,
			s.Stats.Acked, s.Stats.Consumed, s.Stats.Failed, float64(s.LogBytes)/mib)
	}
	return tw.Flush()
}
