package wrapargv

import "strings"

// The parts of a wrapper command line.
const (
	// Subcommand is the first argument of every wrapper.
	Subcommand = "proxy"
	// Separator ends the proxy's flags; the wrapped argv follows it.
	Separator = "--"
	// FlagName names the server for the proxy (pins, events).
	FlagName = "--name"
	// FlagWithoutArgs marks a wrapper written for an entry that had no "args"
	// member. The proxy accepts it and ignores it.
	FlagWithoutArgs = "--wrapped-without-args"
)

// IsMcpguard reports whether command names an mcpguard executable: its base
// name is mcpguard or mcpguard.exe (on Windows, in any case).
func IsMcpguard(command string) bool {
	base := command[strings.LastIndexAny(command, `/\`)+1:]
	return strings.EqualFold(base, "mcpguard") || strings.EqualFold(base, "mcpguard.exe")
}

// Wrapped is a wrapper command line split into its parts.
type Wrapped struct {
	// Command is the wrapper executable (an mcpguard binary).
	Command string
	// Flags are the wrapper's arguments before the separator, starting with
	// the "proxy" subcommand.
	Flags []string
	// Inner is the wrapped argv: the server's command and its arguments.
	Inner []string
}

// Split reads a wrapper command line: command is an mcpguard executable, the
// first argument is "proxy", and a "--" is followed by a non-empty command.
// ok is false for anything else, including a bare `mcpguard proxy --upstream`.
func Split(command string, args []string) (w Wrapped, ok bool) {
	if !IsMcpguard(command) || len(args) == 0 || args[0] != Subcommand {
		return Wrapped{}, false
	}
	for i, a := range args {
		if a == Separator {
			if i+1 >= len(args) || args[i+1] == "" {
				return Wrapped{}, false
			}
			return Wrapped{Command: command, Flags: args[:i:i], Inner: args[i+1:]}, true
		}
	}
	return Wrapped{}, false
}

// Name returns the value of --name (or --name=VALUE), or "".
func (w Wrapped) Name() string {
	for i, f := range w.Flags {
		if f == FlagName && i+1 < len(w.Flags) {
			return w.Flags[i+1]
		}
		if v, ok := strings.CutPrefix(f, FlagName+"="); ok {
			return v
		}
	}
	return ""
}

// WithoutArgs reports whether the wrapper carries FlagWithoutArgs.
func (w Wrapped) WithoutArgs() bool {
	for _, f := range w.Flags {
		if f == FlagWithoutArgs {
			return true
		}
	}
	return false
}

// Prefix returns the wrapper argv up to and including the separator:
// [command, flags..., "--"].
func (w Wrapped) Prefix() []string {
	out := make([]string, 0, len(w.Flags)+2)
	out = append(out, w.Command)
	out = append(out, w.Flags...)
	return append(out, Separator)
}

// ProxyArgs returns the arguments wrap writes before the separator.
func ProxyArgs(name string, withoutArgs bool) []string {
	out := []string{Subcommand, FlagName, name}
	if withoutArgs {
		out = append(out, FlagWithoutArgs)
	}
	return out
}
