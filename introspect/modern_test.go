package introspect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestIntrospectModernOnly: a server of the 2026-07-28 revision only
// refuses initialize and every request without the revision's _meta;
// introspection asks it server/discover, then lists its tools and prompts
// with _meta on every request, and reports what it said about itself.
func TestIntrospectModernOnly(t *testing.T) {
	s := fakeServer(t, "modern", nil)
	res := Run(context.Background(), []*scanner.Server{s}, testOptions(t))
	in := res[0].Introspection
	if in.Status != reports.IntrospectionOK {
		t.Fatalf("status %s: %s", in.Status, in.Reason)
	}
	if in.ProtocolVersion != "2026-07-28" || in.ServerInfo == nil || in.ServerInfo.Name != "modern-fake" || in.Instructions != "Modern tools." {
		t.Errorf("server/discover not reported: %+v %+v", in, in.ServerInfo)
	}
	if len(in.Tools) != 2 || len(in.Prompts) != 1 {
		t.Errorf("tools %+v prompts %+v", in.Tools, in.Prompts)
	}
}

// TestIntrospectModernOnlyHTTP: the same over Streamable HTTP, where the
// revision also wants MCP-Protocol-Version and Mcp-Method on every POST,
// and has no session.
func TestIntrospectModernOnlyHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		json.Unmarshal(body, &req)
		if req.Method == "initialize" || r.Header.Get("MCP-Protocol-Version") != "2026-07-28" || r.Header.Get("Mcp-Method") != req.Method || req.Params.Meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version"}}`, req.ID)
			return
		}
		result := `{"tools":[{"name":"search","description":"Search the docs."}],"resultType":"complete","ttlMs":1000,"cacheScope":"public"}`
		if req.Method == "server/discover" {
			result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"remote-modern","version":"1"}}}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	defer srv.Close()
	s := remoteServer(srv.URL+"/mcp", scanner.TransportHTTP, nil)
	in := Run(context.Background(), []*scanner.Server{s}, testOptions(t))[0].Introspection
	if in.Status != reports.IntrospectionOK || len(in.Tools) != 1 || in.ServerInfo == nil || in.ServerInfo.Name != "remote-modern" || in.ProtocolVersion != "2026-07-28" {
		t.Fatalf("got %+v (%s)", in, in.Reason)
	}
}
