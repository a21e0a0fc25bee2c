// The hostile server of hostile-server.mjs on the TypeScript SDK 2.x
// (@modelcontextprotocol/server), for the e2e tests of the 2026-07-28
// revision: the same tools and instructions, served to stateless clients
// (server/discover, per-request _meta, no initialize) and, with --legacy
// too, to clients of 2025-11-25 and earlier.
//
//   node modern-server.mjs [--legacy]          # stdio
//   node modern-server.mjs --http [--legacy]   # Streamable HTTP, prints
//       "modern-server: listening on URL" to stderr
import { createServer as createHTTPServer } from "node:http";
import { Server, createMcpHandler } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { tools, INSTRUCTIONS } from "./hostile-server.mjs";

const MODERN = "2026-07-28";

function text(s) {
  return { content: [{ type: "text", text: s }] };
}

function newServer(legacy) {
  const versions = legacy ? [MODERN, "2025-11-25", "2025-06-18", "2025-03-26"] : [MODERN];
  const server = new Server(
    { name: "mcpguard-e2e-modern", version: "2.0.0" },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS, supportedProtocolVersions: versions },
  );
  server.setRequestHandler("tools/list", async () => ({ tools: tools(false), ttlMs: 60000, cacheScope: "private" }));
  server.setRequestHandler("tools/call", async (req) => {
    const name = req.params.name;
    if (!tools(false).some((t) => t.name === name)) throw new Error(`unknown tool ${JSON.stringify(name)}`);
    return text(`called ${name}`);
  });
  return server;
}

// serveHTTP serves the Streamable HTTP transport of both eras (or the new
// one only) from the SDK's fetch handler, on a free port.
function serveHTTP(legacy) {
  const handler = createMcpHandler(() => newServer(legacy), { legacy: legacy ? "stateless" : "reject" });
  const http = createHTTPServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (Array.isArray(v)) for (const x of v) headers.append(k, x);
        else if (v !== undefined) headers.set(k, v);
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    } catch (err) {
      process.stderr.write(`modern-server: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  http.listen(0, "127.0.0.1", () => {
    const { port } = http.address();
    process.stderr.write(`modern-server: listening on http://127.0.0.1:${port}/mcp\n`);
  });
  const stop = () => http.close(() => process.exit(0)) && http.closeAllConnections();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

function main(argv) {
  const legacy = argv.includes("--legacy");
  if (argv.includes("--http")) serveHTTP(legacy);
  else serveStdio(() => newServer(legacy), { legacy: legacy ? "serve" : "reject" });
}

main(process.argv.slice(2));
