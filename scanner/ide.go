package scanner

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// scanClaudeExtras adds the Claude Code servers that do not come from server
// config files: the IDE server from lock files (§10).
func (sc *scan) scanClaudeExtras(w *claudeWorld, projects []string) {
	if w.configDir == "" {
		return
	}
	sc.scanIDELocks(filepath.Join(w.configDir, "ide"), projects)
}

// scanIDELocks turns each ~/.claude/ide/<port>.lock into the "ide" server that
// Claude Code builds from it: {type: ws-ide|sse-ide, url: ws://127.0.0.1:<port>}.
func (sc *scan) scanIDELocks(dir string, projects []string) {
	names := sc.listDir(dir)
	sort.Strings(names)
	for _, name := range names {
		portText, ok := strings.CutSuffix(name, ".lock")
		if !ok {
			continue
		}
		path := filepath.Join(dir, name)
		data, exists, ferr := sc.fs.ReadFile(path)
		if !exists {
			continue
		}
		src := reports.Source{Path: path, Client: ClientClaudeCode, Kind: "ide-lock", Scope: ScopeIDE}
		if ferr != nil {
			sc.fileError(*ferr)
			src.Error = ferr.Message
			sc.source(src)
			continue
		}
		sc.source(src)
		port, err := strconv.Atoi(portText)
		if err != nil || port <= 0 || port > 65535 {
			sc.fileFinding("MCPG-C006", cfgfile.Loc(path, "", jsonc.Pos{}),
				fmt.Sprintf("IDE lock file name %q is not <port>.lock; Claude Code cannot use it", name), "name")
			continue
		}
		s := &Server{Name: "ide", Client: ClientClaudeCode, Scope: ScopeIDE, Transport: TransportWS, Type: "ws-ide",
			Source: cfgfile.Loc(path, "", jsonc.Pos{Line: 1, Col: 1}), Status: reports.StatusActive}
		var folders []string
		transport, ideName, token := "ws", "", ""
		root, _, perr := jsonc.Parse(data, jsonc.Options{})
		if perr == nil && root.Kind == jsonc.Object {
			folders, _ = root.Get("workspaceFolders").StringSlice()
			if v := root.Get("transport"); v.IsString() {
				transport = v.Str
			}
			if v := root.Get("ideName"); v.IsString() {
				ideName = v.Str
			}
			if v := root.Get("authToken"); v.IsString() {
				token = v.Str
			}
			if v := root.Get("pid"); v != nil && v.Kind == jsonc.Number {
				s.detail("pid", v.Str)
			}
			if v := root.Get("runningInWindows"); v != nil && v.Kind == jsonc.Bool {
				s.detail("running_in_windows", v.Bool)
			}
		} else {
			// The legacy format: one workspace folder per line.
			for _, line := range strings.Split(string(data), "\n") {
				if line = strings.TrimSpace(line); line != "" {
					folders = append(folders, line)
				}
			}
			s.detail("lock_format", "legacy")
		}
		if transport == "sse" {
			s.Transport, s.Type = TransportSSE, "sse-ide"
			s.URL = fmt.Sprintf("http://127.0.0.1:%d/sse", port)
		} else {
			s.URL = fmt.Sprintf("ws://127.0.0.1:%d", port)
		}
		if token != "" {
			s.Headers = map[string]string{"X-Claude-Code-Ide-Authorization": token}
			s.HeaderKeys = []string{"X-Claude-Code-Ide-Authorization"}
		}
		s.detail("claude_scope", claudeScopeDynamic)
		s.detail("workspace_folders", folders)
		if ideName != "" {
			s.detail("ide_name", ideName)
		}
		for _, f := range folders {
			if contains(projects, f) {
				s.Project = f
				break
			}
		}
		s.Decision = sc.judge(s)
		if !s.Decision.Allowed {
			s.Status = reports.StatusBlocked
		}
		if fi, err := sc.fs.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			sc.finding(s, "MCPG-C006", fmt.Sprintf("IDE lock file is readable by other users (mode %04o, want 0600): its auth token lets any local user drive the IDE's MCP server", fi.Mode().Perm()),
				map[string]any{"problem": "lock file mode", "mode": fmt.Sprintf("%04o", fi.Mode().Perm())}, "mode")
		}
		sc.keep(s)
	}
}
