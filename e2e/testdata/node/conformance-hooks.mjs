// The resolve hook of conformance-node20.mjs: on Node 20, which lacks
// fs.globSync (Node 22), the conformance CLI gets a "fs" with a small
// globSync for its "**/NAME" patterns.
const SHIM = "data:text/javascript," + encodeURIComponent(`
export * from "node:fs";
import fs from "node:fs";
import path from "node:path";
export default fs;
export function globSync(pattern, opts = {}) {
  const cwd = opts.cwd ?? process.cwd();
  const name = pattern.replace(/^\\*\\*\\//, "");
  const out = [];
  const walk = (d) => { for (const e of fs.readdirSync(path.join(cwd, d), { withFileTypes: true })) {
    const rel = path.join(d, e.name);
    if (e.isDirectory()) walk(rel); else if (e.name === name) out.push(rel);
  } };
  walk(".");
  return out;
}`);
export async function resolve(specifier, context, next) {
  if (specifier === "fs" && !context.parentURL?.startsWith("data:")) return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
