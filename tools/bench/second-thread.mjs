#!/usr/bin/env node
// What a second thread gives a sum and a whole-array read of the store bench's carray (format 1,
// 153 chunk files) on this machine, measured outside the store: each thread opens, reads
// (`readSync`) and decodes (@fmt/blosc) its own chunk files. Rounds alternate:
//
//   sum:     this thread alone | this thread the first half and a persistent worker the second,
//            the worker reading into page-aligned memory at READ_BUFFER_OFFSET (as the library
//            reads) | the same with the worker reading 16 bytes past a page (where malloc's mapped
//            memory starts: inside the kernel's slow window) | this thread reading every file,
//            straight into a shared slot while the worker has one free (the worker copies it into
//            its decoder's memory and decodes it there) and into its own memory otherwise (it
//            decodes that one itself)
//   readall: this thread alone into a fresh Float64Array | the same into a fresh SharedArrayBuffer
//            | this thread and the worker, each its half, into one fresh SharedArrayBuffer
//
//   node tools/bench/second-thread.mjs [--runs=20] [--only=sum,readall] [--plain-malloc]
//
// Every thread's chunks are copied into its decoder's memory before decoding (the library's
// passes read them there in the first place), so a pass here is slower than the library's.
//
// Checked every round: a split sum equals the one-thread sum to the last bit (the chunks' sums
// are added in chunk order, as bcolz adds them) and the source's sum within rounding; every
// read-all's values equal the source array numpy wrote. Needs `pnpm bench:store`'s datasets
// (tools/bench/.data/store) and the built packages. README.md, "Issue 16, step by step
// (2026-12-02, morning session)", says what it showed.
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Worker, isMainThread, parentPort } from "node:worker_threads";

import { decompressPlannedTransient, initBlosc, planChunk, sumTransientFloat64 } from "@fmt/blosc";
import { READ_BUFFER_OFFSET } from "@fmt/fs-adapters";

import { mallocSetting } from "./lib/malloc.mjs";
import { closeSum, readTyped, referenceSum, sameFloat64 } from "./lib/store-checks.mjs";
import { collectGarbage } from "./lib/store-ours.mjs";
import { median } from "./lib/store-report.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, ".data", "store");
const DATA = join(ROOT, "carray.bcolz", "data");
/** bcolz's `blpk` header before the Blosc chunk in a format-1 chunk file. */
const FILE_HEADER = 16;

/** The chunk files in chunk order, the largest's size, and where each thread reads them (see `setUp`). */
let files = [];
let largest = 0;
let destinations;

/**
 * Lists the chunk files and makes the read destinations, in a page-aligned memory (a WebAssembly
 * memory's): `aligned` at the library's READ_BUFFER_OFFSET, `window` 16 bytes past a page, where
 * malloc's memory starts when it is mapped for a large request (and, for a file read from offset
 * 0, inside the kernel's slow window of 1–31 bytes).
 */
async function setUp() {
  await initBlosc();
  files = existsSync(DATA) ? readdirSync(DATA).filter((f) => /^__\d+\.blp$/.test(f)).sort((a, b) => Number(a.slice(2, -4)) - Number(b.slice(2, -4))).map((f) => join(DATA, f)) : [];
  largest = Math.max(0, ...files.map((f) => statSync(f).size));
  const pages = Math.ceil((largest + READ_BUFFER_OFFSET) / 65536);
  destinations = {
    aligned: new Uint8Array(new WebAssembly.Memory({ initial: pages }).buffer, READ_BUFFER_OFFSET),
    window: new Uint8Array(new WebAssembly.Memory({ initial: pages }).buffer, 16),
  };
}

/** Chunk file `k`'s Blosc chunk, read into `kind`'s memory (or `into`); valid until the next read there. */
function readChunk(k, kind, into = destinations[kind]) {
  const fd = openSync(files[k], "r");
  try {
    const size = fstatSync(fd).size;
    let done = 0;
    while (done < size) {
      const n = readSync(fd, into, done, size - done, done);
      if (n === 0) throw new Error(`${files[k]}: cut short at ${done} of ${size} bytes`);
      done += n;
    }
    return into.subarray(FILE_HEADER, size);
  } finally {
    closeSync(fd);
  }
}

