package main

import (
	"context"
	"path/filepath"
	"testing"
)

// TestInterruptsArmedWhenNeeded: the commands that have something to finish
// or undo when stopped arm the handlers before they start; a scan that only
// reads and prints, and version, leave the signals alone.
func TestInterruptsArmedWhenNeeded(t *testing.T) {
	dir := t.TempDir()
	mcpJSON := writeFile(t, dir, ".mcp.json", `{"mcpServers": {"a": {"command": "npx", "args": ["-y", "a"]}}}`)
	introspectEnv, introspectArgs, _ := introspectMachine(t)
	cases := []struct {
		name  string
		env   environment
		args  []string
		armed bool
	}{
		{"version", testEnv(dir, dir, nil), []string{"version"}, false},
		{"scan to stdout", testEnv(dir, dir, nil), []string{"scan", "--format", "json", mcpJSON}, false},
		{"scan to -", testEnv(dir, dir, nil), []string{"scan", "-o", "-", mcpJSON}, false},
		{"scan to a file", testEnv(dir, dir, nil), []string{"scan", "-o", filepath.Join(dir, "report.json"), mcpJSON}, true},
		{"scan --introspect", introspectEnv, append([]string{"scan", "--fail-on", "never"}, introspectArgs...), true},
		{"a scan with a usage error", testEnv(dir, dir, nil), []string{"scan", "--format", "nope", mcpJSON}, false},
		{"status", testEnv(dir, dir, nil), []string{"status", "--socket", filepath.Join(dir, "none.sock")}, true},
		{"policy test", testEnv(dir, dir, nil), []string{"policy", "test", dir}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, in := newInterrupts(context.Background())
			defer in.stop()
			c.env.interrupts = in
			runContext(ctx, c.args, streams{in: nil, out: &discard{}, err: &discard{}}, c.env)
			if in.armed() != c.armed {
				t.Errorf("%v: armed %v, want %v", c.args, in.armed(), c.armed)
			}
		})
	}
}

// TestInterruptsCancel: once armed, the context ends with the command's
// stop; arming after stop does nothing.
func TestInterruptsCancel(t *testing.T) {
	ctx, in := newInterrupts(context.Background())
	in.arm()
	in.arm()
	if ctx.Err() != nil || !in.armed() {
		t.Fatal("armed: the context is live")
	}
	in.stop()
	if ctx.Err() == nil {
		t.Fatal("stop cancels the context")
	}
	ctx, in = newInterrupts(context.Background())
	in.stop()
	in.arm()
	if in.armed() || ctx.Err() == nil {
		t.Fatal("arm after stop installs nothing")
	}
	var none *interrupts
	none.arm() // a test's environment
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }

// armed reports whether arm has installed the handlers.
func (in *interrupts) armed() bool { return in != nil && in.signals != nil }
