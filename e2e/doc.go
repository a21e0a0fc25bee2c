// Package e2e holds mcpguard's end-to-end tests: real MCP peers from npm
// talking to each other through the mcpguard binary.
//
// TestMain builds the binary once (go build ./cmd/mcpguard into a temporary
// directory). The tests then drive the official TypeScript SDK's Client
// (testdata/node/client.mjs) through `mcpguard proxy`, over stdio and over
// Streamable HTTP, to two servers:
//
//   - @modelcontextprotocol/server-everything, the SDK's reference server:
//     every tool is listed and called (arguments derived from its input
//     schema; the client answers sampling, elicitation and roots requests with
//     fixed results), and what the client observes through the proxy must be
//     what it observes on a direct connection;
//   - testdata/node/hostile-server.mjs, built with the SDK: hidden Unicode must
//     be stripped, poisoned tools withheld and calls to them refused (JSON-RPC
//     error -32001), a poisoned prompt and resource template left out of
//     prompts/list and resources/templates/list and a prompts/get of the
//     prompt refused, a lying readOnlyHint dropped, the IDE allowlist enforced
//     with --ide, and a rug pull after notifications/tools/list_changed caught
//     by the pins until `mcpguard pins approve`; --mode monitor must forward
//     everything unchanged and still write events.
//
// The 2026-07-28 revision (eras_test.go): testdata/node/modern-server.mjs
// serves the hostile server's tools with the SDK 2.x
// (@modelcontextprotocol/server), to clients of both revisions or of the new
// one only, and testdata/node/client2.mjs drives the SDK 2.x Client in
// either era (--era legacy: initialize; --era modern: the revision pinned,
// server/discover and per-request _meta). Every pairing of SDK 1.x and 2.x
// clients and servers, in each era they share, runs over stdio and
// Streamable HTTP, directly and through the proxy; TestIntrospectEras runs
// scan --introspect against the modern-only server.
//
// TestConformanceDNSRebinding runs the MCP conformance suite's
// dns-rebinding-protection scenario (@modelcontextprotocol/conformance)
// against the proxy's HTTP listener; on Node 20 it preloads
// testdata/node/conformance-node20.mjs, which lends the suite's CLI the
// fs.globSync of Node 22.
//
// Each test has its own pin file and event log; assertions on the event log
// read its JSON lines (kind, rule, tool), never the messages' wording.
//
// The peers' exact versions are locked in testdata/node/package-lock.json.
// Install them once (CI's .ci/run does) and run the tests with the rest:
//
//	npm ci --prefix e2e/testdata/node
//	go test ./e2e/
//
// MCPGUARD_E2E_BINARY=/path/to/mcpguard tests that binary instead of
// building one. Without node on PATH or without testdata/node/node_modules the tests skip
// and say so. The tests run in parallel; the package takes 15 to 20 seconds
// on two cores (building the binary, and server-everything's task-based
// tool, which alone runs for five).
package e2e
