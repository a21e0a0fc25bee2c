package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
)

// docFiles are the Markdown files a reader of the repository follows.
func docFiles(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CHANGELOG.md"), filepath.Join(root, "packaging", "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(more) < 10 {
		t.Fatalf("docs: %v %v", more, err)
	}
	return append(files, more...)
}

// prose is a Markdown file without its fenced code blocks and code spans,
// where a link is not a link.
func prose(data string) string {
	data = regexp.MustCompile("(?s)```.*?```").ReplaceAllString(data, "")
	return regexp.MustCompile("`[^`\n]*`").ReplaceAllString(data, "")
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// anchors are the fragment ids GitHub gives a Markdown file's headings
// (lower case, punctuation dropped, spaces as hyphens, repeats numbered)
// and its explicit <a id> anchors.
func anchors(data string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range mdHeading.FindAllStringSubmatch(regexp.MustCompile("(?s)```.*?```").ReplaceAllString(data, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 0x7f && r != '§' && r != '—' && r != '–':
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"`).FindAllStringSubmatch(data, -1) {
		out[m[1]] = true // an explicit anchor
	}
	return out
}

// TestDocLinksResolve: every relative link in README.md, CHANGELOG.md,
// packaging/README.md and docs/ names a file of the repository, and a
// fragment into a Markdown file names one of its headings.
func TestDocLinksResolve(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range mdLink.FindAllStringSubmatch(prose(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), filepath.FromSlash(path))
				if !strings.HasPrefix(file, root+string(filepath.Separator)) {
					t.Errorf("%s: link %s leaves the repository", rel, target)
					continue
				}
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %s: no such file", rel, target)
					continue
				}
			}
			checked++
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(body))[frag] {
				t.Errorf("%s: link %s: no heading #%s in %s", rel, target, frag, filepath.Base(file))
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d links: the pattern no longer finds them", checked)
	}
}

// TestDocsNameOnlyWhatExists: no document sends a reader to a file that is
// not in the repository (the research notes the project was built from)
// or to a specification section a reader cannot open.
func TestDocsNameOnlyWhatExists(t *testing.T) {
	root := repoRoot(t)
	mention := regexp.MustCompile(`\bdocs/[a-z0-9-]+\.md\b|\bSPEC §|\b(claude-code|threats|clients|style|peers)\.md\b`)
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range mention.FindAllString(line, -1) {
				p := m
				if !strings.HasPrefix(p, "docs/") {
					p = "docs/" + p
				}
				if _, err := os.Stat(filepath.Join(root, p)); err != nil || strings.HasPrefix(m, "SPEC") {
					t.Errorf("%s:%d: names %q, which is not in the repository", rel, i+1, m)
				}
			}
		}
	}
}

// TestFormatListsComplete: a paragraph that lists the report formats
// (sarif, junit, csv, ...) names the two that lists used to forget,
// cyclonedx and html, unless it says it is not the whole list ("...").
func TestFormatListsComplete(t *testing.T) {
	root := repoRoot(t)
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, para := range strings.Split(string(data), "\n\n") {
			if !strings.Contains(para, "sarif") || !strings.Contains(para, "junit") || !strings.Contains(para, "csv") || strings.Contains(para, "...") {
				continue
			}
			for _, format := range []reports.Format{reports.FormatCycloneDX, reports.FormatHTML} {
				if !strings.Contains(para, string(format)) {
					t.Errorf("%s: a list of formats without %s:\n%s", rel, format, para)
				}
			}
		}
	}
}

// TestDocsNameOneRelease: every install line and pre-commit rev in the
// docs names one version of mcpguard, the one the changelog releases or
// prepares ("## Unreleased (vX.Y.Z)"; docs/release.md).
func TestDocsNameOneRelease(t *testing.T) {
	root := repoRoot(t)
	named := regexp.MustCompile(`(?m)github\.com/mcpguard/mcpguard/cmd/mcpguard@(v[0-9]+\.[0-9]+\.[0-9]+)|^\s*rev: (v[0-9]+\.[0-9]+\.[0-9]+)\b`)
	where := map[string][]string{}
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range named.FindAllStringSubmatch(string(data), -1) {
			v := m[1] + m[2]
			where[v] = append(where[v], rel)
		}
	}
	if len(where) == 0 {
		t.Fatal("the docs name no release")
	}
	if len(where) > 1 {
		t.Errorf("the docs name several releases: %v", where)
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	for v, files := range where {
		if !regexp.MustCompile(`(?m)^## (` + regexp.QuoteMeta(v) + ` |Unreleased \(` + regexp.QuoteMeta(v) + `\))`).Match(changelog) {
			t.Errorf("the docs name %s (%v), which CHANGELOG.md neither releases nor prepares", v, files)
		}
	}
}
