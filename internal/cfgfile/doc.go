// Package cfgfile reads configuration files defensively — no blocking on FIFOs,
// no unbounded reads, symlink loops and directories reported as such — and turns
// parse failures into positioned report errors (path:line:col: message).
package cfgfile
