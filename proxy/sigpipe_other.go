//go:build !unix

package proxy

// catchSIGPIPE does nothing where there is no SIGPIPE.
func catchSIGPIPE() (stop func()) { return func() {} }
