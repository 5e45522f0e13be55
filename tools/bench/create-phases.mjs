#!/usr/bin/env node
// Where a format-1 create's time goes, ours beside the floor's, without a profiler: RUNS creates
// of the bench's 10 M-row carray per side, each into a directory of its own with the previous
// run's files truncated (as `pnpm bench:store` does), each timed whole and by phase. Ours: the
// file-system calls @fmt/fs-adapters makes (node:fs's openSync, writeSync, closeSync, lstatSync,
// … wrapped with a timer before the store is loaded) and the rest (compression, our JavaScript).
// The floor: store_native.py's write_carray with its open, write + close and c-blosc's
// compress_ptr timed the same way. tools/bench/README.md ("Issue 16, step by step (2026-11-28,
// late morning)") quotes it.
//
//   node tools/bench/create-phases.mjs [RUNS] [--dir=DIR]
//
// DIR: where the created directories go (default tools/bench/.data/store; a directory on tmpfs,
// e.g. /dev/shm/phases, leaves the file system's inode allocation out). Needs the datasets of
// `pnpm bench:store` and the built packages; run it under GLIBC_TUNABLES=glibc.malloc.hugetlb=1 to
// match the bench. Prints medians in milliseconds.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = join(HERE, ".data", "store");
const args = process.argv.slice(2);
const runs = Number(args.find((a) => !a.startsWith("--")) ?? 9);
const dir = args.find((a) => a.startsWith("--dir="))?.slice(6) ?? DATA;
if (!Number.isInteger(runs) || runs < 1) throw new Error("RUNS must be a positive integer");
fs.mkdirSync(dir, { recursive: true });

// Timers around the synchronous calls the file-system store makes, installed before it is loaded
// (syncBuiltinESMExports makes `import { openSync } from "node:fs"` see the wrappers).
const WRAPPED = ["openSync", "writeSync", "closeSync", "lstatSync", "fstatSync", "renameSync", "mkdirSync", "fsyncSync", "unlinkSync"];
const spent = Object.fromEntries(WRAPPED.map((name) => [name, 0]));
let timing = false;
for (const name of WRAPPED) {
  const original = fs[name];
  fs[name] = function timed(...callArgs) {
    if (!timing) return original.apply(this, callArgs);
    const t0 = performance.now();
    try {
      return original.apply(this, callArgs);
    } finally {
      spent[name] += performance.now() - t0;
    }
  };
}
syncBuiltinESMExports();

const { loadStore } = await import("./lib/store-ours.mjs");
const lib = await loadStore();
if (!lib.loaded) throw new Error(`@fmt/store is not built: ${lib.error}`);
const raw = fs.readFileSync(join(DATA, "carray-source.f8"));
const source = new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));

/** Truncates every file below `path` (their unwritten pages are dropped, no inode is freed). */
function emptyFiles(path) {
  for (const entry of fs.readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) emptyFiles(child);
    else if (entry.isFile()) fs.truncateSync(child, 0);
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ours = [];
const made = [];
for (let i = 0; i < runs + 2; i++) {
  if (made.length > 0) emptyFiles(made[made.length - 1]);
  const target = join(dir, `phases-ours-${i}.bcolz`);
  fs.rmSync(target, { recursive: true, force: true });
  made.push(target);
  for (const name of WRAPPED) spent[name] = 0;
  timing = true;
  const t0 = performance.now();
  const created = await lib.store.createCarray(new lib.FileSystemStore(target, { fsync: false }), "", source, { dtype: "float64", chunklen: 65536 });
  await created.close();
  const total = performance.now() - t0;
  timing = false;
  if (i >= 2) ours.push({ total, ...spent }); // two warm-ups
}
for (const path of made) fs.rmSync(path, { recursive: true, force: true });

// The floor's side in the bench's Python, its write_carray unchanged: open (and so write and
// close) and blosc are replaced inside store_native's namespace by timed stand-ins.
const python = `
import json, os, shutil, sys, time
sys.path.insert(0, ${JSON.stringify(HERE)})
import numpy as np
import store_native as sn
sn.blosc.set_nthreads(1)
spent = {"compress": 0.0, "open": 0.0, "write_close": 0.0}
real_open, real_blosc = open, sn.blosc
class Timed:
    def __init__(self, f): self.f = f
    def __enter__(self): return self
    def __exit__(self, *exc):
        t = time.perf_counter(); self.f.close(); spent["write_close"] += time.perf_counter() - t
    def write(self, data):
        t = time.perf_counter(); n = self.f.write(data); spent["write_close"] += time.perf_counter() - t; return n
def timed_open(*a, **k):
    t = time.perf_counter(); f = real_open(*a, **k); spent["open"] += time.perf_counter() - t; return Timed(f)
class Blosc:
    SHUFFLE = real_blosc.SHUFFLE
    def compress_ptr(self, *a, **k):
        t = time.perf_counter(); c = real_blosc.compress_ptr(*a, **k); spent["compress"] += time.perf_counter() - t; return c
sn.open, sn.blosc = timed_open, Blosc()
src = np.fromfile(os.path.join(${JSON.stringify(DATA)}, "carray-source.f8"), dtype="<f8")
rows, made = [], []
def empty(path):
    for parent, _, files in os.walk(path):
        for name in files: os.truncate(os.path.join(parent, name), 0)
for i in range(${runs} + 2):
    if made: empty(made[-1])
    out = os.path.join(${JSON.stringify(dir)}, "phases-native-%d.bcolz" % i)
    shutil.rmtree(out, ignore_errors=True); made.append(out)
    for k in spent: spent[k] = 0.0
    t = time.perf_counter(); sn.write_carray(out, src, 65536); total = time.perf_counter() - t
    if i >= 2: rows.append(dict(total=total * 1e3, **{k: v * 1e3 for k, v in spent.items()}))
for out in made: shutil.rmtree(out, ignore_errors=True)
print(json.dumps(rows))
`;
const floorRun = spawnSync(process.env.BENCH_PYTHON ?? "/usr/bin/python3", ["-c", python], { encoding: "utf8" });
if (floorRun.status !== 0) throw new Error(`the floor's run failed: ${floorRun.stderr}`);
const floor = JSON.parse(floorRun.stdout);

const fmt = (ms) => ms.toFixed(1).padStart(7);
const fsCalls = WRAPPED.filter((name) => median(ours.map((r) => r[name])) >= 0.05);
console.log(`format-1 create of ${source.length.toLocaleString("en")} f8 rows into ${dir}, median of ${runs} runs per side (ms)`);
console.log(`ours   total ${fmt(median(ours.map((r) => r.total)))} | ${fsCalls.map((n) => `${n} ${fmt(median(ours.map((r) => r[n])))}`).join(" | ")} | rest (compression, JavaScript) ${fmt(median(ours.map((r) => r.total - WRAPPED.reduce((sum, n) => sum + r[n], 0))))}`);
console.log(`floor  total ${fmt(median(floor.map((r) => r.total)))} | open ${fmt(median(floor.map((r) => r.open)))} | write + close ${fmt(median(floor.map((r) => r.write_close)))} | compress_ptr ${fmt(median(floor.map((r) => r.compress)))} | rest ${fmt(median(floor.map((r) => r.total - r.open - r.write_close - r.compress)))}`);
