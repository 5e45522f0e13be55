#!/usr/bin/env node
// The `where` operation of the reference adapter (spec/conformance.md §1.4), and its `info`
// (the packages/cli adapter's, with "where" added). `read` and `write` stay with packages/cli;
// the `adapter` script sends `info` and `where` here. Runs from the build output (`pnpm build`).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

const root = new URL("../../../packages/", import.meta.url);
const { ADAPTER_INFO } = await import(new URL("cli/dist/adapter.js", root).href);
const { openCtable } = await import(new URL("store/dist/index.js", root).href);
const { FileSystemStore } = await import(new URL("fs-adapters/dist/node.js", root).href);
const { isBcolzError } = await import(new URL("errors/dist/index.js", root).href);
const { useNativeCrc32 } = await import(new URL("header/dist/node.js", root).href);

useNativeCrc32();

/**
 * `where DATASET_DIR EXPRESSION OUT_DIR`: writes the matching row numbers, increasing, as a JSON
 * list to OUT_DIR/rows.json; a refused expression or an invalid dataset exits 3 with the error line.
 *
 * @param {string[]} argv the arguments after the program name
 * @returns {Promise<number>} the exit status
 */
async function main(argv) {
  const [command, ...rest] = argv;
  if (command === "info" && rest.length === 0) {
    const operations = [...ADAPTER_INFO.operations, "where"];
    process.stdout.write(`${JSON.stringify({ ...ADAPTER_INFO, operations })}\n`);
    return 0;
  }
  if (command === "where" && rest.length === 3) {
    const [datasetDir, expression, outDir] = rest;
    try {
      const table = await openCtable(new FileSystemStore(datasetDir), "");
      const rows = await table.where(expression, { as: "indices" });
      await mkdir(outDir, { recursive: true });
      await writeFile(join(outDir, "rows.json"), `${JSON.stringify(rows)}\n`);
      return 0;
    } catch (err) {
      if (isBcolzError(err)) {
        process.stdout.write(`${JSON.stringify({ code: err.code, message: err.message })}\n`);
        return 3;
      }
      throw err;
    }
  }
  process.stderr.write("usage: where.mjs info | where.mjs where DATASET_DIR EXPRESSION OUT_DIR\n");
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
