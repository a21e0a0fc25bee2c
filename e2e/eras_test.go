package e2e

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// The 2026-07-28 revision: the hostile server's tools, served by the
// TypeScript SDK 2.x (testdata/node/modern-server.mjs) and by 1.x
// (hostile-server.mjs), to the 2.x client (client2.mjs, in either era) and
// to the 1.x client (client.mjs), over stdio and Streamable HTTP, directly
// and through the proxy. Through the proxy every pairing must see the
// poisoned tools withheld and refused, hidden characters gone from the
// tools and from the instructions (initialize's or server/discover's),
// the lying readOnlyHint dropped, and every other call answered as it is
// directly.

// peer is one side of a pairing.
type peer struct {
	name   string
	script string   // client driver
	flags  []string // its flags
}

var (
	sdk1Client   = peer{name: "sdk1", script: "client.mjs"}
	sdk2Legacy   = peer{name: "sdk2-legacy", script: "client2.mjs", flags: []string{"--era", "legacy"}}
	sdk2Modern   = peer{name: "sdk2-modern", script: "client2.mjs", flags: []string{"--era", "modern"}}
	modernListen = regexp.MustCompile(`modern-server: listening on (http://\S+)`)
)

// modern starts modern-server.mjs (HTTP) or returns its command line; with
// legacy it serves the older revisions too, else the 2026-07-28 one only.
func (h *harness) modern(tr transport, legacy bool) upstream {
	h.t.Helper()
	argv := []string{nodeBin, filepath.Join(nodeDir, "modern-server.mjs")}
	if legacy {
		argv = append(argv, "--legacy")
	}
	if tr == stdio {
		return upstream{argv: argv}
	}
	p := h.start("modern-server (http)", nodeDir, nil, append(argv, "--http")...)
	return upstream{url: h.waitFor(p, modernListen)[1]}
}

func (h *harness) peerClient(c peer, scenario string, target []string) *doc {
	h.t.Helper()
	d, err := h.runScript(c.script, scenario, c.flags, target)
	if err != nil {
		h.t.Fatal(err)
	}
	if d.lingered != nil {
		h.t.Error(d.lingered)
	}
	return d
}

func TestErasStdio(t *testing.T) { testEras(t, stdio) }
func TestErasHTTP(t *testing.T)  { testEras(t, streamable) }

func testEras(t *testing.T, tr transport) {
	pairings := []struct {
		client peer
		server string // sdk1, sdk2 (both eras), sdk2-modern-only
	}{
		{sdk1Client, "sdk2"},
		{sdk2Legacy, "sdk1"},
		{sdk2Legacy, "sdk2"},
		{sdk2Modern, "sdk2"},
		{sdk2Modern, "sdk2-modern-only"},
	}
	for _, p := range pairings {
		t.Run(fmt.Sprintf("%s-client-%s-server", p.client.name, p.server), func(t *testing.T) {
			h := newHarness(t)
			up := func() upstream {
				switch p.server {
				case "sdk1":
					return h.hostile(tr, "")
				case "sdk2":
					return h.modern(tr, true)
				}
				return h.modern(tr, false)
			}
			ref := h.peerClient(p.client, "hostile", direct(up()))
			if len(ref.Unlisted) != 0 || len(ref.Lists) != 1 {
				t.Fatalf("direct: want every tool listed once, got %v (unlisted %v)", names(ref.Lists), ref.Unlisted)
			}
			dir := t.TempDir()
			d := h.peerClient(p.client, "hostile", h.proxy(up(), guardFlags(dir, "eras")...))
			got, want := d.tools(), ref.tools()
			for n, rules := range hostileWithheld {
				if _, listed := got[n]; listed {
					t.Errorf("poisoned tool %s reached the client", n)
				}
				checkRefused(t, d.call(t, n, 0), rules...)
			}
			for _, n := range hostileClean {
				if !reflect.DeepEqual(got[n], want[n]) {
					t.Errorf("clean tool %s changed:\n got %s\nwant %s", n, canonical(got[n]), canonical(want[n]))
				}
			}
			for _, tl := range d.Lists[0] {
				if hidden := hiddenIn(map[string]any(tl)); len(hidden) > 0 {
					t.Errorf("tool %s still carries hidden code points %U", tl.name(), hidden)
				}
			}
			if in := d.Server.Instructions; in == nil || *in != instructionsVisible {
				t.Errorf("instructions = %s, want the visible text %q", canonical(in), instructionsVisible)
			}
			if wc := got["word_count"]; wc.description() != wordCountVisible {
				t.Errorf("word_count description = %q, want %q", wc.description(), wordCountVisible)
			}
			if ann, _ := got["delete_file"]["annotations"].(map[string]any); ann["readOnlyHint"] == true {
				t.Errorf("delete_file still claims readOnlyHint: true")
			}
			for i, c := range d.Calls {
				if _, withheld := hostileWithheld[c.Name]; withheld {
					continue
				}
				if want := enforcedResult(ref.Calls[i].Result); !c.ok() || string(c.Result) != want {
					t.Errorf("call to %s: got %s%s, want %s", c.Name, errText(c.Error), c.Result, want)
				}
			}
			evs := readEvents(t, filepath.Join(dir, "events.jsonl"), "eras")
			wantEvent(t, evs, "tool-withheld", "MCPG-T001", "send_feedback")
			wantEvent(t, evs, "call-refused", "MCPG-T001", "send_feedback")
			wantEvent(t, evs, "initialize-sanitized", "", "")
			wantEvent(t, evs, "tool-called", "", "add")
		})
	}
}
