package wrap

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/jsonedit"
	"github.com/mcpguard/mcpguard/internal/wrapargv"
	"github.com/mcpguard/mcpguard/reports"
)

// Mode says whether servers are wrapped or unwrapped.
type Mode int

// The modes.
const (
	ModeWrap Mode = iota
	ModeUnwrap
)

func (m Mode) String() string {
	if m == ModeUnwrap {
		return "unwrap"
	}
	return "wrap"
}

// Actions in an EntryResult.
const (
	ActionWrapped   = "wrapped"
	ActionUnwrapped = "unwrapped"
	ActionSkipped   = "skipped"
)

// Entry names one server entry of a file.
type Entry struct {
	// Pointer is the RFC 6901 pointer of the entry object, e.g.
	// "/mcpServers/github" or "/projects/~1home~1dev~1app/mcpServers/github".
	Pointer string
	// Name is the server's name, for messages.
	Name string
	// ProxyName is the --name the wrapper passes to the proxy (wrap only).
	ProxyName string
}

// EntryResult is what happened (or would happen) to one entry.
type EntryResult struct {
	Entry
	Action string
	// Reason says why a skipped entry is left as it is.
	Reason string
	Line   int
	Column int
}

// RewriteOptions configure Rewrite.
type RewriteOptions struct {
	// JSONC parses the file with comments and trailing commas (VS Code,
	// Cursor, Windsurf); strict JSON otherwise (Claude Code, Claude Desktop).
	JSONC bool
	// Executable is the absolute path of the mcpguard binary the wrappers run.
	Executable string
}

// Rewrite returns data with the entries wrapped or unwrapped, the result per
// entry, and the edits made (offsets into data). Only the command's string
// token and the args array (or an inserted or removed "args" member) change;
// every other byte is kept. A file that does not parse gives a
// *reports.FileError without a path.
//
// Before returning, Rewrite checks its own work: the result parses, every
// entry it changed now reads as intended, and undoing the change gives back
// data byte for byte. A failed check is an error and nothing should be
// written.
func Rewrite(data []byte, mode Mode, entries []Entry, opts RewriteOptions) ([]byte, []EntryResult, []jsonedit.Edit, error) {
	root, err := parse(data, opts.JSONC)
	if err != nil {
		return nil, nil, nil, err
	}
	var edits []jsonedit.Edit
	results := make([]EntryResult, len(entries))
	var changed []int
	seen := map[string]bool{}
	for i, en := range entries {
		r := EntryResult{Entry: en, Action: ActionSkipped}
		m, rerr := jsonedit.Resolve(root, en.Pointer)
		switch {
		case rerr != nil:
			r.Reason = ReasonMissing
		case seen[en.Pointer]:
			r.Reason = "listed twice"
		default:
			seen[en.Pointer] = true
			r.Line, r.Column = m.KeyPos.Line, m.KeyPos.Col
			var es []jsonedit.Edit
			var why string
			if mode == ModeWrap {
				es, why = wrapEntry(data, m.Value, opts.Executable, en.ProxyName)
			} else {
				es, why = unwrapEntry(data, m.Value)
			}
			if why != "" {
				r.Reason = why
				break
			}
			edits = append(edits, es...)
			r.Action = ActionWrapped
			if mode == ModeUnwrap {
				r.Action = ActionUnwrapped
			}
			changed = append(changed, i)
		}
		results[i] = r
	}
	if len(edits) == 0 {
		return data, results, nil, nil
	}
	out, err := jsonedit.Apply(data, edits)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := verify(data, out, mode, entries, changed, opts); err != nil {
		return nil, nil, nil, err
	}
	return out, results, edits, nil
}

// parse parses a configuration file in its client's dialect.
func parse(data []byte, jsoncMode bool) (*jsonc.Value, error) {
	root, _, err := jsonc.Parse(data, jsonc.Options{JSONC: jsoncMode})
	if err != nil {
		var se *jsonc.SyntaxError
		if errors.As(err, &se) {
			return nil, &reports.FileError{Line: se.Pos.Line, Column: se.Pos.Col, Message: "invalid JSON: " + se.Msg}
		}
		return nil, &reports.FileError{Message: err.Error()}
	}
	if root.Kind != jsonc.Object {
		return nil, &reports.FileError{Line: root.Pos.Line, Column: root.Pos.Col, Message: "must hold a JSON object, not " + root.Kind.String()}
	}
	return root, nil
}

// errSelfCheck reports a rewrite that failed its own verification: a bug,
// never a property of the input.
var errSelfCheck = errors.New("wrap: internal check failed; nothing written")

// verify checks a rewrite: the result parses in the same dialect, each
// changed entry now reads as intended (wrapped around the same command line,
// or no longer wrapped), and the opposite rewrite of the changed entries
// gives back the original bytes.
func verify(before, after []byte, mode Mode, entries []Entry, changed []int, opts RewriteOptions) error {
	oldRoot, err := parse(before, opts.JSONC)
	if err != nil {
		return fmt.Errorf("%w: %v", errSelfCheck, err)
	}
	newRoot, err := parse(after, opts.JSONC)
	if err != nil {
		return fmt.Errorf("%w: the result does not parse: %v", errSelfCheck, err)
	}
	var undo []jsonedit.Edit
	for _, i := range changed {
		p := entries[i].Pointer
		om, err1 := jsonedit.Resolve(oldRoot, p)
		nm, err2 := jsonedit.Resolve(newRoot, p)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%w: %s moved", errSelfCheck, p)
		}
		oldArgv, oldWrapped := argvOf(om.Value)
		newArgv, newWrapped := argvOf(nm.Value)
		if mode == ModeUnwrap {
			if oldWrapped == nil || newWrapped != nil || !slices.Equal(oldWrapped.Inner, newArgv) {
				return fmt.Errorf("%w: %s does not restore its command line", errSelfCheck, p)
			}
			continue
		}
		if oldWrapped != nil || newWrapped == nil || !slices.Equal(newWrapped.Inner, oldArgv) || newWrapped.Name() != entries[i].ProxyName {
			return fmt.Errorf("%w: %s does not wrap its command line", errSelfCheck, p)
		}
		es, why := unwrapEntry(after, nm.Value)
		if why != "" {
			return fmt.Errorf("%w: %s cannot be unwrapped: %s", errSelfCheck, p, why)
		}
		undo = append(undo, es...)
	}
	if mode == ModeWrap {
		back, err := jsonedit.Apply(after, undo)
		if err != nil || !bytes.Equal(back, before) {
			return fmt.Errorf("%w: unwrapping the result does not give back the file", errSelfCheck)
		}
	}
	return nil
}

// argvOf returns an entry's command line and, when it runs through mcpguard
// proxy, the wrapper.
func argvOf(e *jsonc.Value) ([]string, *wrapargv.Wrapped) {
	cmd := e.Get("command")
	if !cmd.IsString() {
		return nil, nil
	}
	var args []string
	if a := e.Get("args"); a != nil {
		args, _ = a.StringSlice()
	}
	if w, ok := wrapargv.Split(cmd.Str, args); ok {
		return append([]string{cmd.Str}, args...), &w
	}
	return append([]string{cmd.Str}, args...), nil
}
