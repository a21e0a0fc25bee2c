// Package daemon keeps a live inventory of every MCP server on a machine: it
// runs the scan pipeline (runner) once at start, watches every location the
// scan read with fsnotify (parent directories, so that atomic replaces are
// seen; the nearest existing ancestor of what does not exist yet), re-runs
// the pipeline after a debounced burst of changes with unchanged files
// served from memory, and turns each difference between two inventories
// into mcpguard/event/v1 events. The inventory and the event sequence are
// persisted in a state directory, so that what changed while the daemon was
// down is reported at its next start. An HTTP API on a unix socket serves
// the current report, the daemon's status and its events.
package daemon
