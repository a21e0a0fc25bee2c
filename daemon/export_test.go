package daemon

// For the tests of package daemon_test: helpers that need a real file
// system of a given size.
var (
	MountTmpfs = mountTmpfs
	FillUp     = fillUp
)
