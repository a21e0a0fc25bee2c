package urlmatch

import (
	"strings"
	"testing"
)

// parseCase is a web-platform-tests style expectation. An empty want means
// the input must fail to parse.
type parseCase struct {
	in   string
	href string // "" = failure
	host string // JavaScript url.host, checked when href != ""
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, c := range cases {
		u, err := Parse(c.in)
		if c.href == "" {
			if err == nil {
				t.Errorf("Parse(%q) = %q, want failure", c.in, u.Href())
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q) failed, want %q", c.in, c.href)
			continue
		}
		if u.Href() != c.href {
			t.Errorf("Parse(%q).Href() = %q, want %q", c.in, u.Href(), c.href)
		}
		if c.host != "" && u.Host != c.host {
			t.Errorf("Parse(%q).Host = %q, want %q", c.in, u.Host, c.host)
		}
	}
}

func TestParseIPv4(t *testing.T) {
	runParseCases(t, []parseCase{
		{"http://127.0.0.1/", "http://127.0.0.1/", "127.0.0.1"},
		{"http://0x7f.1/", "http://127.0.0.1/", "127.0.0.1"},
		{"http://0X7F.0.0.1/", "http://127.0.0.1/", ""},
		{"http://2130706433/", "http://127.0.0.1/", ""},
		{"http://0177.0.0.1/", "http://127.0.0.1/", ""},
		{"http://127.1/", "http://127.0.0.1/", ""},
		{"http://127.0.1/", "http://127.0.0.1/", ""},
		{"http://0x7f000001/", "http://127.0.0.1/", ""},
		{"http://017700000001/", "http://127.0.0.1/", ""},
		{"http://0/", "http://0.0.0.0/", ""},
		{"http://0x/", "http://0.0.0.0/", ""},
		{"http://1.2.3.4./", "http://1.2.3.4/", ""},
		{"http://255.255.255.255/", "http://255.255.255.255/", ""},
		{"http://4294967295/", "http://255.255.255.255/", ""},
		{"http://4294967296/", "", ""},
		{"http://256.0.0.1/", "", ""},
		{"http://1.2.3.256/", "", ""},
		{"http://1.2.65536/", "", ""},
		{"http://1.2.3.4.5/", "", ""},
		{"http://1..2/", "", ""},
		{"http://09/", "", ""},
		{"http://0x1g/", "http://0x1g/", "0x1g"}, // not a number: a domain
		{"http://foo.0x/", "", ""},
		{"http://foo.09/", "", ""},
		{"http://1.2.3.09a/", "http://1.2.3.09a/", "1.2.3.09a"}, // not a number: a domain
		{"http://a.1/", "", ""},
		{"http://%31%32%37.0.0.1/", "http://127.0.0.1/", ""},
		{"http://０x7f.1/", "http://127.0.0.1/", ""},
		{"http://0xffffffffffffffffffff/", "", ""},
		{"http://" + strings.Repeat("0", 500) + "1/", "http://0.0.0.1/", ""},
		{"foo://0x7f.1/", "foo://0x7f.1/", "0x7f.1"}, // opaque host
	})
}

func TestParseIPv6(t *testing.T) {
	runParseCases(t, []parseCase{
		{"http://[::1]/", "http://[::1]/", "[::1]"},
		{"http://[0:0:0:0:0:0:0:1]/", "http://[::1]/", ""},
		{"http://[::]/", "http://[::]/", ""},
		{"http://[1::]/", "http://[1::]/", ""},
		{"http://[1:0:0:2::3:0]/", "http://[1::2:0:0:3:0]/", ""},
		{"http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/", ""},
		{"http://[1:0:1:0:1:0:1:0]/", "http://[1:0:1:0:1:0:1:0]/", ""},
		{"http://[ABCD:EF01::0001]/", "http://[abcd:ef01::1]/", ""},
		{"http://[::FFFF:127.0.0.1]/", "http://[::ffff:7f00:1]/", "[::ffff:7f00:1]"},
		{"http://[::127.0.0.1]/", "http://[::7f00:1]/", ""},
		{"http://[1:2:3:4:5:6:1.2.3.4]/", "http://[1:2:3:4:5:6:102:304]/", ""},
		{"http://[::1]:8080/", "http://[::1]:8080/", "[::1]:8080"},
		{"http://[::1]:80/", "http://[::1]/", "[::1]"},
		{"http://[1:2:3:4:5:6:7:8:9]/", "", ""},
		{"http://[1:2:3:4:5:6:7]/", "", ""},
		{"http://[1::2::3]/", "", ""},
		{"http://[:1]/", "", ""},
		{"http://[1:]/", "", ""},
		{"http://[12345::]/", "", ""},
		{"http://[::1.2.3]/", "", ""},
		{"http://[::1.2.3.4.5]/", "", ""},
		{"http://[::01.2.3.4]/", "", ""},
		{"http://[::256.2.3.4]/", "", ""},
		{"http://[1:2:3:4:5:6:7:1.2.3.4]/", "", ""},
		{"http://[::1/", "", ""},
		{"http://[::1]x/", "", ""},
		{"http://[%3A%3A1]/", "", ""},
		{"foo://[::1]/", "foo://[::1]/", ""},
	})
}

