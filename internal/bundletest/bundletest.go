// Package bundletest is the organisation's side of fleet-policy tests:
// OPA bundles built and signed with OPA's own bundle package (as `opa
// build --signing-key` writes them), an HTTP server that serves one and can
// fail, and a decision-log service that keeps what it receives.
package bundletest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"
)

// Spec is what a bundle holds.
type Spec struct {
	Revision string
	// Roots are the manifest's roots; nil claims the whole data tree.
	Roots []string
	// Modules are Rego sources by path in the bundle ("/org/policy.rego").
	Modules map[string]string
	Data    map[string]any
	// Secret signs the bundle with HS256 under KeyID; "" leaves it unsigned.
	Secret, KeyID string
}

// Build writes the bundle (.tar.gz).
func Build(t testing.TB, s Spec) []byte {
	t.Helper()
	b := bundle.Bundle{Manifest: bundle.Manifest{Revision: s.Revision}, Data: s.Data}
	if s.Roots != nil {
		b.Manifest.Roots = &s.Roots
	}
	if b.Data == nil {
		b.Data = map[string]any{}
	}
	for path, src := range s.Modules {
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: path, Path: path, Raw: []byte(src)})
	}
	if s.Secret != "" {
		if err := b.GenerateSignature(bundle.NewSigningConfig(s.Secret, "HS256", ""), s.KeyID, false); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Server answers every request with one body and status, which Set
// changes: a bundle server that can go down or serve garbage.
type Server struct {
	mu     sync.Mutex
	body   []byte
	status int
}

// Set makes the server answer with status and body.
func (s *Server) Set(body []byte, status int) {
	s.mu.Lock()
	s.body, s.status = body, status
	s.mu.Unlock()
}

func (s *Server) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	body, status := s.body, s.status
	s.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Collector is a decision-log service: it keeps the events of every upload
// (gzip'd JSON arrays, as OPA's decision-log plugin sends them).
type Collector struct {
	mu     sync.Mutex
	raw    bytes.Buffer
	events []map[string]any
}

func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	var evs []map[string]any
	if err != nil || json.Unmarshal(data, &evs) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.raw.Write(data)
	c.events = append(c.events, evs...)
	c.mu.Unlock()
}

// Raw is every upload's JSON, concatenated.
func (c *Collector) Raw() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw.String()
}

// Events are the decisions received.
func (c *Collector) Events() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.events...)
}
