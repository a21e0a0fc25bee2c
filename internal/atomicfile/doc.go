// Package atomicfile replaces files atomically: a reader sees the old
// content or the new, never half of either, and a crash leaves one of them.
// Reports written with --output, wrapped client configurations, the pin
// store and the daemon's state all go through it.
package atomicfile