/** The decoded bytes of chunk `k`, a view of the kernels' memory valid until the next decode. */
function decoded(k, kind) {
  const chunk = readChunk(k, kind);
  const view = decompressPlannedTransient(chunk, planChunk(chunk, { path: files[k] }));
  if (view === undefined) throw new Error(`${files[k]}: not decoded in WebAssembly (another codec?)`);
  return view;
}

/** The sum of chunk `k`'s values (numpy's order within the chunk), decoded from `chunk`. */
function chunkSum(chunk, k) {
  const sum = sumTransientFloat64(decompressPlannedTransient(chunk, planChunk(chunk, { path: files[k] })), 0);
  // A memcpyed chunk decodes to a view of itself, outside the kernels: not summed there.
  if (sum === undefined) throw new Error(`${files[k]}: not decoded in the kernels' memory (a memcpyed chunk?)`);
  return sum;
}

/** Each chunk's sum (numpy's order within the chunk), chunks `from` to `to`. */
function chunkSums(from, to, kind) {
  const sums = new Float64Array(to - from);
  for (let k = from; k < to; k++) sums[k - from] = chunkSum(readChunk(k, kind), k);
  return sums;
}

/** Chunks `from` to `to` decoded into `out` (bytes), each at its place. */
function readInto(out, from, to, chunkBytes) {
  for (let k = from; k < to; k++) out.set(decoded(k, "aligned"), k * chunkBytes);
}

/** Shared state of a pass that hands chunks to the worker (see `handedSum`); `posted` -1 stops it. */
const CONTROL = { posted: 0, done: 1, failed: 2 };
const STOP = -1;
const SLOTS = 4;
/** A posted chunk: its index, slot, byte offset in the slots' memory and length. */
const TASK = 4;

/**
 * The worker's side of a handed pass: it waits (Atomics) for chunks this thread posts into shared
 * slots, copies each into its decoder's memory, decodes and sums it, writes the sum at the
 * chunk's place and frees the slot, until told to stop (the stop is written to the word it waits
 * on, so that it cannot miss the wake-up).
 */
function serveHanded({ control, tasks, slots, sums, free }) {
  const ctl = new Int32Array(control);
  const queue = new Int32Array(tasks);
  const out = new Float64Array(sums);
  const open = new Int32Array(free);
  let taken = 0;
  let failure;
  for (;;) {
    const posted = Atomics.load(ctl, CONTROL.posted);
    if (posted === STOP) return failure;
    if (posted === taken) {
      Atomics.wait(ctl, CONTROL.posted, taken, 50);
      continue;
    }
    const at = (taken % SLOTS) * TASK;
    const [k, slot, offset, length] = [queue[at], queue[at + 1], queue[at + 2], queue[at + 3]];
    taken++;
    try {
      const chunk = new Uint8Array(slots, offset, length);
      out[k] = chunkSum(chunk, k);
    } catch (error) {
      Atomics.store(ctl, CONTROL.failed, 1);
      failure ??= String(error);
    }
    Atomics.store(open, slot, 1);
    Atomics.add(ctl, CONTROL.done, 1);
    Atomics.notify(ctl, CONTROL.done);
  }
}

if (!isMainThread) {
  await setUp();
  parentPort.on("message", (task) => {
    const started = performance.now();
    if (task.op === "handed") {
      const failure = serveHanded(task);
      parentPort.postMessage({ ms: performance.now() - started, failure });
    } else if (task.op === "sum") {
      const sums = chunkSums(task.from, task.to, task.kind);
      parentPort.postMessage({ sums, ms: performance.now() - started }, [sums.buffer]);
    } else {
      readInto(new Uint8Array(task.shared), task.from, task.to, task.chunkBytes);
      parentPort.postMessage({ ms: performance.now() - started });
    }
  });
} else {
  await main();
}

