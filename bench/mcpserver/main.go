// Command mcpserver is a minimal MCP server over stdio for benchmarks: it
// waits -delay before answering (a server's start-up), then answers
// initialize and tools/list with -tools generated tools, and exits when
// its stdin closes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	delay := flag.Duration("delay", 0, "start-up time before the first answer")
	tools := flag.Int("tools", 20, "tools to list")
	flag.Parse()
	list := make([]map[string]any, *tools)
	for i := range list {
		list[i] = map[string]any{
			"name":        fmt.Sprintf("tool_%d", i),
			"description": fmt.Sprintf("Tool number %d: looks up a record by id and returns it as JSON.", i),
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "string"}}},
		}
	}
	toolsJSON, _ := json.Marshal(map[string]any{"tools": list})
	time.Sleep(*delay)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		result := []byte(`{}`)
		switch req.Method {
		case "initialize":
			result = []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}`)
		case "tools/list":
			result = toolsJSON
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
		out.Flush()
	}
}
