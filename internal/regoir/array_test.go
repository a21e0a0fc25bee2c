package regoir

import (
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestArrayFields: ast.Array is the struct arrayFields mirrors (an OPA
// that changes it fails here, and its evaluations take OPA's API), and an
// array made and appended to in place is the array OPA's API makes of
// the same elements: equal, with the same hash and groundness, within
// its room and past it, whatever the room asked for.
func TestArrayFields(t *testing.T) {
	if !arrayFieldsMatch() {
		t.Fatal("ast.Array's fields are not arrayFields': update arrayFields for this OPA")
	}
	elems := []*ast.Term{
		ast.StringTerm("a"), ast.InternedTerm(1), ast.NewTerm(ast.NewArray(ast.StringTerm("x"))),
		ast.ObjectTerm(ast.Item(ast.StringTerm("k"), ast.BooleanTerm(true))), ast.NullTerm(),
		ast.StringTerm("f"), ast.VarTerm("x"),
	}
	for _, room := range []int{0, 1, 2, inlineArrayElems, inlineArrayElems + 1, 10} {
		for n := range len(elems) + 1 {
			t.Run(fmt.Sprintf("room %d, %d elements", room, n), func(t *testing.T) {
				got := makeArray(room)
				arr := got.Value.(*ast.Array)
				for _, e := range elems[:n] {
					appendArray(arr, e)
				}
				want := ast.NewArray(elems[:n]...)
				if arr.Compare(want) != 0 || arr.Hash() != want.Hash() || arr.IsGround() != want.IsGround() || arr.Len() != n {
					t.Errorf("made %v (hash %d, ground %v), want %v (hash %d, ground %v)",
						arr, arr.Hash(), arr.IsGround(), want, want.Hash(), want.IsGround())
				}
			})
		}
	}
}
