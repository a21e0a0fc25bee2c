package policy

// evalStackFrame is about the stack an evaluation of the shipped policies
// reaches (topdown recurses for every rule, expression and term), and
// their compilation: the goroutine that calls GrowStack ends up with twice
// that, the runtime's next power of two.
const evalStackFrame = 64 << 10

// GrowStack grows the calling goroutine's stack at once to what a policy
// evaluation needs. A goroutine starts with 8 KiB, and the runtime doubles
// the stack each time it fills, copying it and adjusting every frame in
// it: deep in an evaluation that is four or five copies of an ever deeper
// stack, each onto fresh pages. Called first thing on a goroutine that
// evaluates or loads policies, it is one growth of a shallow stack
// (a one-file scan: 0.5-1.5 ms of ~41; docs/performance.md).
func GrowStack() { growStack() }

// GrowStack grows the calling goroutine's stack to what this engine's
// evaluations of servers need: topdown's (GrowStack) when it evaluates them,
// nothing when the shipped plan does. The plan's evaluation fits in 16 KiB,
// a goroutine's first growth; growing the stack to topdown's 128 KiB would
// only write fresh pages.
func (e *Engine) GrowStack() {
	if e == nil || e.Err() != nil || e.plan != nil && !e.withCustom {
		return
	}
	GrowStack()
}

//go:noinline
func growStack() {
	var frame [evalStackFrame]byte
	keepFrame(&frame)
}

// keepFrame keeps growStack's frame from being optimised away.
//
//go:noinline
func keepFrame(*[evalStackFrame]byte) {}
