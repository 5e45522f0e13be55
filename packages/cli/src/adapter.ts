#!/usr/bin/env node
/**
 * The reference conformance adapter (spec/conformance.md): `adapter info` and
 * `adapter read DATASET_DIR OUT_DIR`.
 *
 * Exit codes: 0 success; 3 the dataset is not valid (one JSON line `{"code", "message"}` on
 * stdout); anything else is a crash.
 *
 * @example
 * ```sh
 * conformance/adapters/reference/adapter read corpus/v1/bcolz-real/edge_f8_len1/data.bcolz /tmp/out
 * ```
 * @packageDocumentation
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isBcolzError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { open, type CArray } from "@fmt/store";
import { swapBytesInPlace, toStrictJson, type ArrayDescription } from "./output.js";

/** Name and version the adapter reports. */
export const ADAPTER_INFO = {
  name: "bcolz-ts reference",
  version: "0.1.0",
  formats: [1],
  operations: ["read"],
} as const;

function describe(array: CArray, name?: string): ArrayDescription {
  const d: ArrayDescription = {
    dtype: array.dtype.str,
    attrs: array.attrs,
    shape: [...array.shape],
    chunklen: array.chunklen,
    cparams: { clevel: array.cparams.clevel, shuffle: array.cparams.shuffle, cname: array.cparams.cname },
  };
  return name === undefined ? d : { name, ...d };
}

/** The value every column shares, or null when they differ (or there are no columns). */
function commonValue<T>(values: T[]): T | null {
  if (values.length === 0) return null;
  const first = JSON.stringify(values[0]);
  return values.every((v) => JSON.stringify(v) === first) ? values[0]! : null;
}

async function littleEndianBytes(array: CArray): Promise<Uint8Array> {
  const bytes = await array.readBytes();
  if (array.dtype.byteOrder !== ">") return bytes;
  const unit = array.dtype.kind === "U" ? 4 : array.dtype.itemsize;
  return swapBytesInPlace(bytes, unit);
}

/**
 * Read the dataset at `datasetDir` and write the protocol's output files into `outDir`.
 *
 * @example
 * ```ts
 * await readDatasetToDir("/data/prices.bcolz", "/tmp/out");
 * ```
 */
export async function readDatasetToDir(datasetDir: string, outDir: string): Promise<void> {
  const store = new FileSystemStore(datasetDir);
  const dataset = await open(store, "");
  await mkdir(outDir, { recursive: true });
  if (dataset.kind === "carray") {
    const result = { kind: "carray", ...describe(dataset), columns: [] };
    await writeFile(join(outDir, "values.bin"), await littleEndianBytes(dataset));
    await writeFile(join(outDir, "result.json"), toStrictJson(result));
    return;
  }
  const columns = dataset.columns.map((column, i) => describe(column, dataset.names[i]));
  const result = {
    kind: "ctable",
    dtype: columns.map((c) => [c.name, c.dtype]),
    shape: [dataset.length],
    chunklen: commonValue(columns.map((c) => c.chunklen)),
    cparams: commonValue(columns.map((c) => c.cparams)),
    attrs: dataset.attrs,
    columns,
  };
  for (const [i, column] of dataset.columns.entries()) {
    await writeFile(join(outDir, `col-${i}.bin`), await littleEndianBytes(column));
  }
  await writeFile(join(outDir, "result.json"), toStrictJson(result));
}

/**
 * Run the adapter with command-line arguments; resolves to the process exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runAdapterCommand(["info"]);
 * ```
 */
export async function runAdapterCommand(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "info") {
    process.stdout.write(`${JSON.stringify(ADAPTER_INFO)}\n`);
    return 0;
  }
  if (command === "read" && rest.length === 2) {
    try {
      await readDatasetToDir(rest[0]!, rest[1]!);
      return 0;
    } catch (err) {
      if (isBcolzError(err)) {
        process.stdout.write(`${JSON.stringify({ code: err.code, message: err.message })}\n`);
        return 3;
      }
      throw err;
    }
  }
  process.stderr.write("usage: adapter info | adapter read DATASET_DIR OUT_DIR\n");
  return 2;
}
