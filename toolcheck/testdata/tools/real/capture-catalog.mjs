// Connects to an MCP server over stdio with the official SDK client and
// prints a capture object: every page of tools/list, prompts/list,
// resources/templates/list and resources/list that the server's
// capabilities announce.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const [cmd, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: cmd, args, env: { ...process.env }, stderr: "ignore" });
const client = new Client(
  { name: "mcpguard-capture", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } } },
);
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
await client.connect(transport);
async function all(list, key) {
  try {
    return await pages(list, key);
  } catch (e) {
    process.stderr.write(`${key}: ${e.message}\n`);
    return undefined; // a method the server does not implement
  }
}
async function pages(list, key) {
  const out = [];
  let cursor;
  do {
    const res = await list(cursor ? { cursor } : {});
    out.push(...res[key]);
    cursor = res.nextCursor;
  } while (cursor);
  return out;
}
const caps = client.getServerCapabilities() ?? {};
const doc = { tools: await pages((p) => client.listTools(p), "tools") };
if (caps.prompts) doc.prompts = await all((p) => client.listPrompts(p), "prompts");
if (caps.resources) {
  doc.resourceTemplates = await all((p) => client.listResourceTemplates(p), "resourceTemplates");
  doc.resources = await all((p) => client.listResources(p), "resources");
}
const sv = client.getServerVersion();
for (const k of Object.keys(doc)) if (doc[k] === undefined) delete doc[k];
process.stdout.write(JSON.stringify(doc, null, 2) + "\n");
process.stderr.write(`${sv?.name} ${sv?.version}: ${doc.tools.length} tools, ${doc.prompts?.length ?? 0} prompts, ${doc.resourceTemplates?.length ?? 0} templates, ${doc.resources?.length ?? 0} resources\n`);
await client.close();
