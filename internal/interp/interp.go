package interp

import "strings"

// Dialect names a client's interpolation syntax (docs/clients.md §4).
type Dialect string

// The dialects mcpguard understands.
const (
	None     Dialect = "none"     // Claude Desktop, Zed, Cline, Junie: no documented syntax
	Claude   Dialect = "claude"   // ${VAR}, ${VAR:-default}
	VSCode   Dialect = "vscode"   // ${env:VAR}, ${input:id}, ${workspaceFolder}, ...
	Cursor   Dialect = "cursor"   // ${env:VAR}, ${userHome}, ${workspaceFolder}, ${/}, ...
	Windsurf Dialect = "windsurf" // ${env:VAR}, ${file:/path}
	Shell    Dialect = "shell"    // $VAR and ${VAR} (Gemini CLI)
	Continue Dialect = "continue" // ${{ secrets.X }}
	OpenCode Dialect = "opencode" // {env:VAR}
)

// Kind says where a reference takes its value from.
type Kind string

// Reference kinds.
const (
	KindEnv        Kind = "env"        // the process environment (or settings env blocks)
	KindInput      Kind = "input"      // prompted from the user (VS Code ${input:id}); never "missing"
	KindPredefined Kind = "predefined" // an editor variable such as ${workspaceFolder}
	KindSecret     Kind = "secret"     // a client secret store (Continue)
	KindFile       Kind = "file"       // file contents (Windsurf ${file:/path})
)

// Ref is one variable reference found in a string.
type Ref struct {
	Text       string // the reference exactly as written, e.g. "${API_KEY:-x}"
	Kind       Kind
	Name       string // variable, input or secret name
	Default    string // Claude ${VAR:-default} only
	HasDefault bool
	Start, End int // byte offsets of Text in the scanned string
}

// Refs returns the references of dialect d in s, in order of appearance.
func Refs(d Dialect, s string) []Ref {
	if !strings.ContainsAny(s, "${") {
		return nil
	}
	switch d {
	case Claude:
		return claudeRefs(s)
	case VSCode, Cursor, Windsurf:
		return editorRefs(d, s)
	case Shell:
		return shellRefs(s)
	case Continue:
		return continueRefs(s)
	case OpenCode:
		return opencodeRefs(s)
	}
	return nil
}

// HasRef reports whether s holds at least one reference of dialect d.
func HasRef(d Dialect, s string) bool { return len(Refs(d, s)) > 0 }

func isNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isNameChar(c byte) bool  { return isNameStart(c) || '0' <= c && c <= '9' }

// claudeRef parses a Claude Code reference starting at s[i] == '$'. It returns
// ok == false for text such as "${1X}" or "${x%y}", which Claude Code leaves alone.
func claudeRef(s string, i int) (Ref, bool) {
	if i+2 >= len(s) || s[i+1] != '{' || !isNameStart(s[i+2]) {
		return Ref{}, false
	}
	j := i + 3
	for j < len(s) && isNameChar(s[j]) {
		j++
	}
	r := Ref{Kind: KindEnv, Name: s[i+2 : j], Start: i}
	switch {
	case j < len(s) && s[j] == '}':
		r.End = j + 1
	case strings.HasPrefix(s[j:], ":-"):
		// The default runs to the first "}", so it can never contain one.
		k := strings.IndexByte(s[j+2:], '}')
		if k < 0 {
			return Ref{}, false
		}
		r.Default, r.HasDefault = s[j+2:j+2+k], true
		r.End = j + 2 + k + 1
	default:
		return Ref{}, false
	}
	r.Text = s[r.Start:r.End]
	return r, true
}

func claudeRefs(s string) []Ref {
	var out []Ref
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '$')
		if k < 0 {
			break
		}
		i += k
		if r, ok := claudeRef(s, i); ok {
			out = append(out, r)
			i = r.End
			continue
		}
		i++
	}
	return out
}

// Lookup returns the value of an environment variable and whether it is set.
type Lookup func(name string) (string, bool)

