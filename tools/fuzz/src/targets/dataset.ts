/**
 * The whole-dataset target: mutated copies of real corpus datasets (bit flips, truncations,
 * insertions, Blosc header and bstarts edits, JSON edits, missing and extra files) opened and
 * read through `@fmt/store` on a `MemoryStore`.
 *
 * @example
 * ```ts
 * import { datasetTarget } from "./dataset.js";
 * ```
 * @packageDocumentation
 */
import { MemoryStore } from "@fmt/fs-adapters";
import { open } from "@fmt/store";
import type { FuzzInput } from "../input.js";
import { mutateJson } from "../json-mutate.js";
import { mutateBytes, tokens } from "../mutate.js";
import type { Rng } from "../rng.js";
import type { FuzzTarget } from "../target.js";

// Datasets above this size make each input slow to copy and read; the small ones cover every
// codec, dtype family and the ctable layout.
const MAX_SEED_DATASET_BYTES = 256 << 10;
// Per-call output budget: well above every seed's decoded size, well below the worker's memory.
const MAX_READ_BYTES = 32 << 20;

const JSON_TOKENS = tokens("{", "}", "[", "]", "\"", ",", "NaN", "Infinity", "1e999", "-1", "0", "2147483648", "1000000000000", "null",
  "\"names\": [", "\"shape\": [", "\"chunklen\": ", "\"dtype\": \"", "\"..\"", "\"../x\"", "\"a b\"", "[3000, 0]");
const INT32_EDGES = [0, 1, -1, 16, 0x7fffffff, -0x80000000, 0x10000, 0x7fffffef];

function isChunkKey(key: string): boolean {
  return /__\d+\.blp$/.test(key);
}

function writeInt32(bytes: Uint8Array, at: number, value: number): Uint8Array {
  if (at + 4 > bytes.length) return bytes;
  const out = bytes.slice();
  new DataView(out.buffer, out.byteOffset, out.byteLength).setInt32(at, value, true);
  return out;
}

function editDataset(rng: Rng, files: FuzzInput): void {
  const keys = [...files.keys()];
  const chunkKeys = keys.filter(isChunkKey);
  const metaKeys = keys.filter((k) => !isChunkKey(k));
  const kind = rng.below(11);
  if (kind === 10) {
    lieAboutLength(rng, files, rng.pick(keys.filter((k) => k.endsWith("meta/sizes")).concat(keys.slice(0, 1))));
    return;
  }
  if (kind <= 2 && chunkKeys.length > 0) {
    // blpk header (16 bytes), Blosc header (16 bytes) and the first bstarts get most edits.
    const key = rng.pick(chunkKeys);
    const bytes = files.get(key)!;
    files.set(key, mutateBytes(rng, bytes, { dictionary: [], stack: 3, focus: { start: 0, end: Math.min(bytes.length, 64) } }));
  } else if (kind === 3 && chunkKeys.length > 0) {
    const key = rng.pick(chunkKeys);
    const bytes = files.get(key)!;
    // nbytes, blocksize, cbytes, or one bstarts entry.
    const field = rng.chance(0.6) ? 16 + 4 * (1 + rng.below(3)) : 32 + 4 * rng.below(8);
    const value = rng.chance(0.5) || field + 4 > bytes.length ? rng.pick(INT32_EDGES) : (new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(field, true) + rng.below(65) - 32) | 0;
    files.set(key, writeInt32(bytes, field, value));
  } else if (kind <= 5 && metaKeys.length > 0) {
    const key = rng.pick(metaKeys);
    const bytes = files.get(key)!;
    const structured = rng.chance(0.6) ? mutateJson(rng, bytes) : undefined;
    files.set(key, structured ?? mutateBytes(rng, bytes, { dictionary: JSON_TOKENS, stack: 3, maxLength: 1 << 16 }));
  } else if (kind === 6) {
    files.delete(rng.pick(keys));
  } else if (kind === 7) {
    const key = rng.pick(keys);
    const bytes = files.get(key)!;
    files.set(key, bytes.slice(0, rng.below(bytes.length + 1)));
  } else if (kind === 8 && chunkKeys.length > 0) {
    // A chunk file the metadata does not announce, or a copy of another chunk in its place.
    const from = rng.pick(chunkKeys);
    const to = rng.chance(0.5) ? rng.pick(chunkKeys) : from.replace(/__\d+\.blp$/, `__${chunkKeys.length + rng.below(3)}.blp`);
    files.set(to, files.get(from)!);
  } else {
    const key = rng.pick(keys);
    files.set(key, mutateBytes(rng, files.get(key)!, { dictionary: [], stack: 4, maxLength: 1 << 20 }));
  }
}

// meta/sizes claiming another length with a consistent nbytes: passes the cross-field checks of
// the sizes file, so readers must bound their work by the chunks that exist.
function lieAboutLength(rng: Rng, files: FuzzInput, key: string): void {
  const bytes = files.get(key);
  if (bytes === undefined || !key.endsWith("meta/sizes")) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return;
  }
  // An earlier edit may have left any JSON value (null, a number, an array) in the file.
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return;
  const sizes = parsed as { shape?: unknown; nbytes?: unknown };
  if (!Array.isArray(sizes.shape) || typeof sizes.shape[0] !== "number" || typeof sizes.nbytes !== "number" || sizes.shape[0] <= 0) return;
  const rowBytes = sizes.nbytes / sizes.shape[0];
  const length = rng.pick([sizes.shape[0] + 1, sizes.shape[0] * 2, 1e6, 1e9, 1e12, 1e15, 2 ** 53 - 1]);
  sizes.shape[0] = length;
  sizes.nbytes = length * rowBytes;
  files.set(key, new TextEncoder().encode(JSON.stringify(sizes)));
}

/**
 * `open` + full read + strided read (carray) or `readRows` (ctable) of mutated corpus datasets
 * in memory.
 *
 * @example
 * ```ts
 * await datasetTarget.run(new Map(corpus.datasets[0]!.files));
 * ```
 */
export const datasetTarget: FuzzTarget = {
  name: "dataset",
  description: "open + read + strided reads (step 7, first and last row) / readRows through @fmt/store on a MemoryStore, mutated corpus datasets",
  timeoutMs: 5000,
  seeds: (corpus) => corpus.datasets.filter((d) => d.size <= MAX_SEED_DATASET_BYTES && d.files.size > 0).map((d) => new Map(d.files)),
  generate(rng, seeds) {
    const files: FuzzInput = new Map(rng.pick(seeds));
    const edits = 1 + rng.below(3);
    for (let i = 0; i < edits; i++) if (files.size > 0) editDataset(rng, files);
    return files;
  },
  async run(input) {
    const store = new MemoryStore(input);
    const dataset = await open(store, "", { maxReadBytes: MAX_READ_BYTES });
    if (dataset.kind !== "ctable") {
      await dataset.read();
      if (dataset.length > 2) await dataset.read(1, dataset.length, 7);
      // First and last row only: the work must follow the rows selected, not the claimed length.
      if (dataset.length > 2) await dataset.read(0, dataset.length, dataset.length - 1);
    } else {
      await dataset.readRows();
      if (dataset.length > 2) await dataset.readRows(0, dataset.length, 5);
      if (dataset.length > 2) await dataset.readRows(0, dataset.length, dataset.length - 1);
    }
  },
};
