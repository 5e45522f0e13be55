// Our side of the store benchmark: each operation of issue 7 done through @fmt/store's public
// API on a FileSystemStore, as a user would, over the directories store_native.py wrote.
// Imports the built dist (Node cannot load the .ts sources behind the development condition).
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

import { median } from "./store-report.mjs";

/**
 * Load @fmt/store and FileSystemStore; `{ loaded: false, error }` when they are not built.
 * @returns {Promise<{loaded: boolean, error?: string, store?: object, FileSystemStore?: Function}>}
 */
export async function loadStore() {
  try {
    // As a Node user of format 2 would: checksums through Node's native CRC-32.
    (await import("@fmt/header/node")).useNativeCrc32();
    const store = await import("@fmt/store");
    const { FileSystemStore } = await import("@fmt/fs-adapters/node");
    return { loaded: true, store, FileSystemStore };
  } catch (error) {
    return { loaded: false, error: String(error?.message ?? error).split("\n")[0] };
  }
}

/**
 * One untimed warm-up (page cache, JIT), then `runs` timed repetitions; `before` runs untimed
 * ahead of each. Returns `{ median, times, result }` with times in seconds.
 */
export async function timed(fn, runs, before) {
  if (before) await before();
  let result = await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    if (before) await before();
    const t0 = performance.now();
    result = await fn();
    times.push((performance.now() - t0) / 1000);
  }
  return { median: median(times), times, result };
}

/**
 * The operations, each `(runs) => Promise<{ median, times, result } | { na: reason }>`.
 * @param {{store: object, FileSystemStore: Function}} lib
 * @param {{root: string, source: Float64Array, indices: number[], q: string}} data
 */
export function ourOperations(lib, data) {
  const { createCarray, openCarray, openCtable } = lib.store;
  const fsStore = (path) => new lib.FileSystemStore(path);
  const carrayDir = join(data.root, "carray.bcolz");
  const tableDir = join(data.root, "ctable.bcolz");
  const createdDir = join(data.root, "ours-created.bcolz");
  let carray;
  let table;
  const openedCarray = async () => (carray ??= await openCarray(fsStore(carrayDir)));
  const openedTable = async () => (table ??= await openCtable(fsStore(tableDir)));

  return {
    createdDir,
    create: (runs) =>
      timed(
        async () => {
          const created = await createCarray(fsStore(createdDir), "", data.source, { dtype: "float64", chunklen: 65536 });
          await created.close();
        },
        runs,
        () => {
          rmSync(createdDir, { recursive: true, force: true });
          mkdirSync(createdDir, { recursive: true });
        },
      ),
    readall: (runs) => timed(async () => (await openCarray(fsStore(carrayDir))).read(), runs),
    sum: async (runs) => {
      const c = await openedCarray();
      return timed(() => c.sum(), runs);
    },
    column: async (runs) => {
      const t = await openedTable();
      return timed(() => t.readColumn("f64"), runs);
    },
    get: async (runs) => {
      const c = await openedCarray();
      return timed(async () => {
        const out = new Array(data.indices.length);
        for (let i = 0; i < data.indices.length; i++) out[i] = await c.get(data.indices[i]);
        return out;
      }, runs);
    },
    take: async (runs) => {
      const c = await openedCarray();
      // take() is being added to CArray; until then this row reads n/a.
      if (typeof c.take !== "function") return { na: "CArray.take not implemented" };
      return timed(() => c.take(data.indices), runs);
    },
    where: async (runs) => {
      const t = await openedTable();
      return timed(() => t.where(`f64 > ${data.q}`, { as: "count" }), runs);
    },
  };
}

/**
 * Format 2 next to format 1, both ours, in the same run (issue 15: v2 create and read-all with
 * crc32 checksums on at most 1.1× the v1 times). The v2 copy of the carray is made once with
 * convert(), which copies the v1 chunks byte for byte, so both sides decode the same chunks.
 * @param {{store: object, FileSystemStore: Function}} lib
 * @param {{root: string, source: Float64Array, indices: number[]}} data
 */
export function formatOperations(lib, data) {
  const { createCarray, openCarray, convert } = lib.store;
  const fsStore = (path) => new lib.FileSystemStore(path);
  const carrayDir = join(data.root, "carray.bcolz");
  const v2Dir = join(data.root, "carray-v2-crc32.bcolz");
  const created = (version) => join(data.root, `ours-created-v${version}.bcolz`);
  const ensureV2 = async () => {
    rmSync(v2Dir, { recursive: true, force: true });
    await convert(fsStore(carrayDir), "", fsStore(v2Dir), "", { formatVersion: 2, checksum: "crc32" });
  };
  const create = (version) => (runs) =>
    timed(
      async () => {
        const options = version === 1 ? { dtype: "float64", chunklen: 65536 } : { dtype: "float64", chunklen: 65536, formatVersion: 2, checksum: "crc32" };
        const a = await createCarray(fsStore(created(version)), "", data.source, options);
        await a.close();
      },
      runs,
      () => {
        rmSync(created(version), { recursive: true, force: true });
        mkdirSync(created(version), { recursive: true });
      },
    );
  const dirOf = (version) => (version === 1 ? carrayDir : v2Dir);
  return {
    ensureV2,
    cleanup: () => {
      for (const v of [1, 2]) rmSync(created(v), { recursive: true, force: true });
    },
    ops: [
      { key: "create", label: `create the ${data.source.length.toLocaleString("en")}-row f8 carray (v2: crc32)`, goal: 1.1, run: create },
      { key: "readall", label: "open + read the whole carray (v2: crc32 verified)", goal: 1.1, run: (version) => (runs) => timed(async () => (await openCarray(fsStore(dirOf(version)))).read(), runs) },
      { key: "get", label: `${data.indices.length.toLocaleString("en")} random single-element gets`, goal: undefined, run: (version) => async (runs) => {
        const c = await openCarray(fsStore(dirOf(version)));
        return timed(async () => {
          const out = new Array(data.indices.length);
          for (let i = 0; i < data.indices.length; i++) out[i] = await c.get(data.indices[i]);
          return out;
        }, runs);
      } },
      { key: "sum", label: "sum()", goal: undefined, run: (version) => async (runs) => {
        const c = await openCarray(fsStore(dirOf(version)));
        return timed(() => c.sum(), runs);
      } },
    ],
  };
}
