// Our side of the store benchmark: each operation done through @fmt/store's public API on a
// FileSystemStore, as a user would, over the directories store_native.py wrote (format 1) or
// their format-2 copies made by convert(). Imports the built dist (Node cannot load the .ts
// sources behind the development condition).
import { readdirSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

import { median } from "./store-report.mjs";

/**
 * Load @fmt/store and FileSystemStore; `{ loaded: false, error }` when they are not built.
 * @returns {Promise<{loaded: boolean, error?: string, store?: object, FileSystemStore?: Function, createBloscPool?: Function}>}
 */
export async function loadStore() {
  try {
    // As a Node user of format 2 would: checksums through Node's native CRC-32, and those of
    // runs of chunks on a worker thread while the reader decodes (BENCH_CRC_WORKER=0: on the
    // reading thread, for the comparison in tools/bench/README.md).
    const header = await import("@fmt/header/node");
    header.useNativeCrc32();
    if (process.env.BENCH_CRC_WORKER !== "0") await header.useCrc32Worker();
    const store = await import("@fmt/store");
    const { FileSystemStore } = await import("@fmt/fs-adapters/node");
    const { createBloscPool } = await import("@fmt/blosc/pool");
    // Older builds have no helper threads: their rows are n/a.
    const createReadHelpers = await import("@fmt/store/node").then((m) => m.createReadHelpers, () => undefined);
    return { loaded: true, store, FileSystemStore, createBloscPool, createReadHelpers };
  } catch (error) {
    return { loaded: false, error: String(error?.message ?? error).split("\n")[0] };
  }
}

v8.setFlagsFromString("--expose-gc");
/**
 * The garbage collector, exposed at run time: `--expose-gc` on the command line would be passed
 * on to worker threads, which refuse it.
 */
export const collectGarbage = runInNewContext("gc");

/**
 * Untimed warm-up runs, as many on each side (store_native.py's WARMUPS): the first reads of a
 * fresh process pay for more than the page cache — a 40 MB result array under transparent huge
 * pages took ~100 ms three times in a row, then ~10 ms (tools/bench/README.md, "Timing").
 */
const WARMUPS = 3;

/**
 * {@link WARMUPS} untimed warm-ups (page cache, JIT, huge pages), then `runs` timed repetitions
 * (`runs` may be `{ runs, warmups }`: store.mjs interleaves single runs of both sides and warms
 * up only before the first); `before` runs untimed ahead of each. Before each run the previous result is dropped and garbage is collected,
 * untimed: Python's reference counting frees numpy's previous result at once, while V8 would
 * leave it (80 MB for a read-all) to a collection inside a later run, whichever run that falls
 * in. Returns `{ median, times, result }` with times in seconds.
 */
export async function timed(fn, runs, before) {
  const { count, warmups } = typeof runs === "number" ? { count: runs, warmups: WARMUPS } : { count: runs.runs, warmups: runs.warmups ?? WARMUPS };
  // The last result is held in an object so that it can be let go before the collection.
  const last = { result: undefined };
  for (let w = 0; w < warmups; w++) {
    if (before) await before();
    last.result = undefined;
    collectGarbage();
    last.result = await fn();
  }
  const times = [];
  for (let i = 0; i < count; i++) {
    if (before) await before();
    last.result = undefined;
    collectGarbage();
    const t0 = performance.now();
    last.result = await fn();
    times.push((performance.now() - t0) / 1000);
  }
  return { median: median(times), times, result: last.result };
}

/**
 * Truncates every file below `dir` to 0 bytes (their unwritten pages are dropped, as by a
 * removal, and no inode is freed): what a create run does to the previous run's directory.
 *
 * @param {string} dir
 */
export function emptyFiles(dir) {
  // Walked by hand: readdirSync's `recursive` is missing or incomplete in early Node 20 releases.
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) emptyFiles(path);
    else if (entry.isFile()) truncateSync(path, 0);
  }
}

/** The checksums of the format-2 copies and creates unless `--v2-checksum` names another: the library's default. */
export const V2_CHECKSUM = "adler32";

