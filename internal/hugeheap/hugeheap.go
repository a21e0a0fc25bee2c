package hugeheap

import (
	"strings"
	"unsafe"
)

// MinReserve is the least Reserve acts on: below it, the collection it
// runs costs more than the faults it saves.
const MinReserve = 16 << 20

// MaxReserve bounds a reservation: the heap range is only mapped, not
// used, but a system that does not overcommit memory counts it.
const MaxReserve = 1 << 30

// uncleared allocates n bytes the runtime does not clear. A large
// allocation on memory the heap never used is not cleared anyway, but one
// that starts in a gap the heap freed is cleared whole: make([]byte, n)
// then touched every page of the range, 4 KiB at a time, before it could
// be advised, which is what the reservation exists to avoid (goroutines'
// stacks freed at the heap's end make such gaps). strings.Builder.Grow allocates without clearing
// (bytealg.MakeNoZero); one byte is written to find the buffer.
//
// Safe because the builder and its string are gone when it returns: the
// slice is the only reference to the buffer, so writing through it
// changes no string anyone holds. Its contents are whatever the memory
// held; Reserve reads none of them (TestUnclearedTouchesNothing fails if
// the block is cleared or touched).
func uncleared(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(b.String()), n)
}
