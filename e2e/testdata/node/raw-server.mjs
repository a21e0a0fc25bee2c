// A raw MCP server over stdio for mcpguard's framing tests: it answers
// initialize and ping like any server, and answers tools/list with the
// bytes of --frame FILE, in which __ID__ stands for the request's id (as
// JSON). No SDK: the point is to send frames an SDK would never write.
//
//   node raw-server.mjs --frame FILE
import { readFileSync } from "node:fs";

const i = process.argv.indexOf("--frame");
if (i < 0 || !process.argv[i + 1]) {
  process.stderr.write("usage: node raw-server.mjs --frame FILE\n");
  process.exit(2);
}
const frame = readFileSync(process.argv[i + 1]);

let buf = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
    const line = buf.subarray(0, nl).toString("utf8");
    buf = buf.subarray(nl + 1);
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    if (msg.id === undefined) continue;
    const id = Buffer.from(JSON.stringify(msg.id));
    if (msg.method === "tools/list") {
      const parts = [];
      let rest = frame;
      for (let at = rest.indexOf("__ID__"); at >= 0; at = rest.indexOf("__ID__")) {
        parts.push(rest.subarray(0, at), id);
        rest = rest.subarray(at + 6);
      }
      parts.push(rest);
      process.stdout.write(Buffer.concat(parts));
      continue;
    }
    let result = {};
    if (msg.method === "initialize") {
      result = {
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "raw-server", version: "1.0.0" },
      };
    }
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }) + "\n");
  }
});
process.stdin.on("end", () => process.exit(0));
