//go:build !linux

package hugeheap

// Reserve does nothing on this system: only Linux takes the advice.
func Reserve(n int) bool { return false }
