package fleetpolicy

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/keys"
)

// SettingsPath is where a bundle keeps its managed-settings document:
// data.mcpguard.managed_settings, shaped like managed-settings.json
// (allowedMcpServers, deniedMcpServers, ...).
var SettingsPath = []string{"mcpguard", "managed_settings"}

// Ref names one bundle and the revision of it in force.
type Ref struct {
	Name     string `json:"name"`
	Revision string `json:"revision"`
}

// Policy is what the active bundles give mcpguard.
type Policy struct {
	// Bundles are the bundles it came from, by name.
	Bundles []Ref
	// Modules are the Rego sources, by "bundle:<name>/<path>".
	Modules map[string]string
	// Data is the bundles' data for their rules, without the "mcpguard"
	// key (mcpguard's own namespace).
	Data map[string]any
	// Settings is the managed-settings document (JSON) of each bundle that
	// has one, by "bundle:<name>/mcpguard/managed_settings".
	Settings map[string][]byte
}

// Revision is the revisions in force (Revisions of its bundles).
func (p *Policy) Revision() string { return Revisions(p.Bundles) }

// Revisions renders bundles as "name@revision" joined by commas.
func Revisions(refs []Ref) string {
	parts := make([]string, len(refs))
	for i, b := range refs {
		parts[i] = b.Name + "@" + b.Revision
	}
	return strings.Join(parts, ",")
}

// Same reports whether q is p: the same bundle revisions and modules (a
// bundle rebuilt without a new revision still counts as new).
func (p *Policy) Same(q *Policy) bool {
	return p != nil && q != nil && p.Revision() == q.Revision() && maps.Equal(p.Modules, q.Modules)
}

// AddBundle puts one bundle's content into p: its Rego modules by path,
// and data, the data document (shared by every bundle; give it once).
func (p *Policy) AddBundle(name, revision string, modules map[string][]byte, data map[string]any) error {
	if p.Modules == nil {
		p.Modules, p.Data, p.Settings = map[string]string{}, map[string]any{}, map[string][]byte{}
	}
	p.Bundles = append(p.Bundles, Ref{Name: name, Revision: revision})
	sort.Slice(p.Bundles, func(i, j int) bool { return p.Bundles[i].Name < p.Bundles[j].Name })
	for id, src := range modules {
		p.Modules["bundle:"+name+"/"+strings.TrimPrefix(id, "/")] = string(src)
	}
	for k, v := range data {
		if k == "mcpguard" || k == "system" {
			continue // mcpguard's namespace; OPA's bundle metadata
		}
		p.Data[k] = v
	}
	if m, ok := data["mcpguard"].(map[string]any); ok {
		if s, ok := m[SettingsPath[1]]; ok {
			doc, err := json.Marshal(s)
			if err != nil {
				return fmt.Errorf("bundle %s: data.%s: %w", name, strings.Join(SettingsPath, "."), err)
			}
			p.Settings["bundle:"+name+"/"+path.Join(SettingsPath...)] = doc
		}
	}
	return nil
}

// Verification says how a bundle file must be signed: with Key set, an
// unsigned bundle, one signed with another key, or one whose files do not
// match the signature is refused.
type Verification struct {
	// Key is a PEM public key (RSA, ECDSA), a file holding one, or an HMAC
	// secret, as for `opa run --verification-key`.
	Key string
	// KeyID names the key in the signature (default "default").
	KeyID string
	// Algorithm is the signing algorithm (default RS256).
	Algorithm string
}

// LoadFile reads a bundle file (a .tar.gz as `opa build` writes it),
// verifying its signature when v.Key is set, as OPA's bundle reader does.
func LoadFile(file string, v Verification) (*Policy, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bundle.NewReader(f).WithRegoVersion(ast.RegoV1).WithProcessAnnotations(true).WithSizeLimitBytes(maxBundleBytes)
	if v.Key == "" {
		// No key, no check: as `opa eval --bundle` reads a bundle.
		r = r.WithSkipBundleVerification(true)
	} else {
		kc, err := keys.NewKeyConfig(v.Key, defaultString(v.Algorithm, "RS256"), "")
		if err != nil {
			return nil, fmt.Errorf("verification key: %w", err)
		}
		id := defaultString(v.KeyID, "default")
		r = r.WithBundleVerificationConfig(bundle.NewVerificationConfig(map[string]*keys.Config{id: kc}, id, "", nil))
	}
	b, err := r.Read()
	if err != nil {
		return nil, err
	}
	if v.Key != "" && len(b.Signatures.Signatures) == 0 {
		return nil, fmt.Errorf("bundle is not signed")
	}
	modules := map[string][]byte{}
	for _, m := range b.Modules {
		modules[m.Path] = m.Raw
	}
	name := strings.TrimSuffix(strings.TrimSuffix(path.Base(file), ".gz"), ".tar")
	p := &Policy{}
	if err := p.AddBundle(name, b.Manifest.Revision, modules, b.Data); err != nil {
		return nil, err
	}
	return p, nil
}

func defaultString(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// maxBundleBytes bounds a bundle file's decompressed size (OPA's own
// default limit).
const maxBundleBytes = bundle.DefaultSizeLimitBytes
