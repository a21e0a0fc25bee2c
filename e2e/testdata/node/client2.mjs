// The e2e client driver of client.mjs on the TypeScript SDK 2.x
// (@modelcontextprotocol/client), in either era:
//
//   node client2.mjs SCENARIO --era legacy|modern (--url URL | -- COMMAND [ARG...])
//
// --era legacy connects with initialize (the SDK's default); --era modern
// pins the 2026-07-28 revision (server/discover, per-request _meta, no
// session). Scenarios (as in client.mjs):
//   hostile  list tools; call every listed tool and every tool of
//            hostile-server.mjs that was not listed
//   list     list tools; call get_fact
// It prints the same JSON document as client.mjs, plus "era" (what was
// negotiated).
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { TOOL_NAMES as HOSTILE_TOOLS, tools as hostileTools } from "./hostile-server.mjs";

const TIMEOUT_MS = 30000;

function usage(msg) {
  process.stderr.write(`client2.mjs: ${msg}\nusage: node client2.mjs SCENARIO --era legacy|modern (--url URL | -- COMMAND [ARG...])\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const scenario = argv[0];
let url;
let command;
let era;
for (let i = 1; i < argv.length; i++) {
  if (argv[i] === "--url") url = argv[++i];
  else if (argv[i] === "--era") era = argv[++i];
  else if (argv[i] === "--") {
    command = argv.slice(i + 1);
    break;
  } else usage(`unexpected argument ${argv[i]}`);
}
if (!scenario) usage("no scenario");
if (era !== "legacy" && era !== "modern") usage("--era legacy or modern");
if (!url === !command?.length) usage("want exactly one of --url and -- COMMAND");

const doc = { scenario, era, server: null, notifications: [], serverRequests: [], lists: [], calls: [], skipped: [] };

const client = new Client(
  { name: "mcpguard-e2e-client2", version: "2.0.0" },
  {
    capabilities: {},
    versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" },
  },
);
client.onerror = (e) => process.stderr.write(`client2.mjs: protocol error: ${e?.message ?? e}\n`);

function valueFor(s) {
  if (!s || typeof s !== "object") return "mcpguard-e2e";
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("integer") || types.includes("number")) return s.minimum ?? 1;
  if (types.includes("boolean")) return false;
  if (types.includes("object")) return argsFor(s);
  return "mcpguard-e2e";
}
function argsFor(schema) {
  const out = {};
  for (const [k, s] of Object.entries(schema?.properties ?? {})) out[k] = valueFor(s);
  return out;
}

function errorOf(e) {
  const err = { message: String(e?.message ?? e) };
  if (typeof e?.code === "number") {
    err.code = e.code;
    const prefix = `MCP error ${e.code}: `;
    if (err.message.startsWith(prefix)) err.message = err.message.slice(prefix.length);
  }
  if (e?.data !== undefined) err.data = e.data;
  return err;
}

async function listTools() {
  const tools = [];
  let cursor;
  do {
    const res = await client.listTools(cursor ? { cursor } : {}, { timeout: TIMEOUT_MS });
    tools.push(...res.tools);
    cursor = res.nextCursor;
  } while (cursor);
  doc.lists.push(tools);
  return tools;
}

async function callTool(name, args) {
  const rec = { name, arguments: args };
  doc.calls.push(rec);
  try {
    const res = await client.callTool({ name, arguments: args }, { timeout: TIMEOUT_MS });
    // The era's envelope (resultType, the server's _meta) is not the tool's
    // answer: what a person or model sees is content and isError.
    rec.result = { content: res.content, ...(res.isError ? { isError: true } : {}) };
  } catch (e) {
    rec.error = errorOf(e);
  }
  return rec;
}

const scenarios = {
  async hostile() {
    const tools = await listTools();
    const listed = new Set(tools.map((t) => t.name));
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of HOSTILE_TOOLS) {
      const schema = byName.get(name)?.inputSchema ?? hostileTools(false).find((t) => t.name === name)?.inputSchema;
      await callTool(name, argsFor(schema));
    }
    doc.unlisted = HOSTILE_TOOLS.filter((n) => !listed.has(n));
  },
  async list() {
    await listTools();
    await callTool("get_fact", {});
  },
};
if (!scenarios[scenario]) usage(`unknown scenario ${scenario}`);

const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });

let exitCode = 0;
try {
  await client.connect(transport, { timeout: TIMEOUT_MS });
  const info = client.getServerVersion();
  doc.server = {
    info: info ? { name: info.name, version: info.version } : null,
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions() ?? null,
  };
  doc.negotiated = client.getNegotiatedProtocolVersion?.() ?? null;
  await scenarios[scenario]();
} catch (e) {
  doc.fatal = errorOf(e);
  process.stderr.write(`client2.mjs: ${e?.stack ?? e}\n`);
  exitCode = 1;
}
process.stdout.write(JSON.stringify(doc, null, 1) + "\n");
try {
  await client.close();
} catch (e) {
  process.stderr.write(`client2.mjs: close: ${e?.stack ?? e}\n`);
}
process.exitCode = exitCode;
