#!/usr/bin/env node
// Where a create or a read-all of the store benchmark's 10 M-row carray (format 1) spends its
// time, ours beside the floor's, without a profiler: RUNS runs per side, each timed whole and by
// phase. Ours: the file-system calls @fmt/fs-adapters makes (node:fs's openSync, readSync,
// writeSync, closeSync, lstatSync, … wrapped with a timer before the store is loaded), garbage
// collection inside the run (perf_hooks' gc entries) and the rest (compression or decoding with
// the copies into and out of WebAssembly memory, our JavaScript). The floor: store_native.py's
// write_carray or read_all, unchanged, with its open / read / write / close and c-blosc's
// compress_ptr / decompress_ptr replaced in its namespace by timed stand-ins. As in
// `pnpm bench:store`, each create run writes into a directory of its own (the previous run's files
// truncated) and garbage is collected before each of our runs. tools/bench/README.md ("Issue 16,
// step by step (2026-11-28, late morning)") quotes it.
//
//   node tools/bench/phases.mjs create|readall [RUNS] [--dir=DIR]
//
// DIR: where create's directories go (default tools/bench/.data/store; a directory on tmpfs,
// e.g. /dev/shm/phases, leaves the file system's inode allocation out). Needs the datasets of
// `pnpm bench:store` and the built packages; run it under GLIBC_TUNABLES=glibc.malloc.hugetlb=1 to
// match the bench. Prints medians in milliseconds.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { dirname, join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = join(HERE, ".data", "store");
const args = process.argv.slice(2);
const [op, runsArg] = args.filter((a) => !a.startsWith("--"));
const runs = Number(runsArg ?? 9);
const dir = args.find((a) => a.startsWith("--dir="))?.slice(6) ?? DATA;
if (op !== "create" && op !== "readall") throw new Error("usage: node tools/bench/phases.mjs create|readall [RUNS] [--dir=DIR]");
if (!Number.isInteger(runs) || runs < 1) throw new Error("RUNS must be a positive integer");
fs.mkdirSync(dir, { recursive: true });
v8.setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc");

// Timers around the synchronous calls the file-system store makes, installed before it is loaded
// (syncBuiltinESMExports makes `import { openSync } from "node:fs"` see the wrappers).
const WRAPPED = ["openSync", "readSync", "writeSync", "closeSync", "lstatSync", "fstatSync", "renameSync", "mkdirSync", "fsyncSync", "unlinkSync"];
const spent = Object.fromEntries([...WRAPPED, "gc"].map((name) => [name, 0]));
let timing = false;
// Collections as perf_hooks reports them (after they end, asynchronously); a run counts those
// that started within it.
const collections = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push({ start: entry.startTime, duration: entry.duration });
}).observe({ entryTypes: ["gc"] });
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

const { emptyFiles, loadStore } = await import("./lib/store-ours.mjs");
const { median } = await import("./lib/store-report.mjs");
const lib = await loadStore();
if (!lib.loaded) throw new Error(`@fmt/store is not built: ${lib.error}`);
const raw = fs.readFileSync(join(DATA, "carray-source.f8"));
const source = new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));

const ours = [];
const made = [];
const carrayDir = join(DATA, "carray.bcolz");
for (let i = 0; i < runs + 2; i++) {
  let target = "";
  if (op === "create") {
    if (made.length > 0) emptyFiles(made[made.length - 1]);
    target = join(dir, `phases-ours-${i}.bcolz`);
    fs.rmSync(target, { recursive: true, force: true });
    made.push(target);
  }
  collectGarbage();
  for (const name of Object.keys(spent)) spent[name] = 0;
  timing = true;
  const t0 = performance.now();
  if (op === "create") {
    const created = await lib.store.createCarray(new lib.FileSystemStore(target, { fsync: false }), "", source, { dtype: "float64", chunklen: 65536 });
    await created.close();
  } else {
    const values = await (await lib.store.openCarray(new lib.FileSystemStore(carrayDir))).read();
    if (values.length !== source.length || values[values.length - 1] !== source[source.length - 1]) throw new Error("read-all gave other values");
  }
  const t1 = performance.now();
  const total = t1 - t0;
  timing = false;
  await new Promise((resolve) => setTimeout(resolve, 50)); // this run's collections arrive (a task later)
  spent.gc = collections.filter((c) => c.start >= t0 && c.start < t1).reduce((sum, c) => sum + c.duration, 0);
  collections.length = 0;
  if (i >= 2) ours.push({ total, ...spent }); // two warm-ups
}
for (const path of made) fs.rmSync(path, { recursive: true, force: true });

