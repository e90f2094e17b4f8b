package enumname

import "testing"

type color int8

const (
	red color = iota + 1
	green
)

var colors = New("color", red, "red", "green")

// TestStringAndParse proves that a table names its values from its first,
// spells an unnamed value as Go's "Type(N)" on either side of the table,
// and parses exactly the names it spells.
func TestStringAndParse(t *testing.T) {
	for v, want := range map[color]string{red: "red", green: "green", 0: "color(0)", 3: "color(3)", -1: "color(-1)"} {
		if got := colors.String(v); got != want {
			t.Errorf("String(%d) = %q, want %q", int8(v), got, want)
		}
	}
	for _, v := range []color{red, green} {
		if got, ok := colors.Parse(colors.String(v)); !ok || got != v {
			t.Errorf("Parse(String(%d)) = %d, %v", int8(v), int8(got), ok)
		}
	}
	for _, name := range []string{"", "Red", "blue", "color(0)"} {
		if got, ok := colors.Parse(name); ok {
			t.Errorf("Parse(%q) = %d, want none", name, int8(got))
		}
	}
}

// TestUnsignedFromZero proves a uint8 enum from 0 names its last value and
// no further.
func TestUnsignedFromZero(t *testing.T) {
	type kind uint8
	kinds := New[kind]("kind", 0, "a", "b")
	if name, ok := kinds.Name(1); !ok || name != "b" {
		t.Errorf("Name(1) = %q, %v", name, ok)
	}
	if _, ok := kinds.Name(2); ok {
		t.Error("Name(2) named")
	}
	if got := kinds.String(255); got != "kind(255)" {
		t.Errorf("String(255) = %q", got)
	}
}
