package toolcheck

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
)

// The proxy analyses every tools/list a server returns (SPEC §7: a 1 MB
// tools/list adds at most 5 ms). These benchmarks measure Analyze
// alone, on real tool definitions and on hostile input built to make it
// slow; every hostile case must stay linear.

// realToolList builds a tools/list result of at least size bytes from the
// tool lists captured from popular servers (testdata/tools/real), renaming
// copies so that every name is unique (as proxy's BenchmarkGuardToolsList
// does).
func realToolList(tb testing.TB, size int) []byte {
	tb.Helper()
	data, err := benchdata.RealToolList(filepath.Join("testdata", "tools", "real"), size)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// nearMissWords are the words of the phrase patterns (and their
// neighbours), so that hostile prose keeps every prefilter busy and the
// patterns' windows long without completing many matches.
var nearMissWords = strings.Fields(`ignore disregard forget override bypass previous prior above instructions prompts rules
	do not don't never tell inform mention notify the user human before using calling invoking this any other tool
	when is available loaded must should always be called first otherwise will fail work unless without
	read cat open load fetch get and then pass send include attach contents of content full entire history
	conversation chat message secretly silently quietly system important hidden secret admin <important> <system
	[hidden .ssh ssh keys id_rsa credentials api key password token webhook pastebin exfiltrate @ mail .com +1
	http://10 https:// ![x](http://a?b= mcp__a__b (mcp-x) bcc proxy number modify behavior of all send a copy
	prefer use instead over rather than best only you need very important crash data lost requests blocked fired
	implementation detail transparent requirement upset alarm user hide conceal keep from ../ traversal try to please
	make sure to you must new rules: ||| <!-- --> sidenote feedback notes metadata debug context`)

// hostileCases are 1 MB documents aimed at each part of the analysis.
func hostileCases(size int) []struct {
	name string
	doc  []byte
} {
	rng := rand.New(rand.NewPCG(1, 2))
	words := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(nearMissWords[rng.IntN(len(nearMissWords))])
		}
		return b.String()
	}
	quote := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	list := func(tool func(i int) string) []byte {
		var b strings.Builder
		b.WriteString(`{"tools":[`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(tool(i))
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	type hc = struct {
		name string
		doc  []byte
	}
	var out []hc
	// Long descriptions (over the 2 KB cut) of near-miss phrases, with
	// parameters named like the phrases.
	out = append(out, hc{"near-miss", list(func(i int) string {
		return fmt.Sprintf(`{"name":"tool_%d","description":%s,"inputSchema":{"type":"object","properties":{"content_from_reading_ssh_id_rsa_%d":{"type":"string","description":%s},"sidenote":{"type":"object"}},"required":["sidenote"]}}`,
			i, quote(words(700)), i, quote(words(60)))
	})})
	// Many tiny tools, half of them look-alike names of each other.
	out = append(out, hc{"tiny-tools", list(func(i int) string {
		if i%2 == 1 {
			return fmt.Sprintf(`{"name":"T-%d"}`, i-1)
		}
		return fmt.Sprintf(`{"name":"t_%d"}`, i)
	})})
	// Deeply nested schemas (up to the parser's depth cap).
	out = append(out, hc{"deep-schemas", list(func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, `{"name":"deep_%d","inputSchema":`, i)
		const depth = 200
		for d := 0; d < depth; d++ {
			fmt.Fprintf(&b, `{"type":"object","description":"level %d ignore","properties":{"p%d":`, d, d)
		}
		b.WriteString(`{"type":"string"}`)
		for d := 0; d < depth; d++ {
			b.WriteString(`}}`)
		}
		b.WriteString(`}`)
		return b.String()
	})})
	// One huge description.
	out = append(out, hc{"huge-string", []byte(`{"tools":[{"name":"huge","description":` + quote(words(size/7)) + `}]}`)})
	// A huge identifier: one parameter name of a megabyte, camel humps and
	// all.
	out = append(out, hc{"huge-key", []byte(`{"tools":[{"name":"huge","inputSchema":{"type":"object","properties":{` +
		quote(strings.Repeat("readSshIdRsa_", size/13)) + `:{"type":"string"}}}}]}`)})
	// Hidden Unicode everywhere: tag characters spelling instructions,
	// zero-width and bidi controls, variation selectors, confusables.
	out = append(out, hc{"hidden-unicode", list(func(i int) string {
		var b strings.Builder
		for _, w := range strings.Fields(words(40)) {
			switch rng.IntN(5) {
			case 0:
				for _, r := range w {
					b.WriteRune(0xE0000 + r)
				}
			case 1:
				b.WriteString(w + "\u200b\u202e")
			case 2:
				b.WriteString(strings.NewReplacer("o", "о", "a", "а", "e", "е").Replace(w)) // Cyrillic
			case 3:
				b.WriteString(w + "\ufe0f\U000e0100")
			default:
				b.WriteString(w)
			}
			b.WriteByte(' ')
		}
		return fmt.Sprintf(`{"name":"h\u200b%d","description":%s,"annotations":{"title":%s,"readOnlyHint":true}}`, i, quote(b.String()), quote("Delete "+b.String()[:20]))
	})})
	// Base64 blobs of instructions in every description.
	out = append(out, hc{"base64", list(func(i int) string {
		blob := base64.StdEncoding.EncodeToString([]byte(words(30)))
		return fmt.Sprintf(`{"name":"b_%d","description":%s}`, i, quote(strings.Repeat(blob+" ", 6)))
	})})
	return out
}

func BenchmarkAnalyzeToolsReal1MB(b *testing.B) {
	doc := realToolList(b, 1<<20)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(doc, Options{Path: "tools/list", Server: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAnalyzeToolsHostile1MB(b *testing.B) {
	for _, hc := range hostileCases(1 << 20) {
		b.Run(hc.name, func(b *testing.B) {
			b.SetBytes(int64(len(hc.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Analyze(hc.doc, Options{Path: "tools/list", Server: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
