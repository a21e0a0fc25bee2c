package scanner

import (
	"fmt"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// Limits on what one configuration may hold (docs/security.md). The largest
// real files — a ~/.claude.json with thousands of projects and long
// histories, a server entry with a PEM certificate in its env — stay far
// below them; a file past one is hostile or broken, and refusing the entry
// keeps the scan's cost proportional to what it accepts.
const (
	// MaxEntryValues bounds the JSON values of one server entry (its
	// arguments, env and headers together).
	MaxEntryValues = 10_000
	// MaxEntryBytes bounds the bytes of the strings of one server entry.
	MaxEntryBytes = 1 << 20
	// MaxStringBytes bounds one string of a server entry.
	MaxStringBytes = 256 << 10
	// MaxServersPerFile bounds the server entries of one object of servers.
	MaxServersPerFile = 10_000
	// MaxProjects bounds the projects of ~/.claude.json that are scanned.
	MaxProjects = 100_000
)

// entryTooLarge reports why a server entry is over the limits, or "".
func entryTooLarge(v *jsonc.Value) string {
	s := jsonc.Measure(v, MaxEntryValues, MaxEntryBytes)
	switch {
	case s.Values > MaxEntryValues:
		return fmt.Sprintf("the entry holds more than %d values (arguments, env and headers)", MaxEntryValues)
	case s.StringBytes > MaxEntryBytes:
		return fmt.Sprintf("the entry's strings exceed %d KiB", MaxEntryBytes>>10)
	case s.LongestString > MaxStringBytes:
		return fmt.Sprintf("a string of the entry is %d bytes, over the %d KiB limit", s.LongestString, MaxStringBytes>>10)
	}
	return ""
}

// refuseEntry records an over-limit server entry as an error (the scan exits
// 2) and returns the invalid server that stands for it in the report,
// without its contents.
func (sc *scan) refuseEntry(s *Server, why string) *Server {
	sc.fileError(reports.FileError{Path: s.Source.Path, Line: s.Source.Line, Column: s.Source.Column,
		Message: fmt.Sprintf("server %q refused: %s", s.Name, why)})
	s.HasArgs, s.Transport, s.refused = false, TransportOther, true
	s.Status = reports.StatusInvalid
	s.Decision = reports.Decision{Reasons: []string{reports.ReasonInvalid}}
	s.detail("invalid", "refused: "+why)
	return s
}

// tooManyServers reports an object of servers over MaxServersPerFile as an
// error; its entries are not read.
func (sc *scan) tooManyServers(path, pointer string, m *jsonc.Member) bool {
	if len(m.Value.Members) <= MaxServersPerFile {
		return false
	}
	sc.fileError(reports.FileError{Path: path, Line: m.KeyPos.Line, Column: m.KeyPos.Col,
		Message: fmt.Sprintf("%s holds %d server entries, over the limit of %d; none is read", pointer, len(m.Value.Members), MaxServersPerFile)})
	return true
}