// ExpandClaude expands Claude Code references in s in a single pass: ${VAR} takes
// the value when VAR is set (even when empty), ${VAR:-d} takes d only when VAR is
// unset, and an unset VAR without a default stays as its literal text. missing
// lists those unset names, in order, without duplicates.
func ExpandClaude(s string, lookup Lookup) (out string, missing []string) {
	refs := claudeRefs(s)
	if len(refs) == 0 {
		return s, nil
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		b.WriteString(s[last:r.Start])
		last = r.End
		v, set := lookup(r.Name)
		switch {
		case set:
			b.WriteString(v)
		case r.HasDefault:
			b.WriteString(r.Default)
		default:
			b.WriteString(r.Text)
			if !contains(missing, r.Name) {
				missing = append(missing, r.Name)
			}
		}
	}
	b.WriteString(s[last:])
	return b.String(), missing
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// editorPredefined are the editor variables VS Code, Cursor and Windsurf resolve
// without the environment.
var editorPredefined = map[string]bool{
	"workspaceFolder": true, "workspaceFolderBasename": true, "userHome": true,
	"pathSeparator": true, "/": true, "cwd": true, "file": true, "fileBasename": true,
	"fileDirname": true, "relativeFile": true, "execPath": true, "defaultBuildTask": true,
	"lineNumber": true, "selectedText": true, "fileExtname": true, "workspaceRoot": true,
}

// editorRefs handles ${env:X}, ${input:x}, ${file:/p} and ${predefined}.
func editorRefs(d Dialect, s string) []Ref {
	var out []Ref
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], "${")
		if k < 0 {
			break
		}
		i += k
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			break
		}
		body := s[i+2 : i+2+end]
		r := Ref{Text: s[i : i+3+end], Start: i, End: i + 3 + end}
		prefix, rest, hasColon := strings.Cut(body, ":")
		switch {
		case hasColon && prefix == "env" && rest != "":
			r.Kind, r.Name = KindEnv, rest
		case hasColon && prefix == "input" && d == VSCode && rest != "":
			r.Kind, r.Name = KindInput, rest
		case hasColon && prefix == "file" && d == Windsurf && rest != "":
			r.Kind, r.Name = KindFile, rest
		case !hasColon && editorPredefined[body]:
			r.Kind, r.Name = KindPredefined, body
		case hasColon && (prefix == "config" || prefix == "command") && d == VSCode:
			r.Kind, r.Name = KindPredefined, body
		default:
			i += 2
			continue
		}
		out = append(out, r)
		i = r.End
	}
	return out
}

// shellRefs handles $VAR and ${VAR} (Gemini CLI settings).
func shellRefs(s string) []Ref {
	var out []Ref
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		if s[i+1] == '{' {
			j := i + 2
			for j < len(s) && isNameChar(s[j]) {
				j++
			}
			if j > i+2 && j < len(s) && s[j] == '}' && isNameStart(s[i+2]) {
				out = append(out, Ref{Text: s[i : j+1], Kind: KindEnv, Name: s[i+2 : j], Start: i, End: j + 1})
				i = j
			}
			continue
		}
		if !isNameStart(s[i+1]) {
			continue
		}
		j := i + 2
		for j < len(s) && isNameChar(s[j]) {
			j++
		}
		out = append(out, Ref{Text: s[i:j], Kind: KindEnv, Name: s[i+1 : j], Start: i, End: j})
		i = j - 1
	}
	return out
}

// continueRefs handles ${{ secrets.X }} (and ${{ inputs.X }}).
func continueRefs(s string) []Ref {
	var out []Ref
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], "${{")
		if k < 0 {
			break
		}
		i += k
		end := strings.Index(s[i+3:], "}}")
		if end < 0 {
			break
		}
		body := strings.TrimSpace(s[i+3 : i+3+end])
		r := Ref{Text: s[i : i+5+end], Start: i, End: i + 5 + end, Kind: KindSecret, Name: body}
		if ns, name, ok := strings.Cut(body, "."); ok {
			r.Name = name
			if ns == "inputs" {
				r.Kind = KindInput
			}
		}
		out = append(out, r)
		i = r.End
	}
	return out
}

// opencodeRefs handles {env:VAR} and {file:path}.
func opencodeRefs(s string) []Ref {
	var out []Ref
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '{')
		if k < 0 {
			break
		}
		i += k
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			break
		}
		body := s[i+1 : i+end]
		r := Ref{Text: s[i : i+end+1], Start: i, End: i + end + 1}
		switch {
		case strings.HasPrefix(body, "env:") && len(body) > 4:
			r.Kind, r.Name = KindEnv, body[4:]
		case strings.HasPrefix(body, "file:") && len(body) > 5:
			r.Kind, r.Name = KindFile, body[5:]
		default:
			i++
			continue
		}
		out = append(out, r)
		i = r.End
	}
	return out
}
