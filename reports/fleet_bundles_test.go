package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func bundleReport(host, at, revision string) *Report {
	r := &Report{Schema: Schema, GeneratedAt: at, Host: Host{Hostname: host, OS: "linux", User: "dev"},
		Policy:  PolicyInfo{Sources: []PolicySource{{Path: "bundle:mcpguard", Kind: KindOPABundle, Active: true, Revision: revision}}, Revision: "x"},
		Servers: []Server{}, Findings: []Finding{}, Errors: []FileError{}}
	r.Summary = Summarize(r)
	return r
}

// TestFleetBundlesBehind: the newest report naming a bundle sets the
// revision the fleet should be at; hosts at another one are behind.
func TestFleetBundlesBehind(t *testing.T) {
	m := NewMerger(MergeOptions{Now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)})
	m.Add("a.json", bundleReport("alpha", "2026-11-25T10:00:00Z", "r2"))
	m.Add("b.json", bundleReport("beta", "2026-11-24T10:00:00Z", "r1"))
	m.Add("c.json", bundleReport("gamma", "2026-11-25T11:00:00Z", "r2"))
	f := m.Fleet()
	if len(f.Bundles) != 1 {
		t.Fatalf("bundles: %+v", f.Bundles)
	}
	b := f.Bundles[0]
	if b.Name != "mcpguard" || b.Newest != "r2" || b.Behind != 1 || len(b.Revisions) != 2 || b.Revisions[0] != (BundleHosts{"r2", 2}) {
		t.Errorf("bundle: %+v", b)
	}
	for _, h := range f.Hosts {
		behind := len(h.BundlesBehind) > 0
		if behind != (h.Hostname == "beta") || len(h.Bundles) != 1 {
			t.Errorf("%s: bundles %+v, behind %v", h.Hostname, h.Bundles, h.BundlesBehind)
		}
	}
	var out bytes.Buffer
	if err := RenderFleet(&out, FormatText, f, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "mcpguard: newest r2; hosts per revision: r2: 2, r1: 1; 1 host behind") ||
		!strings.Contains(out.String(), "policy behind (mcpguard)") {
		t.Errorf("text:\n%s", out.String())
	}
}

func TestFleetBundlesHTML(t *testing.T) {
	m := NewMerger(MergeOptions{Now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)})
	m.Add("a.json", bundleReport("alpha", "2026-11-25T10:00:00Z", "r2"))
	m.Add("b.json", bundleReport("beta", "2026-11-24T10:00:00Z", "r1<script>"))
	var out bytes.Buffer
	if err := RenderFleet(&out, FormatHTML, m.Fleet(), Options{}); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	if !strings.Contains(html, `id="bundles"`) || !strings.Contains(html, "policy behind: mcpguard") || strings.Contains(html, "r1<script>") {
		t.Errorf("bundles section, behind badge, escaped revision:\n%s", html)
	}
}
