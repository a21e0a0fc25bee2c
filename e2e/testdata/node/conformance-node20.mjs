// Lets the MCP conformance suite (@modelcontextprotocol/conformance) run on
// Node 20: its CLI imports fs.globSync (Node 22), which it uses only for its
// results files. conformance-hooks.mjs hands it an "fs" that has one.
//
//   node --import ./conformance-node20.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js ...
import { register } from "node:module";

register("./conformance-hooks.mjs", import.meta.url);
