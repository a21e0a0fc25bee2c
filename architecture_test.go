package mcpguard_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mcpguard/mcpguard"

// layers states the dependency direction of SPEC §3, leaves first: a
// package may import packages of lower layers only, never one of its own
// layer or above. Every package of the module must be listed (a new
// package is placed deliberately), either by its path or by a prefix
// ending in "/...".
var layers = [][]string{
	// Leaves: the standard library and x/ only, or other leaves.
	{"unicode/...", "rego", "internal/jsonc", "internal/jsonquote", "internal/interp", "internal/secrets", "internal/wrapargv",
		"internal/chunks", "internal/atomicfile", "internal/filelock", "internal/mcpio", "internal/benchdata",
		"internal/oracle", "internal/schematest", "internal/bundletest", "internal/hugeheap",
		"internal/regoir"},
	// Leaves built on leaves.
	{"internal/urlmatch", "internal/jsonedit", "internal/events"},
	// Report v1 wire types, the rule catalog and the renderers: no OPA.
	{"reports"},
	// Small parsers that speak the report vocabulary (errors[], rule ids).
	{"internal/cfgfile", "internal/ignorefile"},
	// The OPA engine.
	{"policy"},
	// Enterprise policy sources: managed settings files, and fleet policy
	// from OPA bundles.
	{"managed", "fleetpolicy"},
	// OPA's own bundle, decision-log and status plugins, linked only by
	// the mcpguard-opa build (see notLinked).
	{"fleetpolicy/opaplugins"},
	// Config discovery and Claude Code resolution; tool analysis beside it,
	// which must not see config discovery (the proxy links it).
	{"scanner", "toolcheck"},
	{"pins"},
	// Starting configured servers and analysing what they offer.
	{"introspect"},
	// The pipeline every command shares; the proxy; config rewriting.
	{"runner", "proxy", "wrap"},
	{"daemon/..."},
	{"cmd/...", "bench/...", "e2e", "packaging"},
}

// notLinked lists packages that must stay out of a package's whole
// dependency graph, standard library and modules included.
var notLinked = map[string][]string{
	"proxy":               append([]string{module + "/scanner", module + "/managed", module + "/runner"}, opaPlugins...),
	"reports":             {"github.com/open-policy-agent/"},
	"internal/ignorefile": {"github.com/open-policy-agent/"},
	"internal/cfgfile":    {"github.com/open-policy-agent/"},
	"toolcheck":           {module + "/scanner", module + "/managed"},
	// OPA's plugins (an OCI client, Prometheus, telemetry) cost every
	// process that links them their initialisation: the default build,
	// which runs every pre-commit scan, leaves them to mcpguard-opa. The
	// same for cyclonedx-go and the encoding/gob it brings: the BOM is
	// written from reports' own types; and for x/text/cases, whose
	// language tables were parsed at start-up for case folding that
	// package unicode keeps in tables of its own; and for runtime/pprof,
	// whose presence keeps heap-profile sampling on (cmd/mcpguard's
	// profile_off.go); and for runtime/metrics, whose initialisation builds
	// its table of descriptions (the daemon reads runtime.MemStats).
	// OPA's compile package (the planner, bundles) makes the shipped plan at
	// build time (policy's TestShippedPlan); no command plans at run time.
	"cmd/mcpguard": append([]string{"github.com/open-policy-agent/opa/v1/compile", "github.com/CycloneDX/", "encoding/gob", "golang.org/x/text/cases", "golang.org/x/text/language", "runtime/pprof", "runtime/metrics"}, opaPlugins...),
	"daemon":       opaPlugins,
	"runner":       opaPlugins,
}

var opaPlugins = []string{
	module + "/fleetpolicy/opaplugins", "github.com/open-policy-agent/opa/v1/sdk", "github.com/open-policy-agent/opa/v1/plugins",
	"github.com/open-policy-agent/opa/v1/download", "oras.land/", "github.com/prometheus/",
}

// TestImportBoundaries fails when a package imports one of its own layer
// or above (SPEC §3). Test files may import upward; they are not checked.
func TestImportBoundaries(t *testing.T) {
	imports := moduleImports(t)
	for pkg, deps := range imports {
		from, ok := layerOf(pkg)
		if !ok {
			t.Errorf("package %s is in no layer of architecture_test.go: place it", pkg)
			continue
		}
		for _, dep := range deps {
			to, ok := layerOf(dep)
			if !ok {
				continue // reported as a package of its own
			}
			if to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): dependencies point from the leaves up (SPEC §3)", pkg, from, dep, to)
			}
		}
	}
}

// TestNotLinked runs go list -deps: the proxy never links config
// discovery, the report types never link OPA, and the default build never
// links OPA's plugins.
func TestNotLinked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for pkg, forbidden := range notLinked {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f) && strings.HasSuffix(f, "/") {
					t.Errorf("%s links %s", pkg, dep)
				}
			}
		}
	}
}

// TestLayersCatchAnUpwardImport checks the checker on a made-up import.
func TestLayersCatchAnUpwardImport(t *testing.T) {
	from, _ := layerOf("reports")
	to, _ := layerOf("policy")
	if to < from {
		t.Fatal("policy is below reports: an upward import would pass")
	}
}

func layerOf(pkg string) (int, bool) {
	for i, layer := range layers {
		for _, p := range layer {
			if p == pkg || strings.HasSuffix(p, "/...") && (pkg == strings.TrimSuffix(p, "/...") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "..."))) {
				return i, true
			}
		}
	}
	return 0, false
}

// moduleImports returns, for every package directory of the module, the
// module packages its non-test files import (whatever their build tags).
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Dir(filepath.ToSlash(p))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(ip, module+"/"); ok {
				out[pkg] = append(out[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(out, ".")
	for pkg := range out {
		sort.Strings(out[pkg])
	}
	return out
}
