// Package report renders one simulation's sim.Result as a single,
// self-contained HTML file, in reading order: a header (the scenario, seed,
// protocol, the invariants checked and those the run left out, a warning
// for anything it did less of than asked, the verdict and the exact replay
// command) and a table of contents; the summary table and, when one
// failed, the violation with its trace; the plots over virtual time of
// groups by type and state, eligible groups and deletes per cleanup cycle
// (summed per time bucket when the cycles are too many to draw one by
// one), stored-epoch classes, committed offsets and plugin rows (the
// KIP-1331 plots only when the run has something to show in them), with the
// violation and each accepted v1 data loss marked on the time axis; then
// the tables: the lost groups, groups created and alive, every invariant
// and whether it ran, and the coverage marks. Classic groups are named
// "simple", as the run summary names them. A run with a Connect workload
// also gets a Sinks section: a table of every connector's outcome (records
// produced, received, duplicated, redelivered, archived, dead-lettered,
// lost; tasks; throughput; the longest redelivery after a kill) and plots of
// each connector's throughput and running tasks over virtual time. A run
// without one renders exactly as if the section did not exist. A run
// compared with its all-KIP-848 baseline (Result.KIP848, `coordsim run`
// of a rolling-upgrade workload) gets a section after the summary: which
// run is which, and each scope's duplicates and pause time in both runs
// with their ratio.
//
// The plots are drawn by gonum.org/v1/plot through its vg/vgsvg backend and
// inlined into the page as SVG; the one font they use (Liberation Sans, which
// gonum/plot measures text with) is embedded once as a data: URL, so labels
// are laid out in the browser exactly as gonum/plot measured them.
//
// What the package must never do:
//
//   - Fetch anything when the report is viewed. The page holds no script,
//     stylesheet, font or image reference to anything outside itself; it
//     opens from a file on a machine without a network.
//   - Depend on the wall clock, the environment or any randomness. The output
//     is a function of the Result alone, and the wall time is left out, so
//     the same run gives byte-identical HTML. Maps are always walked in
//     sorted order.
//   - Change the Result it is given.
package report
