//go:build !unix

package unicode

import "time"

// cpuTime falls back to wall time where getrusage is missing.
func cpuTime() float64 { return float64(time.Now().UnixNano()) / 1e9 }
