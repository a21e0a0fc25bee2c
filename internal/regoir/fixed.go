package regoir

import (
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
)

// A fixed function has the same value in every evaluation: it reads none
// of its parameters (for a rule, the input and data documents), calls no
// built-in and calls only functions like it. A rule whose value is a
// literal — `allowed := {"allowed": true, "reasons": ["ALLOWED"]}`, the
// sets of flags the hygiene rules look arguments up in — built that value
// in every evaluation that asked for it; the first evaluation to finish
// one now keeps its value for the others (Evaluator.fixed), as they share
// the constant collections (fold). Sharing rests on what fold checks of
// the planner: a function's value is never written into, only the
// collections a function has just made are. A fixed function whose
// evaluation fails is evaluated again where it is called, and fails there.

// fixedFuncs returns, for each of im's functions, whether it is fixed.
// The calls of a checked image form a DAG, so the walk ends.
func fixedFuncs(im *Image) []bool {
	const (
		unknown = iota
		fixed
		notFixed
	)
	state := make([]uint8, len(im.Funcs))
	var isFixed func(n int32) bool
	isFixed = func(n int32) bool {
		switch state[n] {
		case fixed:
			return true
		case notFixed:
			return false
		}
		state[n] = notFixed // until shown otherwise
		fn := &im.Funcs[n]
		if readsNothing(im, fn, isFixed) {
			state[n] = fixed
		}
		return state[n] == fixed
	}
	out := make([]bool, len(im.Funcs))
	for n := range im.Funcs {
		out[n] = isFixed(int32(n))
	}
	return out
}

// readsNothing reports whether fn's statements read none of its
// parameters and call no built-in and no function that isFixed rejects.
// An operation it does not know of makes fn not fixed.
func readsNothing(im *Image, fn *Func, isFixed func(int32) bool) bool {
	param := func(l int32) bool {
		for _, p := range fn.Params {
			if p == l {
				return true
			}
		}
		return false
	}
	reads := func(r Ref) bool { return r >= 0 && param(int32(r)) }
	var blocks func(bs Span) bool
	blocks = func(bs Span) bool {
		for _, b := range im.Blocks[bs.Start:bs.end()] {
			for i := b.Start; i < int32(b.end()); i++ {
				st := &im.Stmts[i]
				switch st.Op {
				case OpNop, OpBreak, OpResetLocal, OpMakeArray, OpMakeObject, OpMakeSet, OpMakeConst:
				case OpAssignConst, OpAssignVar, OpIsArray, OpIsObject, OpIsSet, OpLen, OpResultAdd:
					if reads(st.A) {
						return false
					}
				case OpDot, OpEqual, OpNotEqual:
					if reads(st.A) || reads(st.B) {
						return false
					}
				case OpAssignVarOnce, OpArrayAppend, OpSetAdd:
					if reads(st.A) || param(st.Target) {
						return false
					}
				case OpObjectInsert, OpObjectInsertOnce:
					if reads(st.A) || reads(st.B) || param(st.Target) {
						return false
					}
				case OpIsDefined, OpIsUndefined, OpResultSetAdd, OpReturnLocal:
					if param(st.Target) {
						return false
					}
				case OpBlock, OpNot:
					if !blocks(st.Sub) {
						return false
					}
				case OpScan:
					if param(st.N) || !blocks(st.Sub) {
						return false
					}
				case OpCall:
					if !isFixed(st.N) {
						return false
					}
				default: // OpCallBuiltin, and anything new
					return false
				}
			}
		}
		return true
	}
	return blocks(fn.Blocks)
}

// fixedValue is a fixed function's value once an evaluation has made it:
// undefinedMemo for none, nil until then.
type fixedValue = atomic.Pointer[ast.Term]
