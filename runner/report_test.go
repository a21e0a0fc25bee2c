package runner

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/mcpguard/mcpguard/internal/chunks"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestBuildReportInParallel: a report of many servers, built on several
// goroutines (four here whatever the machine), holds every server in
// order, redacted, exactly as one built one server at a time.
func TestBuildReportInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	res := &scanner.Result{}
	for i := range 5*chunks.MinItems + 3 {
		s := &scanner.Server{ID: fmt.Sprintf("s-%016x", i), Name: fmt.Sprintf("srv-%d", i), Client: "claude-code",
			Transport: "stdio", Command: "npx", Args: []string{"-y", fmt.Sprintf("pkg-%d", i)},
			Status: reports.StatusActive, Decision: reports.Decision{Allowed: true, Reasons: []string{"ALLOWED"}}}
		switch i % 3 {
		case 1:
			s.Args = append(s.Args, "--token", fmt.Sprintf("ghp_%036d", i))
		case 2:
			s.Transport, s.Command, s.Args = "http", "", nil
			s.URL = fmt.Sprintf("https://user:pass%d@mcp%d.example/mcp", i, i)
		}
		res.Servers = append(res.Servers, s)
	}
	det := secrets.NewDetector()
	got := BuildReport(res, Meta{Version: "test"}, det)
	if len(got.Servers) != len(res.Servers) {
		t.Fatalf("%d servers in the report, %d scanned", len(got.Servers), len(res.Servers))
	}
	for i, s := range res.Servers {
		if want := reportServer(det, s); !reflect.DeepEqual(got.Servers[i], want) {
			t.Fatalf("server %d:\n got %+v\nwant %+v", i, got.Servers[i], want)
		}
	}
	if a := got.Servers[1].Args; a[len(a)-1] == res.Servers[1].Args[len(a)-1] {
		t.Fatalf("the token was not redacted: %v", a)
	}
}
