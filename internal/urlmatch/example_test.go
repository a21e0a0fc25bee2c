package urlmatch_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/internal/urlmatch"
)

func ExampleMatch() {
	fmt.Println(urlmatch.Match("https://*.acme.example/*", "https://eu.acme.example:9000/mcp"))
	fmt.Println(urlmatch.Match("https://*.acme.example/*", "https://evil.test/.acme.example/x"))
	fmt.Println(urlmatch.Match("https://mcp.acme.example/", "https://mcp.acme.example/?x=1"))
	// Output:
	// true
	// false
	// false
}

func ExampleWeaknesses() {
	for _, w := range urlmatch.Weaknesses("https://mcp.acme.example*") {
		fmt.Println(w.Kind, w.Example)
	}
	// Output:
	// host-wildcard-any-port https://mcp.acme.examplex:9000/
	// glued-wildcard https://mcp.acme.example.evil.test/
	// no-path https://mcp.acme.examplex/admin?debug=1
	// legacy-bypass https://mcp.acme.example1@evil.test
}

func ExampleUnsafeAllowEntry() {
	env := func(name string) (string, bool) { return "evil.test/x?", name == "HOST" }
	fmt.Println(urlmatch.UnsafeAllowEntry("https://${HOST}/*", env))
	// Output:
	// true the value of HOST lands in the authority and holds /, @, #, ?, \ or whitespace
}
