#!/usr/bin/env node
// One store operation repeated on the store benchmark's datasets, for profiling a single step
// (`node --cpu-prof tools/bench/profile.mjs sum`) and for the before/after numbers of
// tools/bench/README.md ("Issue 16, step by step"). Prints the median and the minimum.
//
//   node tools/bench/profile.mjs OP [RUNS] [--v2] [--checksum=NAME] [--fsync] [--async] [--gc] [--ballast=MB] [--warmups=N] [--pause=MS]
//
// OP: readall, sum, get (2,000 random gets), take (10,000 indices), column, where, whererows,
// where2, where2rows, create. --v2 uses the format-2 copies (--checksum=NAME: those `pnpm bench:store
// -- --v2-checksum=NAME` made; by default adler32, the library's default); --fsync makes create
// flush to disk (the default store) instead of `fsync: false`. Needs the datasets of
// `pnpm bench:store` (tools/bench/.data/store) and the built packages. Run it under GLIBC_TUNABLES=glibc.malloc.hugetlb=1 to match the bench.
// PROFILE_TIMES=1 also prints every run's time in run order (spikes, drifts), and on a second
// line each run's minor page faults. --warmups=N runs the operation N times untimed first
// (default 1; the bench gives each side 3); --pause=MS idles that long before each timed run, as
// our process idles in the bench while the other sides run. PROFILE_ALLOC=N samples what the
// timed runs allocate (V8's sampling heap profiler, one sample per 256 bytes, collected objects
// included) and prints the total per run and the N functions that allocate most; the sampling
// slows the runs, so their times are then not comparable with others.
import { Session } from "node:inspector/promises";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { V2_CHECKSUM, V2_CHECKSUMS, loadStore } from "./lib/store-ours.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = join(HERE, ".data", "store");
const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith("--")));
// A misspelt flag would otherwise be ignored and the run measure something else. V8's own flags
// go before the script (`node --trace-gc tools/bench/profile.mjs where`).
const unknown = [...flags].filter((f) => !/^--(v2|fsync|async|gc)$/.test(f) && !/^--(checksum=[a-z0-9]+|ballast=\d+|warmups=\d+|pause=\d+(\.\d+)?)$/.test(f));
if (unknown.length > 0) throw new Error(`unknown or malformed flag ${unknown.join(", ")} (see the comment at the top of profile.mjs)`);
const op = args[0] ?? "readall";
const runs = Number(args[1] ?? 20);
const v2 = flags.has("--v2");
/** The value of `--name=value`, or `undefined` when the flag is not given. */
const flagValue = (name) => [...flags].find((f) => f.startsWith(`--${name}=`))?.slice(name.length + 3);
const checksumFlag = flagValue("checksum");
const checksum = checksumFlag ?? V2_CHECKSUM;
if (!V2_CHECKSUMS.includes(checksum)) throw new Error(`unknown --checksum ${checksum} (one of ${V2_CHECKSUMS.join(", ")})`);
if (checksumFlag !== undefined && !v2) console.error("profile: --checksum applies to the format-2 copies only (add --v2)");

const lib = await loadStore();
if (!lib.loaded) throw new Error(`@fmt/store is not built: ${lib.error}`);
const { openCarray, openCtable, createCarray } = lib.store;
const store = (path, options) => new lib.FileSystemStore(path, options);
const carrayDir = join(DATA, v2 ? `carray-v2-${checksum}.bcolz` : "carray.bcolz");
const tableDir = join(DATA, v2 ? `ctable-v2-${checksum}.bcolz` : "ctable.bcolz");
const manifest = JSON.parse(readFileSync(join(DATA, "manifest.json"), "utf8"));
const q90 = manifest.facts.q90;

const carray = await openCarray(store(carrayDir));
const table = await openCtable(store(tableDir));
// The bench's xorshift indices (store.mjs), so that profiles see the same access pattern.
const indices = [];
let state = 2026;
for (let i = 0; i < 10_000; i++) {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  indices.push(Math.floor(((state >>> 0) / 2 ** 32) * carray.length));
}
let source;
const created = process.env.PROFILE_CREATED_DIR ?? join(DATA, "profile-created.bcolz");

