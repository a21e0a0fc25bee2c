//go:build !linux

package mcpio

import "time"

// becomeSubreaper: only Linux has child subreapers; elsewhere a process
// that left the server's group stays out of reach.
func becomeSubreaper() {}

func orphansOf(int) func() []int { return nil }

func endOrphans(func() []int, time.Duration) {}
