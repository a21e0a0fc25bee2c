package wrap

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/jsonedit"
	"github.com/mcpguard/mcpguard/internal/wrapargv"
)

// Why an entry is left alone.
const (
	ReasonAlreadyWrapped = "already wrapped"
	ReasonNotWrapped     = "not wrapped"
	ReasonRemote         = "remote (url) server: not wrapped"
	ReasonNoCommand      = "no command: not a stdio server"
	ReasonNotObject      = "the entry is not an object"
	ReasonBadCommand     = "command is not a non-empty string"
	ReasonBadArgs        = "args is not an array of strings"
	ReasonDuplicateKeys  = "duplicate keys in the entry: clients disagree on which one counts"
	ReasonMcpguard       = "the command is mcpguard itself"
	ReasonDevMode        = "uses VS Code dev mode (watch/debug), which needs the server's own command"
	ReasonSandbox        = "sandboxEnabled: the client's sandbox would confine mcpguard proxy too"
	ReasonMissing        = "entry not found: the file changed since it was scanned"
	ReasonBadWrapper     = "the wrapper's arguments are not an array of strings"
)

// remoteTypes are the "type" values of remote entries in the supported
// clients' files.
var remoteTypes = map[string]bool{"http": true, "streamable-http": true, "streamableHttp": true, "sse": true, "ws": true}

// remoteKeys hold a remote server's URL (Windsurf writes serverUrl).
var remoteKeys = []string{"url", "serverUrl", "httpUrl"}

// checkEntry says why entry e cannot be wrapped or unwrapped at all, or "".
func checkEntry(e *jsonc.Value) string {
	if e == nil || e.Kind != jsonc.Object {
		return ReasonNotObject
	}
	typ := ""
	if t := e.Get("type"); t.IsString() {
		typ = t.Str
	}
	cmd := e.Member("command")
	switch {
	case remoteTypes[typ]:
		return ReasonRemote
	case cmd == nil:
		for _, k := range remoteKeys {
			if e.Get(k) != nil {
				return ReasonRemote
			}
		}
		return ReasonNoCommand
	case typ != "" && typ != "stdio":
		return fmt.Sprintf("type %q is not stdio", typ)
	case hasDuplicates(e):
		return ReasonDuplicateKeys
	case !cmd.Value.IsString() || cmd.Value.Str == "":
		return ReasonBadCommand
	}
	return ""
}

// hasDuplicates reports whether a key occurs twice in object e.
func hasDuplicates(e *jsonc.Value) bool {
	for _, m := range e.Members {
		if len(m.Dups()) > 0 {
			return true
		}
	}
	return false
}

// wrapEntry returns the edits that make entry e run through exe as proxy
// name, or why it stays as it is. The edits replace the command's string
// token and add the proxy arguments in front of the args array's elements (or
// insert an "args" member after "command"); the original command token is
// copied verbatim, so unwrapEntry restores every byte.
func wrapEntry(data []byte, e *jsonc.Value, exe, name string) ([]jsonedit.Edit, string) {
	if why := checkEntry(e); why != "" {
		return nil, why
	}
	if dev := e.Get("dev"); dev != nil && dev.Kind == jsonc.Object {
		return nil, ReasonDevMode
	}
	if sb := e.Get("sandboxEnabled"); sb != nil && sb.Kind == jsonc.Bool && sb.Bool {
		return nil, ReasonSandbox
	}
	cmdM, argsM := e.Member("command"), e.Member("args")
	cmd := cmdM.Value
	var args []string
	if argsM != nil {
		var ok bool
		if args, ok = argsM.Value.StringSlice(); !ok {
			return nil, ReasonBadArgs
		}
	}
	if _, ok := wrapargv.Split(cmd.Str, args); ok {
		return nil, ReasonAlreadyWrapped
	}
	if wrapargv.IsMcpguard(cmd.Str) {
		return nil, ReasonMcpguard
	}
	var elems [][]byte
	for _, a := range wrapargv.ProxyArgs(name, argsM == nil) {
		elems = append(elems, jsonedit.String(a))
	}
	elems = append(elems, jsonedit.String(wrapargv.Separator), data[cmd.Pos.Offset:cmd.End])
	edits := []jsonedit.Edit{{Start: cmd.Pos.Offset, End: cmd.End, Text: jsonedit.String(exe)}}
	switch a := argsM; {
	case a == nil:
		edits = append(edits, jsonedit.Edit{Start: cmd.End, End: cmd.End, Text: argsMember(data, e, cmdM, elems)})
	case len(a.Value.Elems) == 0:
		// [ ] keeps whatever was inside the brackets after the new elements.
		at := a.Value.Pos.Offset + 1
		edits = append(edits, jsonedit.Edit{Start: at, End: at, Text: bytes.Join(elems, []byte(", "))})
	default:
		sep := []byte(elementSeparator(data, a.Value))
		var b bytes.Buffer
		for _, el := range elems {
			b.Write(el)
			b.WriteByte(',')
			b.Write(sep)
		}
		at := a.Value.Elems[0].Pos.Offset
		edits = append(edits, jsonedit.Edit{Start: at, End: at, Text: b.Bytes()})
	}
	return edits, ""
}

