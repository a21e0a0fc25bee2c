//go:build race

package prefault

const raceEnabled = true
