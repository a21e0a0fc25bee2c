//go:build !linux

package prefault

// Start does nothing on this system: only Linux populates on advice.
func Start() (stop func()) { return func() {} }

// populateForWrite does nothing on this system.
func populateForWrite(addr, n uintptr) {}
