// Package benchtab turns `go test -bench` output, the format benchstat
// reads, into the Markdown tables of BENCHMARKS.md.
//
// Parse reads results, grouped by the value of a "commit:" configuration
// line (benchstat's -col commit): `make bench-compare` writes the runs of a
// before and an after tree interleaved in one file, each run after a
// "commit: <label>" line, so both sides saw the same machine load. Table
// gives each benchmark and unit the median of its runs, the spread (the
// largest distance of a run from the median, in percent of it, as
// benchstat's ±), and between two labels the change of the medians with
// the two-sided Mann-Whitney U test's p-value (benchstat's test): a change
// with p > 0.05 is shown as "~", as benchstat does.
//
// Update rewrites the generated regions of a Markdown file: a region opens
// with a comment naming its results file, the benchmarks (a regular
// expression over names without the -GOMAXPROCS suffix) and the units,
//
//	<!-- benchtab file=bench/issue25-snapshots.txt match=^BenchmarkSimulation$ units=events/s,allocs/event -->
//
// and closes with <!-- /benchtab -->; the lines between are replaced.
//
// It reads files and writes nothing but what it returns; cmd/benchtab does
// the I/O.
package benchtab
