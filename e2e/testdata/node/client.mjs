// An MCP client driver for mcpguard's end-to-end tests, built with the
// official TypeScript SDK's Client. It connects, runs one scenario and prints
// one JSON document to stdout with what it observed; diagnostics (and the
// stderr of a stdio server it spawns) go to stderr.
//
//   node client.mjs SCENARIO --url http://127.0.0.1:PORT/mcp
//   node client.mjs SCENARIO -- COMMAND [ARG...]
//
// Scenarios:
//   everything  list tools, resources, resource templates and prompts; call
//               every tool with arguments derived from its inputSchema
//   hostile     list tools; call every listed tool and every tool of
//               hostile-server.mjs that was not listed
//   rugpull     list; call get_fact; call trigger_rug_pull; wait for
//               notifications/tools/list_changed; list again; call get_fact
//   ide         list; call executeCode, getDiagnostics and openFile
//   list        list; call get_fact
//   listonce    list once, recording an error instead of failing
//
// The client declares the roots, sampling and elicitation capabilities and
// answers the server's requests with fixed, deterministic results (it stands
// in for the user and the model), so tools that need them can be called too.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ProgressNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { TOOL_NAMES as HOSTILE_TOOLS, tools as hostileTools, PROMPTS as HOSTILE_PROMPTS } from "./hostile-server.mjs";

const TIMEOUT_MS = 30000; // any single request; the Go test has its own deadline
const LIST_CHANGED_TIMEOUT_MS = 5000;

