package prefault

// Span bounds how far above its start the goroutine populates: twice the
// soft memory limit of a short command (cmd/mcpguard's tuneGC), past which
// the runtime reuses what it collects instead of growing.
const Span = 256 << 20
