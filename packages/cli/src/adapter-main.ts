#!/usr/bin/env node
// Process entry of the reference adapter; the logic lives in adapter.ts and adapter-commands.ts so
// tests can call it.
import { useNativeCrc32 } from "@fmt/header/node";
import { runAdapterCommand, serveAdapter } from "./adapter-commands.js";

useNativeCrc32();

const argv = process.argv.slice(2);
const done =
  argv.length === 1 && argv[0] === "serve"
    ? serveAdapter(process.stdin, (line) => void process.stdout.write(line)).then(() => 0)
    : runAdapterCommand(argv);
done.then(
  (code) => {
    // serve: exit only once every answer has left (stdout may be a pipe written asynchronously).
    if (process.stdout.writableNeedDrain) process.stdout.once("drain", () => process.exit(code));
    else process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
