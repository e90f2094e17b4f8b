package sim_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

// TestOptionDocsStateTheCurrentDefaults proves what `go doc sim.Options`
// and `go doc sim.DefaultOptions` say a default is, is the default (issue
// 26: DefaultOptions' doc said protocol v2 after the default became v3):
// every "(default N)" in a field's comment, and ", the default)" after an
// enum value, match the field in DefaultOptions, and DefaultOptions' own
// comment names its protocol, brokers and partitions.
func TestOptionDocsStateTheCurrentDefaults(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "options.go", nil, parser.ParseComments)
	require.NoError(t, err)
	def := reflect.ValueOf(sim.DefaultOptions())
	defaultRE := regexp.MustCompile(`\(default ([0-9]+)\)|(\w+), the default\)`)
	checked := 0
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSpec:
			st, ok := n.Type.(*ast.StructType)
			if !ok || n.Name.Name != "Options" {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Doc == nil {
					continue
				}
				text := strings.Join(strings.Fields(field.Doc.Text()), " ")
				for _, m := range defaultRE.FindAllStringSubmatchIndex(text, -1) {
					// The field a default belongs to is the last field
					// named before it.
					var name string
					for _, w := range regexp.MustCompile(`[A-Z]\w+`).FindAllString(text[:m[0]], -1) {
						if def.FieldByName(w).IsValid() {
							name = w
						}
					}
					require.NotEmpty(t, name, "a default with no field before it: %q", text)
					want := ""
					for g := 2; g < len(m); g += 2 {
						if m[g] >= 0 {
							want = text[m[g]:m[g+1]]
						}
					}
					assert.Equal(t, want, fmt.Sprint(def.FieldByName(name).Interface()), "go doc of Options.%s: %q", name, text)
					checked++
				}
			}
		case *ast.FuncDecl:
			if n.Name.Name == "DefaultOptions" {
				doc := strings.Join(strings.Fields(n.Doc.Text()), " ")
				o := sim.DefaultOptions()
				assert.Contains(t, doc, "protocol "+string(o.Protocol))
				assert.Contains(t, doc, fmt.Sprintf("%d partitions", o.Partitions))
				assert.Contains(t, doc, map[int]string{3: "three brokers"}[o.Brokers])
				checked++
			}
		}
		return true
	})
	assert.GreaterOrEqual(t, checked, 4, "Brokers, Partitions, Protocol, TraceTail's defaults and DefaultOptions")
}
