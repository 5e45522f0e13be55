#!/usr/bin/env node
/**
 * `bcolz-ts`: inspect, dump, query, validate, export and import bcolz datasets from the command line. Run
 * `bcolz-ts --help` (or `bcolz-ts COMMAND --help`) for the commands and exit codes.
 * @packageDocumentation
 */
import { useNativeCrc32 } from "@fmt/header/node";
import { runCli } from "./program.js";

// Format-2 reads verify a CRC-32 over every chunk: Node's native one when it has it.
useNativeCrc32();

// A reader that goes away (`bcolz-ts cat … | head -1`) is not an error: end quietly.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
});

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