function usage(msg) {
  process.stderr.write(`client.mjs: ${msg}\nusage: node client.mjs SCENARIO (--url URL | -- COMMAND [ARG...])\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const scenario = argv[0];
let url;
let command;
for (let i = 1; i < argv.length; i++) {
  if (argv[i] === "--url") url = argv[++i];
  else if (argv[i] === "--") {
    command = argv.slice(i + 1);
    break;
  } else usage(`unexpected argument ${argv[i]}`);
}
if (!scenario) usage("no scenario");
if (!url === !command?.length) usage("want exactly one of --url and -- COMMAND");

// What the client saw, in order of arrival within each list.
const doc = {
  scenario,
  server: null,
  notifications: [], // {method, params} of every notification but cancellations
  serverRequests: [], // {method, params} of every request the server sent us
  lists: [], // each tools/list result as received (all pages)
  calls: [], // {name, arguments, result | error}
  skipped: [], // {name, reason}
};

const client = new Client(
  { name: "mcpguard-e2e-client", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
);

let listChangedWaiters = [];
client.fallbackNotificationHandler = async (n) => {
  doc.notifications.push({ method: n.method, ...(n.params ? { params: n.params } : {}) });
  if (n.method === "notifications/tools/list_changed") {
    for (const w of listChangedWaiters) w();
    listChangedWaiters = [];
  }
};
// Progress is recorded like any other notification. (The SDK's own
// onprogress callbacks are not used: the SDK dispatches a notification a
// microtask after the response that follows it in the same read, so a
// callback can miss the progress of a call that has just finished.)
client.setNotificationHandler(ProgressNotificationSchema, async (n) => {
  doc.notifications.push({ method: n.method, params: n.params });
});
client.onerror = (e) => process.stderr.write(`client.mjs: protocol error: ${e?.message ?? e}\n`);
client.setRequestHandler(ListRootsRequestSchema, async (req) => {
  doc.serverRequests.push({ method: req.method, params: req.params ?? {} });
  return { roots: [{ uri: "file:///workspace/mcpguard-e2e", name: "e2e workspace" }] };
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  doc.serverRequests.push({ method: req.method, params: req.params });
  return {
    role: "assistant",
    content: { type: "text", text: "A fixed answer from the e2e client." },
    model: "mcpguard-e2e-model",
    stopReason: "endTurn",
  };
});
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  doc.serverRequests.push({ method: req.method, params: req.params });
  // Accept with each requested field's default, or a fixed value.
  const content = {};
  for (const [k, s] of Object.entries(req.params.requestedSchema?.properties ?? {})) {
    if (s.default !== undefined) content[k] = s.default;
    else if (s.oneOf?.length) content[k] = s.oneOf[0].const;
    else if (s.enum?.length) content[k] = s.enum[0];
    else if (s.type === "boolean") content[k] = true;
    else if (s.type === "number" || s.type === "integer") content[k] = s.minimum ?? 1;
    else if (s.format === "email") content[k] = "e2e@example.test";
    else if (s.format === "uri") content[k] = "https://example.test/";
    else if (s.format === "date") content[k] = "2000-01-01";
    else content[k] = "mcpguard-e2e";
  }
  return { action: "accept", content };
});

// argsFor derives deterministic arguments from a JSON Schema: every property,
// the first enum value, the minimum of a number, a data: URI for a URI (so no
// tool reaches the network), a fixed string otherwise.
function valueFor(s) {
  if (!s || typeof s !== "object") return "mcpguard-e2e";
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("string")) {
    if (s.format === "uri" || s.format === "url") return "data:text/plain;base64,bWNwZ3VhcmQtZTJl";
    return "mcpguard-e2e";
  }
  if (types.includes("integer") || types.includes("number")) return s.minimum ?? s.exclusiveMinimum ?? 1;
  if (types.includes("boolean")) return false;
  if (types.includes("array")) return [];
  if (types.includes("object")) return argsFor(s);
  if (s.anyOf?.length) return valueFor(s.anyOf[0]);
  if (s.oneOf?.length) return valueFor(s.oneOf[0]);
  return "mcpguard-e2e";
}
function argsFor(schema) {
  const out = {};
  for (const [k, s] of Object.entries(schema?.properties ?? {})) out[k] = valueFor(s);
  return out;
}

// errorOf records an error as it came over the wire: the SDK's McpError
// prefixes the JSON-RPC message with "MCP error CODE: ", which is removed.
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
    const _meta = { progressToken: `call-${doc.calls.length}` };
    rec.result = await client.callTool({ name, arguments: args, _meta }, undefined, { timeout: TIMEOUT_MS });
  } catch (e) {
    rec.error = errorOf(e);
  }
  return rec;
}

// callTask calls a tool that requires task-based execution and records its
// final result (task ids, timestamps and the number of status polls vary from
// run to run; the outcome does not).
async function callTask(name, args) {
  const rec = { name, arguments: args, task: true };
  doc.calls.push(rec);
  try {
    for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS })) {
      if (m.type === "result") rec.result = m.result;
      else if (m.type === "error") rec.error = errorOf(m.error);
    }
  } catch (e) {
    rec.error = errorOf(e);
  }
}

async function listAll(kind, fn, key) {
  const items = [];
  let cursor;
  do {
    const res = await fn(cursor ? { cursor } : {}, { timeout: TIMEOUT_MS });
    items.push(...res[key]);
    cursor = res.nextCursor;
  } while (cursor);
  doc[kind] = items;
}

function waitListChanged() {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), LIST_CHANGED_TIMEOUT_MS);
    listChangedWaiters.push(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

// Tools of server-everything the client cannot stand in for a person on
// (it declares form elicitation only, so the server should not list them).
const NEEDS_A_PERSON = {
  "trigger-url-elicitation": "URL elicitation needs a person to open a browser",
  "trigger-elicitation-request-async": "task-based elicitation needs a person to answer later",
  "trigger-sampling-request-async": "task-based sampling needs a model to answer later",
};

const scenarios = {
  async everything() {
    const caps = client.getServerCapabilities() ?? {};
    if (caps.resources) {
      await listAll("resources", (p, o) => client.listResources(p, o), "resources");
      await listAll("resourceTemplates", (p, o) => client.listResourceTemplates(p, o), "resourceTemplates");
    }
    if (caps.prompts) await listAll("prompts", (p, o) => client.listPrompts(p, o), "prompts");
    const tools = await listTools();
    for (const t of tools) {
      if (NEEDS_A_PERSON[t.name]) {
        doc.skipped.push({ name: t.name, reason: NEEDS_A_PERSON[t.name] });
        continue;
      }
      const args = argsFor(t.inputSchema);
      if (t.execution?.taskSupport === "required") {
        await callTask(t.name, args);
        continue;
      }
      await callTool(t.name, args);
      // A toggle starts a timer that sends notifications every few seconds;
      // the second call stops it again so what the session sees does not
      // depend on how long it lasts.
      if (t.name.startsWith("toggle-")) await callTool(t.name, args);
    }
  },
  async hostile() {
    const tools = await listTools();
    const listed = new Set(tools.map((t) => t.name));
    const byName = new Map(tools.map((t) => [t.name, t]));
    // trigger_rug_pull last: it changes the server (exercised by rugpull).
    const order = [...HOSTILE_TOOLS.filter((n) => n !== "trigger_rug_pull"), "trigger_rug_pull"];
    for (const name of order) {
      const args = argsFor(byName.get(name)?.inputSchema ?? hostileSchema(name));
      await callTool(name, args);
    }
    doc.unlisted = HOSTILE_TOOLS.filter((n) => !listed.has(n));
    // The prompts and resource templates, and every prompt asked for
    // (hostile-server.mjs has them; the 2.x server of the eras test not).
    const caps = client.getServerCapabilities() ?? {};
    if (caps.resources) await listAll("resourceTemplates", (p, o) => client.listResourceTemplates(p, o), "resourceTemplates");
    if (!caps.prompts) return;
    await listAll("prompts", (p, o) => client.listPrompts(p, o), "prompts");
    doc.promptGets = [];
    for (const p of HOSTILE_PROMPTS) {
      const rec = { name: p.name };
      doc.promptGets.push(rec);
      try {
        rec.result = await client.getPrompt({ name: p.name, arguments: { code: "x", draft: "x" } }, { timeout: TIMEOUT_MS });
      } catch (e) {
        rec.error = errorOf(e);
      }
    }
  },
  async rugpull() {
    await listTools();
    await callTool("get_fact", {});
    const changed = waitListChanged();
    await callTool("trigger_rug_pull", {});
    doc.listChangedSeen = await changed;
    await listTools();
    await callTool("get_fact", {});
  },
  async ide() {
    await listTools();
    await callTool("executeCode", { code: "print(1)" });
    await callTool("getDiagnostics", {});
    await callTool("openFile", { filePath: "/etc/hosts" });
  },
  async list() {
    await listTools();
    await callTool("get_fact", {});
  },
  // One listing whose failure is recorded rather than fatal: the framing
  // tests look at what a client makes of a hostile response.
  async listonce() {
    try {
      const res = await client.listTools({}, { timeout: Number(process.env.LIST_TIMEOUT_MS ?? 5000) });
      doc.lists.push(res.tools);
    } catch (e) {
      doc.listError = errorOf(e);
    }
  },
};
if (!scenarios[scenario]) usage(`unknown scenario ${scenario}`);

// A withheld tool's schema is not in the list the client received: take it
// from the hostile server's own definitions.
function hostileSchema(name) {
  return hostileTools(false).find((t) => t.name === name)?.inputSchema;
}

const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });

let exitCode = 0;
try {
  await client.connect(transport, { timeout: TIMEOUT_MS });
  doc.server = {
    info: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions() ?? null,
  };
  await scenarios[scenario]();
} catch (e) {
  doc.fatal = errorOf(e);
  process.stderr.write(`client.mjs: ${e?.stack ?? e}\n`);
  exitCode = 1;
}
process.stdout.write(JSON.stringify(doc, null, 1) + "\n");
try {
  if (url && transport.sessionId) await transport.terminateSession();
  await client.close();
} catch (e) {
  process.stderr.write(`client.mjs: close: ${e?.stack ?? e}\n`);
}
process.exitCode = exitCode;
