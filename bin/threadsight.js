#!/usr/bin/env node
// Thin launcher: the command is compiled to dist/ by `npm run build` (npm start does it first).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/src/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("threadsight: not built yet; run `npm run build` in the package folder first\n");
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
