package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/coordsim/coordsim/cli"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// A store author's whole program is
//
//	func main() { os.Exit(cli.Main(cli.WithStore("mine", openMine))) }
//
// (cli.Main names the program in printed commands as it was invoked: `go
// run ./cmd/mysim` under go run.) Here cli.Run stands in for cli.Main to run `replay --store mine` on a
// store that counts how often the simulator opened it.
func Example() {
	opened := 0
	openMine := func() (plugin.Store, error) {
		opened++
		return memstore.New(), nil
	}
	var out bytes.Buffer
	code := cli.Run([]string{"replay", "--scenario", "ci", "--duration", "20m", "--stop-at", "2000", "--window", "1", "--store", "mine"},
		&out, os.Stderr, cli.WithStore("mine", openMine), cli.WithProgram("go run ./cmd/mysim"))
	first, _, _ := strings.Cut(out.String(), ",")
	fmt.Println("exit", code, "|", first, "| store opened", opened, "time")
	// Output: exit 0 | replay: scenario ci | store opened 1 time
}
