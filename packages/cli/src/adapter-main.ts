#!/usr/bin/env node
// Process entry of the reference adapter; the logic lives in adapter.ts so tests can call it.
import { useNativeCrc32 } from "@fmt/header/node";
import { runAdapterCommand } from "./adapter.js";

useNativeCrc32();

runAdapterCommand(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