// The floor's side in the bench's Python, its write_carray and read_all unchanged: open (and so
// read, write and close) and blosc are replaced inside store_native's namespace by timed stand-ins.
const python = `
import json, os, shutil, sys, time
sys.path.insert(0, ${JSON.stringify(HERE)})
import numpy as np
import store_native as sn
from bench_child import empty_files
sn.blosc.set_nthreads(1)
spent = {"codec": 0.0, "open": 0.0, "io_close": 0.0}
real_open, real_blosc = open, sn.blosc
def timed(key, fn, *a, **k):
    t = time.perf_counter()
    try:
        return fn(*a, **k)
    finally:
        spent[key] += time.perf_counter() - t
class Timed:
    def __init__(self, f): self.f = f
    def __enter__(self): return self
    def __exit__(self, *exc): timed("io_close", self.f.close)
    def write(self, data): return timed("io_close", self.f.write, data)
    def read(self, *a): return timed("io_close", self.f.read, *a)
class Blosc:
    SHUFFLE = real_blosc.SHUFFLE
    def compress_ptr(self, *a, **k): return timed("codec", real_blosc.compress_ptr, *a, **k)
    def decompress_ptr(self, *a, **k): return timed("codec", real_blosc.decompress_ptr, *a, **k)
sn.open, sn.blosc = (lambda *a, **k: Timed(timed("open", real_open, *a, **k))), Blosc()
src = np.fromfile(os.path.join(${JSON.stringify(DATA)}, "carray-source.f8"), dtype="<f8")
rows, made = [], []
for i in range(${runs} + 2):
    if ${JSON.stringify(op)} == "create":
        if made: empty_files(made[-1])
        out = os.path.join(${JSON.stringify(dir)}, "phases-native-%d.bcolz" % i)
        shutil.rmtree(out, ignore_errors=True); made.append(out)
    for k in spent: spent[k] = 0.0
    t = time.perf_counter()
    if ${JSON.stringify(op)} == "create":
        sn.write_carray(out, src, 65536)
    else:
        values = sn.read_all(os.path.join(${JSON.stringify(DATA)}, "carray.bcolz"))
    total = time.perf_counter() - t
    if ${JSON.stringify(op)} == "readall":
        assert len(values) == len(src) and values[-1] == src[-1]
        del values
    if i >= 2: rows.append(dict(total=total * 1e3, **{k: v * 1e3 for k, v in spent.items()}))
for out in made: shutil.rmtree(out, ignore_errors=True)
print(json.dumps(rows))
`;
const floorRun = spawnSync(process.env.BENCH_PYTHON ?? "/usr/bin/python3", ["-c", python], { encoding: "utf8" });
if (floorRun.status !== 0) throw new Error(`the floor's run failed: ${floorRun.stderr}`);
const floor = JSON.parse(floorRun.stdout);

const fmt = (ms) => ms.toFixed(1).padStart(7);
const med = (rows, pick) => median(rows.map(pick));
const shown = [...WRAPPED, "gc"].filter((name) => med(ours, (r) => r[name]) >= 0.05);
const rest = op === "create" ? "compression, JavaScript" : "decoding, copies, JavaScript";
const verbs = op === "create" ? ["write + close", "compress_ptr"] : ["read + close", "decompress_ptr"];
console.log(`format-1 ${op === "create" ? `create of ${source.length.toLocaleString("en")} f8 rows into ${dir}` : "read-all of the bench's carray"}, median of ${runs} runs per side (ms)`);
console.log(`ours   total ${fmt(med(ours, (r) => r.total))} | ${shown.map((n) => `${n} ${fmt(med(ours, (r) => r[n]))}`).join(" | ")} | rest (${rest}) ${fmt(med(ours, (r) => r.total - WRAPPED.reduce((sum, n) => sum + r[n], 0) - r.gc))}`);
console.log(`floor  total ${fmt(med(floor, (r) => r.total))} | open ${fmt(med(floor, (r) => r.open))} | ${verbs[0]} ${fmt(med(floor, (r) => r.io_close))} | ${verbs[1]} ${fmt(med(floor, (r) => r.codec))} | rest ${fmt(med(floor, (r) => r.total - r.open - r.io_close - r.codec))}`);
