#!/usr/bin/env node
// The `bcolz-ts` command: starts the built CLI, dist/bin.js. This launcher is a committed file, not
// a build output, so that it exists when pnpm links the command into node_modules/.bin of a fresh
// clone (pnpm links no bin whose file is missing at install time, and installs before the build).
import { existsSync } from "node:fs";

const built = new URL("../dist/bin.js", import.meta.url);
if (!existsSync(built)) {
  process.stderr.write("error: bcolz-ts is not built yet: run `pnpm build` at the repository root, then run the command again\n");
  process.exit(1);
}
await import(built.href);