func TestParseIDNA(t *testing.T) {
	runParseCases(t, []parseCase{
		{"https://bücher.example/", "https://xn--bcher-kva.example/", ""},
		{"https://BÜCHER.example/", "https://xn--bcher-kva.example/", ""},
		{"https://ｅxample.com/", "https://example.com/", ""},
		{"https://EXAMPLE.COM/", "https://example.com/", ""},
		{"https://ex%61mple.com/", "https://example.com/", ""},
		{"https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/", ""},
		{"https://XN--BCHER-KVA.example/", "https://xn--bcher-kva.example/", ""},
		{"https://faß.de/", "https://xn--fa-hia.de/", ""},        // nontransitional
		{"https://a\u00adb.example/", "https://ab.example/", ""}, // soft hyphen ignored
		{"https://a。b.example/", "https://a.b.example/", ""},     // ideographic full stop
		{"https://r3---sn-abc.example/", "https://r3---sn-abc.example/", ""},
		{"https://-x-.example/", "https://-x-.example/", ""},
		{"https://a_b.example/", "https://a_b.example/", ""},
		{"https://xn--a.example/", "", ""},    // invalid Punycode
		{"https://xn--abc-.example/", "", ""}, // decodes to ASCII
		{"https://\ufffd.example/", "", ""},
		{"https://a\u200db.example/", "", ""},  // ZWJ out of context
		{"https://%ef%bc%85.example/", "", ""}, // fullwidth % maps to a forbidden %
		{"https://a%zz.example/", "", ""},
		{"https://a b.example/", "", ""},
		{"https://a<b.example/", "", ""},
		{"https://a^b.example/", "", ""},
		{"https://a|b.example/", "", ""},
		{"https://a%00b.example/", "", ""},
		{"https://%/", "", ""},
		{"foo://a%zz/", "foo://a%zz/", ""},
		{"foo://bücher/", "foo://b%C3%BCcher/", ""},
		{"foo://a b/", "", ""},
	})
}

func TestParsePercentEncoding(t *testing.T) {
	runParseCases(t, []parseCase{
		{"https://h/a b", "https://h/a%20b", ""},
		{"https://h/a\"<>`{}^b", "https://h/a%22%3C%3E%60%7B%7D%5Eb", ""},
		{"https://h/ü", "https://h/%C3%BC", ""},
		{"https://h/%7e/%41/%zz/%", "https://h/%7e/%41/%zz/%", ""},
		{"https://h/?a b\"#<>'", "https://h/?a%20b%22#%3C%3E'", ""},
		{"https://h/?'", "https://h/?%27", ""},
		{"foo://h/?'", "foo://h/?'", ""},
		{"https://h/?`{}^", "https://h/?`{}^", ""},
		{"https://h/#a b\"<>`", "https://h/#a%20b%22%3C%3E%60", ""},
		{"https://h/#ü", "https://h/#%C3%BC", ""},
		{"https://us er:p@ss@h/", "https://us%20er:p%40ss@h/", ""},
		{"https://a:b:c@h/", "https://a:b%3Ac@h/", ""},
		{"https://a;=@h/", "https://a%3B%3D@h/", ""},
		{"https://:@h/", "https://h/", ""},
		{"https://@h/", "https://h/", ""},
		{"https://a@/", "", ""},
		{"https://\x00h/", "", ""},
		{"mailto:a b?c d", "mailto:a b?c%20d", ""},
		{"mailto:a\x7f", "mailto:a%7F", ""},
	})
}

func TestParseDotSegments(t *testing.T) {
	runParseCases(t, []parseCase{
		{"https://h/a/../b", "https://h/b", ""},
		{"https://h/a/./b", "https://h/a/b", ""},
		{"https://h/a/%2e%2e/b", "https://h/b", ""},
		{"https://h/a/%2E%2e/b", "https://h/b", ""},
		{"https://h/a/.%2e/b", "https://h/b", ""},
		{"https://h/a/%2e./b", "https://h/b", ""},
		{"https://h/a/%2e/b", "https://h/a/b", ""},
		{"https://h/a/..", "https://h/", ""},
		{"https://h/a/.", "https://h/a/", ""},
		{"https://h/a/..?x", "https://h/?x", ""},
		{"https://h/../../x", "https://h/x", ""},
		{"https://h/a\\..\\b", "https://h/b", ""},
		{"foo://h/a\\..\\b", "foo://h/a\\..\\b", ""},
		{"https://h/a/...", "https://h/a/...", ""},
		{"https://h/a/%2e%2e%2e", "https://h/a/%2e%2e%2e", ""},
		{"foo:/.//p", "foo:/.//p", ""},
		{"foo:/..//p", "foo:/.//p", ""},
	})
}

