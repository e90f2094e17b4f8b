package report

import (
	"strings"
	"testing"

	"github.com/coordsim/coordsim/sim"
	"github.com/coordsim/coordsim/sim/consumption"
)

// TestKIP848ComparisonSection proves a compared run's page names both runs
// and shows each scope's duplicates and pause time in a rolling-upgrade
// column and an all-KIP-848 column with their ratio (a dash when both are
// 0, n/a when only the baseline is), linked from the contents after the
// summary; a run not compared has no such section.
func TestKIP848ComparisonSection(t *testing.T) {
	plain := renderPage(t, fakeResult(6, false))
	notContains(t, plain, `id="kip848"`)

	r := fakeResult(6, false)
	three, half := 3.0, 0.5
	r.KIP848 = &sim.KIP848Comparison{
		RecordsPerSecond: consumption.RecordsPerSecond,
		Rolling:          sim.ComparedRun{What: "classic rolled", TraceHash: "1c0ee332a3cb4aed", Events: 10, Rolls: 80},
		Baseline:         sim.ComparedRun{What: "consumer from the start", TraceHash: "152d8fdbfd699bd2", Events: 9, Violation: "9-one-owner at step 5"},
		Scopes: []consumption.Scope{
			{Name: consumption.ScopeUpgrade, Windows: 40, WindowMs: 7_200_000,
				Rolling: consumption.Cost{Duplicates: 3_000, PauseMs: 60_000, LongestPauseMs: 2_000}, Baseline: consumption.Cost{Duplicates: 1_000, PauseMs: 120_000, LongestPauseMs: 4_000},
				DuplicatesRatio: &three, PauseRatio: &half},
			{Name: consumption.ScopeDowngrade, Windows: 40, Rolling: consumption.Cost{Duplicates: 7}},
			{Name: consumption.ScopeWhole, Windows: 40, WindowMs: 3_600_000},
		},
	}
	page := renderPage(t, r)
	for _, want := range []string{
		`<li><a href="#kip848">Rolling upgrade against all KIP-848</a></li>`,
		`<th>rolling upgrade</th><th>all KIP-848</th><th>ratio</th>`,
		"<td>rolling upgrade</td><td>classic rolled; 80 rolls; 10 events; trace hash 1c0ee332a3cb4aed</td>",
		`<tr class="bad"><td>all KIP-848</td><td>consumer from the start; 0 rolls; 9 events; trace hash 152d8fdbfd699bd2; VIOLATED 9-one-owner at step 5: its figures stop there</td>`,
		`<td rowspan="2">upgrade rolls: 40 windows, 2h0m0s</td><td>records consumed twice</td><td class="num">3,000</td><td class="num">1,000</td><td class="num">3.00×</td>`,
		`<td>partition pause (longest)</td><td class="num">1m0s (2s)</td><td class="num">2m0s (4s)</td><td class="num">0.50×</td>`,
		`<td class="num">7</td><td class="num">0</td><td class="num">n/a (none in the baseline)</td>`,
		`<td rowspan="2">whole run: 40 applications, 1h0m0s of life</td><td>records consumed twice</td><td class="num">0</td><td class="num">0</td><td class="num">-</td>`,
	} {
		contains(t, page, want)
	}
	if strings.Index(page, `<h2 id="kip848">`) < strings.Index(page, `<h2 id="summary">`) {
		t.Error("the comparison follows the summary")
	}
}
