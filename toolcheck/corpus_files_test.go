package toolcheck

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// corpusDirs are the split real-server corpora of issue 44. The held-out
// set must stay unseen while rules change: this test only checks that each
// file is a well-formed tools/list result listed in its directory's README;
// it runs no rule and prints nothing about the tools.
var corpusDirs = []string{
	filepath.Join("testdata", "tools", "real", "dev"),
	filepath.Join("testdata", "tools", "real", "heldout"),
	filepath.Join("testdata", "tools", "real", "source"),
}

// corpusRow matches a README table row: | file | package | version | tools | captured |.
var corpusRow = regexp.MustCompile(`^\| ([a-z0-9._-]+\.json) \| ([^|]+) \| ([^|]+) \| ([0-9]+) \| (\d{4}-\d{2}-\d{2}) \|$`)

// checkToolsListResult reports why data is not a JSON-RPC tools/list
// result with at least one tool, each with a non-empty name and an object
// inputSchema, or "" when it is. It returns the number of tools. Repeated
// names are accepted: real servers send them (a tool registered twice), and
// the corpus keeps what the server sent.
func checkToolsListResult(data []byte) (int, string) {
	var doc struct {
		JSONRPC string `json:"jsonrpc"`
		Result  *struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return 0, "not JSON: " + err.Error()
	}
	if dec.More() {
		return 0, "trailing data after the JSON document"
	}
	if doc.JSONRPC != "2.0" || doc.Result == nil {
		return 0, "not a JSON-RPC 2.0 result"
	}
	if len(doc.Result.Tools) == 0 {
		return 0, "no tools"
	}
	for i, raw := range doc.Result.Tools {
		var t struct {
			Name        *string        `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return 0, "tool " + strconv.Itoa(i) + ": " + err.Error()
		}
		if t.Name == nil || *t.Name == "" {
			return 0, "tool " + strconv.Itoa(i) + ": no name"
		}
		if t.InputSchema == nil {
			return 0, "tool " + strconv.Itoa(i) + ": no inputSchema object"
		}
	}
	return len(doc.Result.Tools), ""
}

func TestCheckToolsListResult(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`, ""},
		{`[{"name":"a","inputSchema":{}}]`, "not JSON: json: cannot unmarshal array into Go value of type struct"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, "no tools"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, "not a JSON-RPC 2.0 result"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"inputSchema":{}}]}}`, "tool 0: no name"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}`, "tool 0: no inputSchema object"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"","inputSchema":{}}]}}`, "tool 0: no name"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":null}]}}`, "tool 0: no inputSchema object"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}]}} {}`, "trailing data after the JSON document"},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":[]}]}}`, "tool 0: json: cannot unmarshal array into Go struct field .inputSchema of type map[string]interface {}"},
	} {
		_, got := checkToolsListResult([]byte(tc.doc))
		if !strings.HasPrefix(got, tc.want) || (tc.want == "" && got != "") {
			t.Errorf("%s: got %q, want %q", tc.doc, got, tc.want)
		}
	}
}

// TestCorpusFiles checks that every captured file in dev/ and heldout/
// parses as a tools/list result and matches its README row, and that no
// package is in both sets. It reports only counts.
func TestCorpusFiles(t *testing.T) {
	pkgSet := map[string]string{}
	for _, dir := range corpusDirs {
		readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]int{}
		for _, line := range strings.Split(string(readme), "\n") {
			m := corpusRow.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if _, dup := rows[m[1]]; dup {
				t.Errorf("%s/README.md: %s listed twice", dir, m[1])
			}
			n, _ := strconv.Atoi(m[4])
			rows[m[1]] = n
			pkg := strings.Fields(m[2])[0]
			if other, dup := pkgSet[pkg]; dup {
				t.Errorf("a package is listed in both %s and %s", other, dir)
			}
			pkgSet[pkg] = dir
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("%s: no captured tool lists", dir)
		}
		tools := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n, why := checkToolsListResult(data)
			if why != "" {
				t.Errorf("%s: %s", f, why)
				continue
			}
			want, ok := rows[filepath.Base(f)]
			switch {
			case !ok:
				t.Errorf("%s: no row in %s/README.md", f, dir)
			case want != n:
				t.Errorf("%s: README says %d tools, the file has %d", f, want, n)
			}
			delete(rows, filepath.Base(f))
			tools += n
		}
		for f := range rows {
			t.Errorf("%s/README.md lists %s, which is not there", dir, f)
		}
		t.Logf("%s: %d servers, %d tools", filepath.Base(dir), len(files), tools)
	}
}
