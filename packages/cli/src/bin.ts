#!/usr/bin/env node
/**
 * `bcolz-ts`: inspect and dump bcolz datasets from the command line.
 *
 * ```
 * bcolz-ts info DATASET_DIR            metadata as JSON
 * bcolz-ts cat DATASET_DIR [START [STOP]]   one value per line (a ctable prints one row per line)
 * bcolz-ts unlock DIR [--force]       remove a killed writer's locks (see `unlock --help`)
 * bcolz-ts adapter info | read DIR OUT  the conformance adapter
 * ```
 * @packageDocumentation
 */
import { isBcolzError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { open } from "@fmt/store";
import { runAdapterCommand } from "./adapter.js";
import { formatValue, summarize } from "./index.js";
import { runUnlockCommand } from "./unlock.js";

async function main(argv: string[]): Promise<number> {
  const [command, dir, ...rest] = argv;
  if (command === "adapter") return runAdapterCommand(argv.slice(1));
  if (command === "unlock") return runUnlockCommand(argv.slice(1), (text) => process.stdout.write(text));
  if ((command === "info" || command === "cat") && dir !== undefined) {
    const dataset = await open(new FileSystemStore(dir), "");
    if (command === "info") {
      process.stdout.write(`${JSON.stringify(summarize(dataset), null, 2)}\n`);
      return 0;
    }
    const start = rest[0] === undefined ? 0 : Number(rest[0]);
    const stop = rest[1] === undefined ? dataset.length : Number(rest[1]);
    const columns = dataset.kind === "carray" ? [dataset] : dataset.columns;
    for (let i = start; i < Math.min(stop, dataset.length); i++) {
      const cells = await Promise.all(columns.map(async (c) => formatValue(c.dtype, await c.get(i))));
      process.stdout.write(`${cells.join("\t")}\n`);
    }
    return 0;
  }
  process.stderr.write("usage: bcolz-ts info DIR | cat DIR [START [STOP]] | unlock DIR [--force] | adapter …\n");
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (isBcolzError(err)) {
      process.stderr.write(`error ${err.code}: ${err.message}\n`);
      process.exit(3);
    }
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