const operations = {
  readall: async () => (await openCarray(store(carrayDir))).read(),
  sum: () => carray.sum(),
  get: async () => {
    for (let i = 0; i < 2000; i++) await carray.get(indices[i]);
  },
  take: () => carray.take(indices),
  column: () => table.readColumn("f64"),
  where: () => table.where(`f64 > ${q90}`, { as: "count" }),
  whererows: () => table.where(`f64 > ${q90}`, { as: "indices" }),
  where2: () => table.where(`(f64 > ${q90}) & (i32 < 0)`, { as: "count" }),
  where2rows: () => table.where(`(f64 > ${q90}) & (i32 < 0)`, { as: "indices" }),
  create: async () => {
    source ??= new Float64Array(readFileSync(join(DATA, "carray-source.f8")).buffer.slice(0));
    const options = v2 ? { dtype: "float64", chunklen: 65536, formatVersion: 2, checksum } : { dtype: "float64", chunklen: 65536 };
    const a = await createCarray(store(created, { ...(flags.has("--fsync") ? {} : { fsync: false }), ...(flags.has("--async") ? { io: "async" } : {}) }), "", source, options);
    await a.close();
  },
};
// Untimed before each run: create writes into an empty directory. Unlike the bench (a new
// directory per run, see bench_child.py's CreatedDirectories) the same one is removed and made again, so on
// ext4 without a journal the opens of a run scan past the inodes the removal freed; set
// PROFILE_CREATED_DIR to a directory on tmpfs (/dev/shm/…) to leave the file system out.
const before = () => {
  if (op !== "create") return;
  rmSync(created, { recursive: true, force: true });
  mkdirSync(created, { recursive: true });
};
// --ballast=MB keeps that much of live array buffers, as the bench process holds its sources.
const ballastMb = Number(flagValue("ballast") ?? 0);
const ballast = ballastMb > 0 ? new Float64Array((ballastMb << 20) / 8).fill(1) : undefined;
const run = operations[op];
if (run === undefined) throw new Error(`unknown operation ${op}; one of ${Object.keys(operations).join(", ")}`);
// Both checked above: digits only.
const warmups = Number(flagValue("warmups") ?? 1);
const pauseMs = Number(flagValue("pause") ?? 0);
before();
for (let w = 0; w < warmups; w++) await run();
const allocTop = Number(process.env.PROFILE_ALLOC ?? 0);
const session = allocTop > 0 ? new Session() : undefined;
if (session !== undefined) {
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
const times = [];
// Minor page faults of this process (all its threads) within each timed run: on a virtual
// machine where a fault costs ~15 µs they are a measurable part of a run.
const faults = [];
for (let i = 0; i < runs; i++) {
  before();
  if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  if (flags.has("--gc")) globalThis.gc();
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = performance.now();
  await run();
  times.push(performance.now() - t0);
  faults.push(process.resourceUsage().minorPageFault - f0);
}
rmSync(created, { recursive: true, force: true });
if (session !== undefined) {
  const { profile } = await session.post("HeapProfiler.stopSampling");
  // Bytes allocated where each function itself allocated them (inlined callees count as theirs).
  const byFunction = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}`;
    if (node.selfSize > 0) byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  console.log(`allocated per run (sampled): ${(total / runs / 1024).toFixed(0)} KiB`);
  for (const [where, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, allocTop)) console.log(`${(bytes / runs / 1024).toFixed(1).padStart(8)} KiB  ${where}`);
}
if (process.env.PROFILE_TIMES) {
  console.log(times.map((t) => t.toFixed(1)).join(" "));
  console.log(`faults: ${faults.join(" ")}`);
}
times.sort((a, b) => a - b);
faults.sort((a, b) => a - b);
void ballast;
console.log(`${op}${v2 ? " (v2)" : ""}: median ${times[times.length >> 1].toFixed(1)} ms, min ${times[0].toFixed(1)} ms over ${runs} runs; minor page faults per run: median ${faults[faults.length >> 1]}`);
