package introspect

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a fake MCP server: TestMain runs fakeServe
// when MCPGUARD_FAKE_MCP names a behaviour.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPGUARD_FAKE_MCP"); mode != "" {
		os.Exit(fakeServe(mode))
	}
	os.Exit(m.Run())
}

// fakeTools is the default listing: two pages, one tool with hidden
// characters in its description.
const fakePage1 = `{"tools":[{"name":"read_file","description":"Read a file.","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}],"nextCursor":"p2"}`
const fakePage2 = `{"tools":[{"name":"notes","description":"Keep notes.\udb40\udc41\udb40\udc42","inputSchema":{"type":"object"}}]}`

// fakeServe is an MCP server over stdio. Modes:
//
//	ok          answers everything; tools in two pages, prompts, resources
//	hang        reads requests and never answers
//	exit        exits with status 3 at once
//	noisy       writes log lines and junk to stdout between answers
//	grandchild  starts a grandchild that ignores SIGTERM and holds stdout,
//	            ignores SIGTERM itself and never answers
//	orphan      starts such a grandchild, then answers like ok and exits
//	            when its stdin closes
//	flood       answers initialize with an endless stream of output
//	env         one tool whose description shows GREETING and the cwd
//	loop        tools/list returns the same cursor forever
//	modern      the 2026-07-28 revision only: initialize is refused,
//	            server/discover answered, and every request without the
//	            revision's _meta refused
//	sleeper     (the grandchild) sleeps, ignoring SIGTERM
func fakeServe(mode string) int {
	switch mode {
	case "exit":
		return 3
	case "sleeper":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
		return 0
	case "grandchild", "orphan":
		if mode == "grandchild" {
			signal.Ignore(syscall.SIGTERM)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$", "sleeper-"+os.Getenv("MCPGUARD_FAKE_MARK"))
		cmd.Env = append(os.Environ(), "MCPGUARD_FAKE_MCP=sleeper")
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			return 9
		}
		if mode == "grandchild" {
			time.Sleep(time.Hour)
			return 0
		}
	case "flood":
		line := strings.Repeat("x", 1<<16) + "\n"
		for {
			if _, err := os.Stdout.WriteString(line); err != nil {
				return 0
			}
		}
	}
	if f := os.Getenv("MCPGUARD_FAKE_COUNT"); f != "" {
		if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(fh, "started")
			fh.Close()
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
				Meta   struct {
					Version string `json:"io.modelcontextprotocol/protocolVersion"`
					Client  *struct {
						Name string `json:"name"`
					} `json:"io.modelcontextprotocol/clientInfo"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil || mode == "hang" {
			continue
		}
		if mode == "modern" && (req.Method == "initialize" || req.Params.Meta.Version != "2026-07-28" || req.Params.Meta.Client == nil) {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`+"\n", req.ID)
			out.Flush()
			continue
		}
		if mode == "noisy" {
			fmt.Fprintln(out, "Server listening... (a log line on stdout)")
			fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
			fmt.Fprintln(out, `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
			fmt.Fprintln(out, `[1,2`)
		}
		var result string
		switch req.Method {
		case "server/discover":
			result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"prompts":{}},"instructions":"Modern \u200btools.","resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern-fake","version":"2.4.0"}}}`
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"fake","version":"1.2.3"},"instructions":"Use the tools wisely."}`
			if s := os.Getenv("MCPGUARD_FAKE_INSTRUCTIONS"); s != "" {
				b, _ := json.Marshal(map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "fake", "version": "1"}, "instructions": s})
				result = string(b)
			}
		case "tools/list":
			switch {
			case mode == "loop":
				result = `{"tools":[],"nextCursor":"again"}`
			case mode == "env":
				wd, _ := os.Getwd()
				b, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "env", "description": "greeting=" + os.Getenv("GREETING") + " cwd=" + wd}}})
				result = string(b)
			case os.Getenv("MCPGUARD_FAKE_DESC") != "":
				b, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "lookup_order", "description": os.Getenv("MCPGUARD_FAKE_DESC")}}})
				result = string(b)
			case req.Params.Cursor == "p2":
				result = fakePage2
			default:
				result = fakePage1
			}
		case "prompts/list":
			result = `{"prompts":[{"name":"review","description":"Review code"}]}`
			if s := os.Getenv("MCPGUARD_FAKE_PROMPTS"); s != "" {
				result = s
			}
		case "resources/templates/list":
			result = `{"resourceTemplates":[]}`
			if s := os.Getenv("MCPGUARD_FAKE_TEMPLATES"); s == "method-not-found" {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", req.ID)
				out.Flush()
				continue
			} else if s != "" {
				result = s
			}
		case "resources/list":
			result = `{"resources":[{"name":"readme","uri":"file:///readme.md","mimeType":"text/markdown"}]}`
		default:
			result = `{}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
		out.Flush()
	}
	return 0
}