/** The checksum names a format-2 carray accepts (`SuperchunkSettings["checksum"]` of @fmt/store). */
export const V2_CHECKSUMS = ["none", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512"];

/** Format-2 options of the copies and of create: superchunks with `checksum` after every chunk. */
export function v2Options(checksum = V2_CHECKSUM) {
  return { formatVersion: 2, checksum };
}

/** Where a format's datasets are: format 1 as store_native.py wrote them, format 2 converted (one copy per checksum). */
export function datasetDirs(root, version, checksum = V2_CHECKSUM) {
  return version === 1
    ? { carray: join(root, "carray.bcolz"), table: join(root, "ctable.bcolz"), created: join(root, "ours-created.bcolz") }
    : { carray: join(root, `carray-v2-${checksum}.bcolz`), table: join(root, `ctable-v2-${checksum}.bcolz`), created: join(root, "ours-created-v2.bcolz") };
}

/**
 * Make the format-2 copies of the carray and the ctable with convert() (every chunk copied byte
 * for byte, so both formats decode the very same chunks). Redone every run: the copy is what the
 * library under test writes today.
 */
export async function makeV2Copies(lib, root, checksum = V2_CHECKSUM) {
  const fsStore = (path) => new lib.FileSystemStore(path);
  const v1 = datasetDirs(root, 1);
  const v2 = datasetDirs(root, 2, checksum);
  for (const kind of ["carray", "table"]) {
    rmSync(v2[kind], { recursive: true, force: true });
    await lib.store.convert(fsStore(v1[kind]), "", fsStore(v2[kind]), "", v2Options(checksum));
  }
}

/**
 * The operations, each `(runs) => Promise<{ median, times, result } | { na: reason }>`.
 * create's result is its directory for format 1 (c-blosc reads it back) and the values read back
 * through @fmt/store for format 2 (c-blosc cannot read superchunks).
 * @param {{store: object, FileSystemStore: Function}} lib
 * @param {{root: string, source: Float64Array, indices: number[], where: {one: {expression: string}, two: {expression: string}}, version?: 1 | 2, checksum?: string}} data
 */
export function ourOperations(lib, data) {
  const { createCarray, openCarray, openCtable } = lib.store;
  const version = data.version ?? 1;
  const fsStore = (path) => new lib.FileSystemStore(path);
  const dirs = datasetDirs(data.root, version, data.checksum);
  let carray;
  let table;
  const openedCarray = async () => (carray ??= await openCarray(fsStore(dirs.carray)));
  const openedTable = async () => (table ??= await openCtable(fsStore(dirs.table)));
  // One helper thread, started before the first run (its warm-ups absorb the start) and kept.
  let helpers;
  const withHelpers = (run) => async (runs) => {
    if (lib.createReadHelpers === undefined) return { na: "no @fmt/store/node createReadHelpers in this build" };
    helpers ??= lib.createReadHelpers({ threads: 1 });
    return run(runs, helpers);
  };
  let helpedCarray;
  const createOptions = version === 1 ? { dtype: "float64", chunklen: 65536 } : { dtype: "float64", chunklen: 65536, ...v2Options(data.checksum) };
  const gets = (count) => async (runs) => {
    const c = await openedCarray();
    const indices = data.indices.slice(0, count ?? data.indices.length);
    return timed(async () => {
      const out = new Array(indices.length);
      for (let i = 0; i < indices.length; i++) out[i] = await c.get(indices[i]);
      return out;
    }, runs);
  };
  const where = (expression, as) => async (runs) => {
    const t = await openedTable();
    return timed(() => t.where(expression, { as }), runs);
  };

  // Every create run writes into a directory of its own, removed only by `cleanup` at the end of
  // the bench, the previous run's files emptied before the next run, as store_native.py does: a
  // removal between runs leaves freed inodes that ext4 without a journal avoids reusing for a
  // minute or more, scanning past them in every later open(O_CREAT) (see bench_child.py's CreatedDirectories).
  const createdDirs = [];
  /** create into a fresh directory; `storeOptions` of the FileSystemStore (fsync or not). */
  let pool;
  const create = async (runs, storeOptions, workers) => {
    let target = "";
    const options = workers === undefined ? createOptions : { ...createOptions, workers };
    const out = await timed(
      async () => {
        const created = await createCarray(new lib.FileSystemStore(target, storeOptions), "", data.source, options);
        await created.close();
      },
      runs,
      () => {
        if (createdDirs.length > 0) emptyFiles(createdDirs[createdDirs.length - 1]);
        // A directory the create makes itself, as the floor's does (its makedirs is timed).
        target = `${dirs.created.replace(/\.bcolz$/, "")}-${createdDirs.length}.bcolz`;
        createdDirs.push(target);
        rmSync(target, { recursive: true, force: true });
      },
    );
    out.result = version === 1 ? target : await (await openCarray(fsStore(target))).read();
    return out;
  };

  return {
    /** Removes every directory the create runs wrote. */
    cleanup: () => {
      for (const dir of createdDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
      void pool?.close();
      void helpers?.close();
    },
    create: (runs) => create(runs, { fsync: false }),
    // The pool starts before the first run (its warm-ups absorb the workers' start) and is kept.
    createworkers: (runs) => create(runs, { fsync: false }, (pool ??= lib.createBloscPool({ threads: 1 }))),
    createdurable: (runs) => create(runs, {}),
    readall: (runs) => timed(async () => (await openCarray(fsStore(dirs.carray))).read(), runs),
    readallhelpers: withHelpers((runs, h) => timed(async () => {
      const c = await openCarray(fsStore(dirs.carray), { helpers: h });
      const out = new Float64Array(new SharedArrayBuffer(c.length * 8));
      await c.readInto(out);
      return out;
    }, runs)),
    sum: async (runs) => {
      const c = await openedCarray();
      return timed(() => c.sum(), runs);
    },
    sumhelpers: withHelpers(async (runs, h) => {
      const c = (helpedCarray ??= await openCarray(fsStore(dirs.carray), { helpers: h }));
      // Every run's sum must be one thread's to the last bit (the result check only asks for
      // the source's sum within rounding).
      const oneThread = await (await openedCarray()).sum();
      return timed(async () => {
        const sum = await c.sum();
        if (!Object.is(sum, oneThread)) throw new Error(`sum with a helper ${sum} differs from one thread's ${oneThread}`);
        return sum;
      }, runs);
    }),
    column: async (runs) => {
      const t = await openedTable();
      return timed(() => t.readColumn("f64"), runs);
    },
    get: gets(),
    /** The first `count` of the indices only (the zarrita comparison uses 1,000). */
    getFirst: (count) => gets(count),
    take: async (runs) => {
      const c = await openedCarray();
      if (typeof c.take !== "function") return { na: "CArray.take not implemented" };
      return timed(() => c.take(data.indices), runs);
    },
    where: where(data.where.one.expression, "count"),
    whererows: where(data.where.one.expression, "indices"),
    where2: where(data.where.two.expression, "count"),
    where2rows: where(data.where.two.expression, "indices"),
  };
}