func TestParseStructure(t *testing.T) {
	runParseCases(t, []parseCase{
		{"  https://h/x  ", "https://h/x", ""},
		{"\x00\x1f https://h/x \x01", "https://h/x", ""},
		{"https://h.ex\tam\nple/\r", "https://h.example/", ""},
		{"https:///evil.test/x", "https://evil.test/x", ""},
		{"https:evil.test/x", "https://evil.test/x", ""},
		{"https:\\\\evil.test\\x", "https://evil.test/x", ""},
		{"https://evil.test\\@mcp.acme.example/", "https://evil.test/@mcp.acme.example/", "evil.test"},
		{"HTTPS://MCP.Acme.Example/X", "https://mcp.acme.example/X", ""},
		{"https://h", "https://h/", ""},
		{"https://h?q", "https://h/?q", ""},
		{"https://h#f", "https://h/#f", ""},
		{"https://h?", "https://h/?", ""},
		{"https://h:443/", "https://h/", "h"},
		{"https://h:0443/", "https://h/", "h"},
		{"http://h:80/", "http://h/", "h"},
		{"ws://h:80/", "ws://h/", "h"},
		{"wss://h:443/", "wss://h/", "h"},
		{"ftp://h:21/", "ftp://h/", "h"},
		{"https://h:80/", "https://h:80/", "h:80"},
		{"https://h:65535/", "https://h:65535/", ""},
		{"https://h:65536/", "", ""},
		{"https://h:99999/", "", ""},
		{"https://h:" + strings.Repeat("0", 100) + "8/", "https://h:8/", ""},
		{"https://h:/", "https://h/", ""},
		{"https://h:x/", "", ""},
		{"https://h:*/x", "", ""},
		{"https://:443/", "", ""},
		{"https://", "", ""},
		{"https:", "", ""},
		{"https:/", "", ""},
		{"mcp.acme.example/*", "", ""},
		{"//mcp.acme.example/", "", ""},
		{"/x", "", ""},
		{"", "", ""},
		{"1http://h/", "", ""},
		{"ht tp://h/", "", ""},
		{"zzwildcard0123zz://Host:443/a/../b", "zzwildcard0123zz://Host:443/b", "Host:443"},
		{"foo://", "foo://", ""},
		{"foo://h", "foo://h", ""},
		{"foo:", "foo:", ""},
		{"foo:bar", "foo:bar", ""},
		{"foo:/bar", "foo:/bar", ""},
		{"file:///etc/passwd", "file:///etc/passwd", ""},
		{"file://localhost/etc", "file:///etc", ""},
		{"file://h/x", "file://h/x", ""},
		{"file:c:\\x", "file:///c:/x", ""},
		{"file:///C|/x/../..", "file:///C:/", ""},
		{"file:", "file:///", ""},
	})
}

func TestURLAccessors(t *testing.T) {
	u, err := Parse("HTTPS://alice:pw@[::1]:8443/a/../b c?x y#f g")
	if err != nil {
		t.Fatal(err)
	}
	got := [...]string{u.Protocol(), u.Username, u.Password, u.Host, u.Hostname, u.Port, u.Pathname, u.Search, u.Hash, u.Href(), u.String()}
	want := [...]string{"https:", "alice", "pw", "[::1]:8443", "[::1]", "8443", "/b%20c", "?x%20y", "#f%20g",
		"https://alice:pw@[::1]:8443/b%20c?x%20y#f%20g", "https://alice:pw@[::1]:8443/b%20c?x%20y#f%20g"}
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// An empty query and fragment are kept by Href but not by Search/Hash.
	u, _ = Parse("https://h/p?#")
	if u.Search != "" || u.Hash != "" || u.Href() != "https://h/p?#" {
		t.Errorf("empty query/fragment: %q %q %q", u.Search, u.Hash, u.Href())
	}
	if !IsSpecialScheme("wss") || IsSpecialScheme("mcp") {
		t.Error("IsSpecialScheme")
	}
}

// TestParseRoundTrip checks that Href is a fixed point of Parse.
func TestParseRoundTrip(t *testing.T) {
	for _, in := range []string{
		"https://h/a b?c d#e f", "foo:/.//p", "foo://h", "web+demo:/.//not-a-host/", "a:b c",
		"HTTP://[::FFFF:1.2.3.4]:80/%2e/x", "file:///C|/x", "https://bücher.example/ü?ü#ü",
	} {
		u, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		v, err := Parse(u.Href())
		if err != nil || v.Href() != u.Href() {
			t.Errorf("round trip of %q: %q -> %v %v", in, u.Href(), v, err)
		}
	}
}