async function main() {
  // parseArgs refuses an argument it does not know.
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { runs: { type: "string", default: "20" }, only: { type: "string", default: "sum,readall" }, "plain-malloc": { type: "boolean", default: false } },
  });
  const runs = Number(values.runs);
  const only = values.only.split(",");
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs wants a positive integer");
  for (const op of only) if (op !== "sum" && op !== "readall") throw new Error(`--only: unknown operation ${op} (sum, readall)`);
  if (mallocSetting(fileURLToPath(import.meta.url), values["plain-malloc"]) === undefined) return;
  await setUp();
  if (files.length === 0) throw new Error(`no chunk files in ${DATA}: run \`node tools/bench/store.mjs --runs=1 --no-scale --only=readall\` first`);

  const source = readTyped(join(ROOT, "carray-source.f8"));
  const reference = referenceSum(source);
  const chunkBytes = decoded(0, "aligned").length;
  const worker = new Worker(fileURLToPath(import.meta.url));
  try {
    await measure({ runs, only, source, reference, chunkBytes, worker });
  } finally {
    await worker.terminate();
  }
}

async function measure({ runs, only, source, reference, chunkBytes, worker }) {
  // One task at a time; a worker that fails or exits rejects it (else the run would wait forever).
  const ask = (task) => new Promise((resolve, reject) => {
    const settle = (fn) => (value) => {
      worker.off("error", onError).off("exit", onExit).off("message", onMessage);
      fn(value);
    };
    const onError = settle(reject);
    const onExit = settle((code) => reject(new Error(`the worker exited (code ${code})`)));
    const onMessage = settle(resolve);
    worker.on("error", onError).on("exit", onExit).on("message", onMessage);
    worker.postMessage(task);
  });
  const half = files.length >> 1;
  const total = (parts) => {
    let sum = 0;
    for (const part of parts) for (const s of part) sum += s;
    return sum;
  };

  const sides = {
    sum: {
      "one thread": async () => ({ value: total([chunkSums(0, files.length, "aligned")]) }),
      "two threads, worker page-aligned": () => splitSum("aligned"),
      "two threads, worker 16 bytes past a page": () => splitSum("window"),
      "two threads, this thread reads all": () => handedSum(),
    },
    readall: {
      "one thread, Float64Array": async () => {
        const out = new Float64Array(source.length);
        readInto(new Uint8Array(out.buffer), 0, files.length, chunkBytes);
        return { value: out };
      },
      "one thread, SharedArrayBuffer": async () => {
        const out = new Float64Array(new SharedArrayBuffer(source.length * 8));
        readInto(new Uint8Array(out.buffer), 0, files.length, chunkBytes);
        return { value: out };
      },
      "two threads, SharedArrayBuffer": async () => {
        const shared = new SharedArrayBuffer(source.length * 8);
        const theirs = ask({ op: "readall", shared, from: half, to: files.length, chunkBytes });
        theirs.catch(() => undefined); // awaited below
        const started = performance.now();
        readInto(new Uint8Array(shared), 0, half, chunkBytes);
        const mine = performance.now() - started;
        const reply = await theirs;
        return { value: new Float64Array(shared), mine, theirs: reply.ms };
      },
    },
  };

  // Shared memory of the handed passes, made once: slots for chunks in flight, each chunk's sum.
  const slotBytes = Math.ceil((largest + READ_BUFFER_OFFSET) / 4096) * 4096;
  const handed = {
    control: new SharedArrayBuffer(12),
    tasks: new SharedArrayBuffer(4 * TASK * SLOTS),
    slots: new SharedArrayBuffer(slotBytes * SLOTS),
    free: new SharedArrayBuffer(4 * SLOTS),
    sums: new SharedArrayBuffer(8 * files.length),
  };

  /**
   * This thread reads every chunk file; while the worker has a free slot, the chunk is copied
   * there and posted to it, else this thread decodes and sums it. The sums are added in chunk
   * order at the end.
   */
  async function handedSum() {
    const ctl = new Int32Array(handed.control);
    const queue = new Int32Array(handed.tasks);
    const open = new Int32Array(handed.free);
    const slotMemory = new Uint8Array(handed.slots);
    const sums = new Float64Array(handed.sums);
    ctl.fill(0);
    open.fill(1);
    sums.fill(Number.NaN);
    const theirs = ask({ op: "handed", ...handed });
    theirs.catch(() => undefined); // awaited below; a failure here first must not leave it unhandled
    const started = performance.now();
    let posted = 0;
    for (let k = 0; k < files.length; k++) {
      let slot = -1;
      for (let i = 0; i < SLOTS && slot < 0; i++) if (Atomics.load(open, i) === 1) slot = i;
      if (slot < 0) {
        sums[k] = chunkSum(readChunk(k, "aligned"), k);
        continue;
      }
      // Read straight into the slot, READ_BUFFER_OFFSET bytes in (clear of the slow window).
      Atomics.store(open, slot, 0);
      const chunk = readChunk(k, "aligned", slotMemory.subarray(slot * slotBytes + READ_BUFFER_OFFSET, (slot + 1) * slotBytes));
      const at = (posted % SLOTS) * TASK;
      queue[at] = k;
      queue[at + 1] = slot;
      queue[at + 2] = chunk.byteOffset;
      queue[at + 3] = chunk.length;
      posted++;
      Atomics.store(ctl, CONTROL.posted, posted);
      Atomics.notify(ctl, CONTROL.posted);
    }
    const mine = performance.now() - started;
    // This wait never yields to the event loop, so a dead worker shows as no progress, not an event.
    let last = performance.now();
    for (let done = Atomics.load(ctl, CONTROL.done), seen = done; done < posted; done = Atomics.load(ctl, CONTROL.done)) {
      if (done !== seen) [seen, last] = [done, performance.now()];
      else if (performance.now() - last > 10_000) throw new Error(`the worker stopped taking chunks (${done} of ${posted} done)`);
      Atomics.wait(ctl, CONTROL.done, done, 50);
    }
    Atomics.store(ctl, CONTROL.posted, STOP);
    Atomics.notify(ctl, CONTROL.posted);
    const reply = await theirs;
    if (Atomics.load(ctl, CONTROL.failed) !== 0) throw new Error(`the worker failed: ${reply.failure}`);
    return { value: total([sums]), mine, theirs: reply.ms, handed: posted };
  }

  async function splitSum(kind) {
    const theirs = ask({ op: "sum", from: half, to: files.length, kind });
    theirs.catch(() => undefined); // awaited below
    const started = performance.now();
    const sums = chunkSums(0, half, "aligned");
    const mine = performance.now() - started;
    const reply = await theirs;
    return { value: total([sums, reply.sums]), mine, theirs: reply.ms };
  }

  const check = (op, name, value, oneThreadSum) => {
    if (op === "sum") {
      if (!closeSum(value, reference)) throw new Error(`${name}: sum ${value}, the source's ${reference.sum}`);
      if (oneThreadSum !== undefined && value !== oneThreadSum) throw new Error(`${name}: sum ${value} differs from one thread's ${oneThreadSum}`);
    } else if (!sameFloat64(value, source)) throw new Error(`${name}: values differ from the source's`);
  };

  for (const op of only) {
    const times = Object.fromEntries(Object.keys(sides[op]).map((name) => [name, { total: [], mine: [], theirs: [], handed: [] }]));
    for (let round = -1; round < runs; round++) {
      // Round -1 warms up every side (its times are not kept).
      let oneThreadSum;
      for (const [name, run] of Object.entries(sides[op])) {
        // Untimed, as the store bench collects before each run.
        collectGarbage();
        const started = performance.now();
        const result = await run();
        const elapsed = performance.now() - started;
        check(op, name, result.value, oneThreadSum);
        if (op === "sum" && oneThreadSum === undefined) oneThreadSum = result.value;
        if (round < 0) continue;
        times[name].total.push(elapsed);
        if (result.mine !== undefined) times[name].mine.push(result.mine);
        if (result.theirs !== undefined) times[name].theirs.push(result.theirs);
        if (result.handed !== undefined) times[name].handed.push(result.handed);
      }
    }
    console.log(`${op}: medians of ${runs} (ms); checked every round`);
    const base = median(times[Object.keys(times)[0]].total);
    for (const [name, t] of Object.entries(times)) {
      const handedOut = t.handed.length > 0 ? `, ${median(t.handed)} of ${files.length} chunks handed over` : "";
      const parts = t.mine.length > 0 ? `  (this thread's part ${median(t.mine).toFixed(1)}, the worker's ${median(t.theirs).toFixed(1)}${handedOut})` : "";
      console.log(`  ${name.padEnd(42)} ${median(t.total).toFixed(1).padStart(7)}  ${(median(t.total) / base).toFixed(2)}×${parts}`);
    }
  }
}
