package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/reports"
)

// plantedSecrets are credentials written into every place of a
// configuration a secret can sit: the server's name, its command, an
// argument after a credential flag, a shell string with an upper-case URL
// scheme, a URL's userinfo and query, an env value and a header value.
// No surface may show one.
var plantedSecrets = map[string]string{
	"name":         "ghp_N4me0fTheServer0123456789abcdefghijk",
	"flag value":   "sekretFlagValue2468",
	"shell url":    "shellPassw0rd77",
	"url userinfo": "urlPassw0rd99x",
	"url query":    "querySecret135799",
	"env":          "ghp_EnvValue0123456789abcdefghijklmnopqr",
	"header":       "headerBearerToken0123456789",
	"command":      "xoxb-1234567890-0987654321-CommandTokenAbc",
}

// plantSecrets writes a machine whose Claude Code, Cursor and project files
// hold the planted secrets.
func plantSecrets(t *testing.T, root string) (home, project string) {
	t.Helper()
	home, project = filepath.Join(root, "home"), filepath.Join(root, "home", "src", "app")
	s := plantedSecrets
	writeFile(t, home, ".claude.json", `{
  "mcpServers": {
    "`+s["name"]+`": {"command": "npx", "args": ["-y", "@acme/tool@1.0.0"]},
    "flags": {"command": "node", "args": ["server.js", "--api-key", "`+s["flag value"]+`"]},
    "shell": {"command": "bash", "args": ["-c", "curl -fsS HTTPS://admin:`+s["shell url"]+`@internal.example/install.sh | sh"]},
    "remote": {"type": "http", "url": "https://bot:`+s["url userinfo"]+`@mcp.example.com/mcp?token=`+s["url query"]+`", "headers": {"Authorization": "Bearer `+s["header"]+`"}},
    "env": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github@2025.4.8"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "`+s["env"]+`"}},
    "cmd": {"command": "/opt/`+s["command"]+`/bin/server"}
  },
  "projects": {"`+project+`": {"enabledMcpjsonServers": ["proj"]}}
}`)
	writeFile(t, project, ".mcp.json", `{"mcpServers": {"proj": {"command": "node", "args": ["p.js", "--token", "`+s["flag value"]+`"]}}}`)
	writeFile(t, home, ".cursor/mcp.json", `{"mcpServers": {"`+s["name"]+`": {"command": "bash", "args": ["-c", "wget -qO- HTTPS://ops:`+s["shell url"]+`@x.example/a | sh"]}}}`)
	return home, project
}

// leaks names the planted secrets that out shows.
func leaks(out []byte) []string {
	var found []string
	for where, s := range plantedSecrets {
		if bytes.Contains(out, []byte(s)) {
			found = append(found, where)
		}
	}
	return found
}

// TestNoPlantedSecretOnAnySurface: scan in every format and CSV kind, the
// fleet report of it, wrap --dry-run and wrap (its output, diff and
// backups), unwrap, and the daemon's status, state file and events show
// none of the planted secrets.
func TestNoPlantedSecretOnAnySurface(t *testing.T) {
	root, err := os.MkdirTemp("", "mgsec-") // short: the daemon's socket lives here
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, project := plantSecrets(t, root)
	env := testEnv(project, home, nil)
	base := []string{"--home", home, "--managed-dir", filepath.Join(root, "managed"), "--project", project, "--fail-on", "never"}
	check := func(surface string, out []byte) {
		t.Helper()
		if l := leaks(out); len(l) > 0 {
			t.Errorf("%s shows the planted %v:\n%s", surface, l, out)
		}
	}
	for _, f := range reports.Formats() {
		out, stderr, code := runCLI(t, env, append([]string{"scan", "--format", string(f)}, base...)...)
		if code != exitOK {
			t.Fatalf("scan --format %s: exit %d: %s", f, code, stderr)
		}
		check("scan --format "+string(f), []byte(out+stderr))
	}
	out, stderr, _ := runCLI(t, env, append([]string{"scan", "--format", "csv", "--csv-kind", "servers"}, base...)...)
	check("scan --csv-kind servers", []byte(out+stderr))
	// Path mode, and the fleet report of a saved report.
	out, stderr, _ = runCLI(t, env, "scan", "--format", "json", "--fail-on", "never", project, filepath.Join(home, ".claude.json"), filepath.Join(home, ".cursor", "mcp.json"))
	check("scan PATH...", []byte(out+stderr))
	saved := filepath.Join(root, "saved.json")
	if err := os.WriteFile(saved, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"text", "json", "html", "markdown", "csv"} {
		out, stderr, _ := runCLI(t, env, "report", saved, saved, "--format", f, "--fail-on", "never")
		check("report --format "+f, []byte(out+stderr))
	}

	// wrap: the dry run's diff, the run's output, the backups it writes,
	// unwrap's listing.
	state := filepath.Join(root, "wrapstate")
	wenv := testEnv(project, home, map[string]string{"XDG_STATE_HOME": state})
	exe := writeFile(t, root, "bin/mcpguard", "#!/bin/sh\n")
	if err := os.Chmod(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	wenv.executable = func() (string, error) { return exe, nil }
	wbase := []string{"--home", home, "--project", project}
	for _, args := range [][]string{
		append([]string{"wrap", "--dry-run"}, wbase...),
		append([]string{"wrap", "--dry-run", "--format", "json"}, wbase...),
		append([]string{"wrap"}, wbase...),
		append([]string{"unwrap", "--dry-run"}, wbase...),
		append([]string{"unwrap", "--format", "json"}, wbase...),
	} {
		out, stderr, code := runCLI(t, wenv, args...)
		if code != exitOK && code != exitFindings {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, stderr)
		}
		check(strings.Join(args[:2], " "), []byte(out+stderr))
	}
	backups := 0
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "backup") {
			backups++
			data, _ := os.ReadFile(p)
			check("backup "+p, data)
		}
		return nil
	})
	if backups == 0 {
		t.Error("wrap wrote no backup")
	}

	// The daemon: status in every format, its state file and its events.
	if runtime.GOOS == "windows" || testing.Short() {
		return
	}
	bin := testBinary(t)
	denv := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	socket, dstate := filepath.Join(root, "d.sock"), filepath.Join(root, "state")
	events := filepath.Join(root, "events.jsonl")
	d := exec.Command(bin, "daemon", "--home", home, "--project", project, "--managed-dir", filepath.Join(root, "managed"),
		"--state-dir", dstate, "--socket", socket, "--events", events, "--resync", "1h")
	d.Env = denv
	var dErr bytes.Buffer
	d.Stderr = &dErr
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = d.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = d.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = d.Process.Kill()
		}
		check("daemon log", dErr.Bytes())
	}()
	status := func(args ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"status", "--socket", socket, "--fail-on", "never"}, args...)...)
		cmd.Env = denv
		out, _ := cmd.CombinedOutput()
		return out
	}
	deadline := time.Now().Add(30 * time.Second)
	for !bytes.Contains(status("--format", "json"), []byte(`"servers"`)) {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon never served: %s", dErr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, f := range reports.Formats() {
		check("status --format "+string(f), status("--format", string(f)))
	}
	check("status --info", status("--info"))
	files := 0
	_ = filepath.WalkDir(dstate, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			files++
			data, _ := os.ReadFile(p)
			check("daemon state "+filepath.Base(p), data)
		}
		return nil
	})
	if files == 0 {
		t.Error("the daemon wrote no state")
	}
	data, _ := os.ReadFile(events)
	check("events", data)
}
