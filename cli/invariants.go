package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/coordsim/coordsim/sim/invariants"
)

// invariantsCmd is `coordsim invariants`: every invariant of the registry
// (sim/invariants) with its promise and the mutants that must trip it; -v
// adds the Kafka rule it guards and where the simulator checks it, and
// --markdown prints the table of docs/invariants.md instead.
func (a *app) invariantsCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("invariants", "[-v] [--markdown]", "list the invariants the simulator checks, with the mutants that must trip each", stdout, stderr)
	verbose := fs.Bool("v", false, "also print the Kafka rule each guards and where it is checked")
	markdown := fs.Bool("markdown", false, "print the registry as the Markdown table of docs/invariants.md")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *markdown {
		fmt.Fprint(stdout, invariants.Markdown())
		return exitOK
	}
	for _, inv := range invariants.All() {
		fmt.Fprintf(stdout, "%s\n  %s\n  mutants: %s\n", inv.Name, inv.Promise, strings.Join(inv.Mutants, ", "))
		if *verbose {
			fmt.Fprintf(stdout, "  rule:    %s\n  checked: %s\n", inv.Rule, inv.Check)
		}
	}
	fmt.Fprintf(stdout, "\nSkip one while bisecting with: %s run --skip-invariant NAME (also sweep and replay)\n", a.prog)
	return exitOK
}
