package daemon

import "path/filepath"

// Paths are a daemon's default locations.
type Paths struct {
	StateDir string
	Socket   string
	Events   string
}

// DefaultPaths returns the OS conventions for a system daemon (system
// true: run as root by systemd or launchd) or a user's own daemon:
//
//	Linux system: /var/lib/mcpguard, /run/mcpguard/mcpguard.sock
//	Linux user:   $XDG_STATE_HOME/mcpguard (~/.local/state/mcpguard),
//	              $XDG_RUNTIME_DIR/mcpguard.sock (else in the state dir)
//	macOS system: /Library/Application Support/mcpguard, /var/run/mcpguard/mcpguard.sock
//	macOS user:   ~/Library/Application Support/mcpguard, socket in it
//
// Events go to events.jsonl in the state directory.
func DefaultPaths(goos string, system bool, home string, lookupEnv func(string) (string, bool)) Paths {
	env := func(k string) string {
		if lookupEnv == nil {
			return ""
		}
		v, _ := lookupEnv(k)
		return v
	}
	var p Paths
	switch {
	case goos == "darwin" && system:
		p = Paths{StateDir: "/Library/Application Support/mcpguard", Socket: "/var/run/mcpguard/mcpguard.sock"}
	case goos == "darwin":
		p.StateDir = filepath.Join(home, "Library", "Application Support", "mcpguard")
		p.Socket = filepath.Join(p.StateDir, "mcpguard.sock")
	case system:
		p = Paths{StateDir: "/var/lib/mcpguard", Socket: "/run/mcpguard/mcpguard.sock"}
	default:
		state := env("XDG_STATE_HOME")
		if !filepath.IsAbs(state) {
			state = filepath.Join(home, ".local", "state")
		}
		p.StateDir = filepath.Join(state, "mcpguard")
		if rt := env("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
			p.Socket = filepath.Join(rt, "mcpguard.sock")
		} else {
			p.Socket = filepath.Join(p.StateDir, "mcpguard.sock")
		}
	}
	p.Events = filepath.Join(p.StateDir, "events.jsonl")
	return p
}
