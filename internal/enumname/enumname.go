// Package enumname spells the values of a small integer enum from one
// table: String for traces and messages (Go's "Type(N)" for a value the
// table does not name) and Parse back. A type's String and its parser read
// the same table, so they cannot disagree, and no type needs a switch of
// its own that repeats every other's.
//
// The values must be contiguous from the table's first (iota or iota + 1,
// as Go enums are); a type with gaps keeps its own switch.
package enumname

import "fmt"

// Int is the underlying types an enum of this package may have.
type Int interface{ ~int8 | ~uint8 }

// Table names the values first, first+1, ... of enum type T.
type Table[T Int] struct {
	typ   string
	first T
	names []string
}

// New is the table of type typ (its Go name, for unnamed values) whose
// value first is names[0], first+1 names[1], and so on.
func New[T Int](typ string, first T, names ...string) Table[T] {
	return Table[T]{typ: typ, first: first, names: names}
}

// Name is v's name, or false when the table does not name v.
func (t Table[T]) Name(v T) (string, bool) {
	i := int(v) - int(t.first)
	if i < 0 || i >= len(t.names) {
		return "", false
	}
	return t.names[i], true
}

// String is v's name, or "Type(N)" when the table does not name v.
func (t Table[T]) String(v T) string {
	if name, ok := t.Name(v); ok {
		return name
	}
	return fmt.Sprintf("%s(%d)", t.typ, int(v))
}

// Parse is the value named name (exactly, case and all), or false.
func (t Table[T]) Parse(name string) (T, bool) {
	for i, n := range t.names {
		if n == name {
			return t.first + T(i), true
		}
	}
	return 0, false
}
