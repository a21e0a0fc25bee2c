package regoir

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/open-policy-agent/opa/v1/ast"
)

// An array a plan builds (OpMakeArray, then an OpArrayAppend for each
// element) cost OPA's API an allocation for the term, three for the
// array with room for its elements, and one more for each element:
// ast.Array.Append returns a copy of the array, which the evaluation
// copied over the one it built. A server's evaluation builds a few
// (sprintf's operands, a finding's parts), and they were a third of its
// allocations. Built here, an array with room for up to
// inlineArrayElems elements is one allocation with its term, and an
// element is appended in place.
//
// Both write ast.Array's fields through arrayFields, a struct of the
// same fields: arrayFieldsMatch checks, once, by reflection, that
// ast.Array is that struct (the OPA this module builds with;
// TestArrayFields fails on one that changes it), and where it is not,
// the evaluation builds arrays through OPA's API as before.
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
