package regoir

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/open-policy-agent/opa/v1/ast"
)

// An array a plan builds (OpMakeArray, then an OpArrayAppend for each
// element) is, through OPA's API, a term, an array with room for its
// elements, and a copy of the array for each element (ast.Array.Append
// returns a new array). Built here, an array with room for up to
// inlineArrayElems elements is allocated with its term, and an element
// is appended in place. Appending in place is sound because a plan
// appends only to an array it has just made and no other value holds
// yet (fold checks the planner keeps to that).
//
// This is the package's only use of unsafe. Its invariant: ast.Array's
// fields are exactly arrayFields' (names, types, offsets, size and
// alignment), so that a pointer to one is a pointer to the other, and
// appendArray keeps them as OPA's own Append would (the element hashes,
// their sum, groundness). arrayFieldsMatch checks the layout once, at
// run time, and without it every array goes through OPA's API;
// TestArrayFields fails when the layout differs (an OPA upgrade that
// changes ast.Array) and when an array built here differs from OPA's in
// value, hash, groundness or length.
type arrayFields struct {
	elems  []*ast.Term
	hashs  []int
	hash   int
	ground bool
}

// arrayFieldsMatch reports whether ast.Array has arrayFields' fields, in
// order, of the same types and at the same offsets.
var arrayFieldsMatch = sync.OnceValue(func() bool {
	a, m := reflect.TypeFor[ast.Array](), reflect.TypeFor[arrayFields]()
	if a.Size() != m.Size() || a.Align() != m.Align() || a.NumField() != m.NumField() {
		return false
	}
	for i := range a.NumField() {
		fa, fm := a.Field(i), m.Field(i)
		if fa.Name != fm.Name || fa.Type != fm.Type || fa.Offset != fm.Offset {
			return false
		}
	}
	return true
})

// inlineArrayElems is how many elements an array made with its term has
// room for: a plan's arrays are literals of a few.
const inlineArrayElems = 4

// arrayBlock is an array made with its term and room for its elements.
type arrayBlock struct {
	term  ast.Term
	arr   arrayFields
	elems [inlineArrayElems]*ast.Term
	hashs [inlineArrayElems]int
}

// makeArray is OpMakeArray's new empty array with room for n elements,
// as a term: ast.NewTerm(ast.NewArrayWithCapacity(n)).
func makeArray(n int) *ast.Term {
	if n > inlineArrayElems || !arrayFieldsMatch() {
		return ast.NewTerm(ast.NewArrayWithCapacity(n))
	}
	return new(arrayBlock).init(n)
}

// init makes b an empty array with room for n <= inlineArrayElems
// elements, and returns its term.
func (b *arrayBlock) init(n int) *ast.Term {
	*b = arrayBlock{}
	b.arr.elems, b.arr.hashs, b.arr.ground = b.elems[:0:n], b.hashs[:0:n], true
	b.term.Value = (*ast.Array)(unsafe.Pointer(&b.arr))
	return &b.term
}

// appendArray appends v to arr in place: *arr = *arr.Append(v), without
// the copy.
func appendArray(arr *ast.Array, v *ast.Term) {
	if !arrayFieldsMatch() {
		*arr = *arr.Append(v)
		return
	}
	a := (*arrayFields)(unsafe.Pointer(arr))
	h := v.Value.Hash()
	a.elems = append(a.elems, v)
	a.hashs = append(a.hashs, h)
	a.hash += h
	a.ground = a.ground && v.IsGround()
}
