#!/usr/bin/env node
// A conformance adapter (spec/conformance.md) made from the installed @fmt/cli, as a user would
// make one: `@fmt/cli/adapter` is the reference adapter's library entry. Copied into the release
// rehearsal's fresh project and run by `npx @fmt/conformance --adapter ./adapter.mjs`.
import * as adapter from "@fmt/cli/adapter";

const argv = process.argv.slice(2);
let code;
if (argv.length === 1 && argv[0] === "serve" && typeof adapter.serveAdapter === "function") {
  await adapter.serveAdapter(process.stdin, (line) => void process.stdout.write(line));
  code = 0;
} else {
  code = await adapter.runAdapterCommand(argv);
}
if (process.stdout.writableNeedDrain) process.stdout.once("drain", () => process.exit(code));
else process.exit(code);