// elementSeparator returns the whitespace an array puts before each element:
// the line break and indentation of a multi-line array, the spacing after a
// comma of a one-line one.
func elementSeparator(data []byte, arr *jsonc.Value) string {
	first := arr.Elems[0]
	leading := data[arr.Pos.Offset+1 : first.Pos.Offset]
	if i := bytes.LastIndexByte(leading, '\n'); i >= 0 {
		nl := "\n"
		if i > 0 && leading[i-1] == '\r' {
			nl = "\r\n"
		}
		return nl + blankPrefix(leading[i+1:])
	}
	if len(arr.Elems) > 1 {
		between := data[first.End:arr.Elems[1].Pos.Offset]
		if c := bytes.IndexByte(between, ','); c >= 0 && len(bytes.Trim(between[c+1:], " \t\r\n")) == 0 {
			return string(between[c+1:])
		}
	}
	return " "
}

// blankPrefix returns the leading spaces and tabs of b.
func blankPrefix(b []byte) string {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t') {
		n++
	}
	return string(b[:n])
}

// lineIndent returns the spaces and tabs that start the line holding off.
func lineIndent(data []byte, off int) string {
	return blankPrefix(data[jsonedit.LineStart(data, off):])
}

// argsMember is the text inserted right after the command's value when the
// entry has no "args": a comma and an "args" member laid out like the entry's
// other members (one per line at the command's indentation, the array's
// elements one level deeper), or on the same line when the entry is written
// on one line.
func argsMember(data []byte, e *jsonc.Value, cmdM *jsonc.Member, elems [][]byte) []byte {
	var b bytes.Buffer
	indent, alone := jsonedit.Indent(data, cmdM.KeyPos.Offset)
	if !alone {
		b.WriteString(`, "args": [`)
		b.Write(bytes.Join(elems, []byte(", ")))
		b.WriteByte(']')
		return b.Bytes()
	}
	nl := jsonedit.Newline(data, cmdM.KeyPos.Offset)
	b.WriteString("," + nl + indent + `"args": [`)
	outer := lineIndent(data, e.Pos.Offset)
	unit := ""
	if strings.HasPrefix(indent, outer) {
		unit = indent[len(outer):]
	}
	if unit == "" {
		b.Write(bytes.Join(elems, []byte(", ")))
		b.WriteByte(']')
		return b.Bytes()
	}
	for i, el := range elems {
		b.WriteString(nl + indent + unit)
		b.Write(el)
		if i < len(elems)-1 {
			b.WriteByte(',')
		}
	}
	b.WriteString(nl + indent + "]")
	return b.Bytes()
}

// unwrapEntry returns the edits that restore a wrapped entry: the command
// token after "--" goes back to "command", and the proxy arguments go (with
// the whole "args" member when the wrapper says the entry had none).
func unwrapEntry(data []byte, e *jsonc.Value) ([]jsonedit.Edit, string) {
	if why := checkEntry(e); why != "" {
		return nil, why
	}
	cmdM, argsM := e.Member("command"), e.Member("args")
	if argsM == nil || !wrapargv.IsMcpguard(cmdM.Value.Str) {
		return nil, ReasonNotWrapped
	}
	args, ok := argsM.Value.StringSlice()
	if !ok {
		return nil, ReasonBadWrapper
	}
	w, ok := wrapargv.Split(cmdM.Value.Str, args)
	if !ok {
		return nil, ReasonNotWrapped
	}
	arr := argsM.Value
	k := len(w.Flags) // the separator's index
	inner := arr.Elems[k+1]
	cmd := cmdM.Value
	edits := []jsonedit.Edit{{Start: cmd.Pos.Offset, End: cmd.End, Text: append([]byte{}, data[inner.Pos.Offset:inner.End]...)}}
	rest := arr.Elems[k+2:]
	switch {
	case len(rest) == 0 && w.WithoutArgs():
		edits = append(edits, removeMember(e, argsM))
	case len(rest) == 0:
		edits = append(edits, jsonedit.Edit{Start: arr.Elems[0].Pos.Offset, End: inner.End})
	default:
		edits = append(edits, jsonedit.Edit{Start: arr.Elems[0].Pos.Offset, End: rest[0].Pos.Offset})
	}
	return edits, ""
}

// removeMember deletes member m of object e: from the end of the previous
// member's value (taking the comma before m), or, for the first member, up to
// the next member's key. wrapEntry inserts "args" right after the command's
// value, so this removes exactly what it inserted.
func removeMember(e *jsonc.Value, m *jsonc.Member) jsonedit.Edit {
	members := make([]*jsonc.Member, len(e.Members))
	for i := range e.Members {
		members[i] = &e.Members[i]
	}
	sort.Slice(members, func(i, j int) bool { return members[i].KeyPos.Offset < members[j].KeyPos.Offset })
	for i, x := range members {
		if x != m {
			continue
		}
		if i > 0 {
			return jsonedit.Edit{Start: members[i-1].Value.End, End: m.Value.End}
		}
		if i+1 < len(members) {
			return jsonedit.Edit{Start: m.KeyPos.Offset, End: members[i+1].KeyPos.Offset}
		}
	}
	// The only member: leave the braces.
	return jsonedit.Edit{Start: m.KeyPos.Offset, End: m.Value.End}
}
