// Package proxy sits between an MCP client and an MCP server and applies
// mcpguard's tool checks to live traffic: it sanitizes tools/list results,
// withholds tools that must not reach the model, pins tool definitions, and
// refuses calls to withheld tools — over stdio (newline-delimited JSON-RPC to a
// child process) and over Streamable HTTP.
//
// The proxy forwards the original bytes of every message it does not change,
// decodes only what it must inspect (responses to tools/list, the prompts
// and resources lists, initialize, and the results the model reads —
// prompts/get, tools/call, resources/read (results.go) —, tools/call
// requests, the server's sampling/createMessage and elicitation/create
// requests and an input_required result's inputRequests (requests.go),
// notifications/tools/list_changed), and never reorders or corrupts a
// message. It drops, in enforce mode, what no peer may send: a
// response to a request the other side has not sent or that was answered
// already (correlate.go), and what it cannot parse. Nothing but protocol is
// written to the client's side.
package proxy
