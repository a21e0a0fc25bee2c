// Connects to an MCP server over stdio with the official SDK client and
// prints the raw tools/list result (all pages) as JSON.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const [cmd, ...args] = process.argv.slice(2);
const env = { ...process.env, GITHUB_PERSONAL_ACCESS_TOKEN: "x", GITLAB_PERSONAL_ACCESS_TOKEN: "x", SLACK_BOT_TOKEN: "x", SLACK_TEAM_ID: "x", BRAVE_API_KEY: "x", GOOGLE_MAPS_API_KEY: "x", EVERART_API_KEY: "x", MEMORY_FILE_PATH: "/tmp/mcpcap/memory.json", FIRECRAWL_API_KEY: "fc-x", TAVILY_API_KEY: "tvly-x", EXA_API_KEY: "x", SUPABASE_ACCESS_TOKEN: "x", FIGMA_API_KEY: "x", STRIPE_SECRET_KEY: "sk_test_x", HEROKU_API_KEY: "x", REDIS_URL: "redis://127.0.0.1:1" };
// MCPCAP_STDERR=1 (set by capture-npm.sh) passes the server's stderr through
// so that a failed start can be diagnosed from the capture log.
const transport = new StdioClientTransport({ command: cmd, args, env, stderr: process.env.MCPCAP_STDERR === "1" ? "inherit" : "ignore" });
// Declare every client capability: servers such as server-everything list
// some tools only to clients that can answer sampling, elicitation or roots.
const client = new Client(
  { name: "mcpguard-capture", version: "1.0.0" },
  {
    capabilities: {
      roots: { listChanged: true },
      sampling: {},
      elicitation: { form: {}, url: {} },
      tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    },
  },
);
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
await client.connect(transport);
const tools = [];
let cursor;
do {
  const res = await client.listTools(cursor ? { cursor } : {});
  tools.push(...res.tools);
  cursor = res.nextCursor;
} while (cursor);
const sv = client.getServerVersion();
process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools } }, null, 2) + "\n");
process.stderr.write(`${sv?.name} ${sv?.version}: ${tools.length} tools\n`);
await client.close();
