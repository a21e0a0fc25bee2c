package oracle

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Fixed texts of `claude mcp list` and `claude mcp get` (docs/claude-code.md §9).
const (
	ListHeader       = "Checking MCP server health…"
	NoServers        = "No MCP servers configured. Use `claude mcp add` to add a server."
	DiagnosticsStart = "MCP config diagnostics"
	PendingText      = "⏸ Pending approval (run `claude` to approve)"
	DisabledText     = "⊘ Disabled for this project (re-enable via /mcp)"
	RejectedPrefix   = "✘ Rejected"
	FailedText       = "✘ Failed to connect"
)

// Listed statuses of an `mcp list` line.
const (
	ListedActive   = "active"
	ListedPending  = "pending"
	ListedDisabled = "disabled"
)

// Answers are what the real CLI said about a case.
type Answers struct {
	ListExit int
	// List is the normalised stdout of `mcp list`: blank lines dropped and
	// live health detail cut (see normaliseLine).
	List []string
	// ListErr is the first non-blank stderr line of `mcp list`.
	ListErr string
	// Listed are the server lines of List, in order.
	Listed []ListedServer
	// Gets holds the answer of `mcp get NAME` for every name of the case.
	Gets map[string]Get
}

// A ListedServer is one server line of `mcp list`.
type ListedServer struct {
	Name   string
	Status string // ListedActive, ListedPending or ListedDisabled
	Line   string
}

// Get is the answer of `mcp get NAME`.
type Get struct {
	Exit   int
	Scope  string // text after "Scope: "
	Status string // text after "Status: ", health detail cut
	Err    string // first non-blank stderr line
}

// Diagnostics returns the lines of the diagnostics block of `mcp list`.
func (a *Answers) Diagnostics() []string {
	for i, l := range a.List {
		if strings.HasPrefix(l, DiagnosticsStart) {
			return a.List[i:]
		}
	}
	return nil
}

// normaliseLine cuts live health detail: "✘ Failed to connect — ENOENT…"
// becomes "✘ Failed to connect".
func normaliseLine(l string) string {
	l = strings.TrimRight(l, "\r")
	if i := strings.Index(l, FailedText+" — "); i >= 0 {
		l = l[:i+len(FailedText)]
	}
	return l
}

// parseListed extracts the server lines from normalised list output.
func parseListed(lines []string) []ListedServer {
	var out []ListedServer
	for _, l := range lines {
		if strings.HasPrefix(l, DiagnosticsStart) {
			break
		}
		if l == ListHeader || l == NoServers {
			continue
		}
		name, rest, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		st := ListedActive
		switch {
		case strings.HasSuffix(rest, " - "+PendingText):
			st = ListedPending
		case strings.HasSuffix(rest, " - "+DisabledText):
			st = ListedDisabled
		}
		out = append(out, ListedServer{Name: name, Status: st, Line: l})
	}
	return out
}

// newAnswers builds Answers from raw CLI output.
func newAnswers(listExit int, stdout, stderr []byte) *Answers {
	a := &Answers{ListExit: listExit, Gets: map[string]Get{}, ListErr: firstLine(stderr)}
	for _, l := range strings.Split(string(stdout), "\n") {
		l = normaliseLine(l)
		if strings.TrimSpace(l) != "" {
			a.List = append(a.List, l)
		}
	}
	a.Listed = parseListed(a.List)
	return a
}

func newGet(exit int, stdout, stderr []byte) Get {
	g := Get{Exit: exit}
	for _, l := range strings.Split(string(stdout), "\n") {
		l = strings.TrimSpace(normaliseLine(l))
		if v, ok := strings.CutPrefix(l, "Scope: "); ok && g.Scope == "" {
			g.Scope = v
		}
		if v, ok := strings.CutPrefix(l, "Status: "); ok && g.Status == "" {
			g.Status = v
		}
	}
	if exit != 0 {
		g.Err = firstLine(stderr)
	}
	return g
}

func firstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// Format writes the oracle section:
//
//	list exit=0
//	| <stdout line>
//	! <first stderr line>
//	get "NAME" exit=0
//	| Scope: <scope text>
//	| Status: <status text>
//	get "NAME" exit=1
//	! <first stderr line>
//
// Gets are sorted by name.
func (a *Answers) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "list exit=%d\n", a.ListExit)
	for _, l := range a.List {
		b.WriteString("| " + l + "\n")
	}
	if a.ListErr != "" {
		b.WriteString("! " + a.ListErr + "\n")
	}
	names := make([]string, 0, len(a.Gets))
	for n := range a.Gets {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		g := a.Gets[n]
		fmt.Fprintf(&b, "get %s exit=%d\n", strconv.Quote(n), g.Exit)
		if g.Scope != "" {
			b.WriteString("| Scope: " + g.Scope + "\n")
		}
		if g.Status != "" {
			b.WriteString("| Status: " + g.Status + "\n")
		}
		if g.Err != "" {
			b.WriteString("! " + g.Err + "\n")
		}
	}
	return b.Bytes()
}

// ParseAnswers parses an oracle section written by Format.
func ParseAnswers(data []byte) (*Answers, error) {
	a := &Answers{Gets: map[string]Get{}}
	var cur string // "" while in the list block
	inList := false
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "list exit="):
			n, err := strconv.Atoi(strings.TrimPrefix(l, "list exit="))
			if err != nil {
				return nil, fmt.Errorf("oracle: %q: %v", l, err)
			}
			a.ListExit, inList, cur = n, true, ""
		case strings.HasPrefix(l, "get "):
			q, err := strconv.QuotedPrefix(l[4:])
			if err != nil {
				return nil, fmt.Errorf("oracle: %q: %v", l, err)
			}
			name, _ := strconv.Unquote(q)
			rest, ok := strings.CutPrefix(l[4+len(q):], " exit=")
			if !ok {
				return nil, fmt.Errorf("oracle: %q: no exit code", l)
			}
			n, err := strconv.Atoi(rest)
			if err != nil {
				return nil, fmt.Errorf("oracle: %q: %v", l, err)
			}
			if _, dup := a.Gets[name]; dup {
				return nil, fmt.Errorf("oracle: get %q appears twice", name)
			}
			a.Gets[name] = Get{Exit: n}
			cur, inList = name, false
		case strings.HasPrefix(l, "| ") || l == "|":
			v := strings.TrimPrefix(strings.TrimPrefix(l, "|"), " ")
			switch {
			case inList:
				a.List = append(a.List, v)
			case cur != "":
				g := a.Gets[cur]
				if s, ok := strings.CutPrefix(v, "Scope: "); ok {
					g.Scope = s
				} else if s, ok := strings.CutPrefix(v, "Status: "); ok {
					g.Status = s
				} else {
					return nil, fmt.Errorf("oracle: unexpected get line %q", l)
				}
				a.Gets[cur] = g
			default:
				return nil, fmt.Errorf("oracle: %q outside a block", l)
			}
		case strings.HasPrefix(l, "! "):
			v := l[2:]
			switch {
			case inList:
				a.ListErr = v
			case cur != "":
				g := a.Gets[cur]
				g.Err = v
				a.Gets[cur] = g
			default:
				return nil, fmt.Errorf("oracle: %q outside a block", l)
			}
		case l == "":
		default:
			return nil, fmt.Errorf("oracle: unexpected line %q", l)
		}
	}
	a.Listed = parseListed(a.List)
	return a, nil
}
