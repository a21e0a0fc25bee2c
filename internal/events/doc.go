// Package events writes mcpguard's event log: one JSON object per line
// (schema mcpguard/event/v1, docs/events.md) for every finding and every
// enforcement action of a long-running mcpguard process — the proxy today,
// the daemon too. A line is written with a single write to a file opened
// for appending, so several processes can share one log without tearing
// lines, and every string is passed through the secret redactor first:
// an event log is shipped to SIEMs and must never carry a credential.
package events
