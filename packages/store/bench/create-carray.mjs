#!/usr/bin/env node
// Times creating the issue-7 carray (10 M float64 random walk, lz4, clevel 5, shuffle, chunklen
// 65536) from a Float64Array, in a MemoryStore and on disk, against compressing the same chunks
// alone. Uses the built packages: `pnpm exec turbo run build` first.
//   node packages/store/bench/create-carray.mjs [--rows=10000000] [--reps=5] [--dir=/tmp] [--workers=0,2]
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compress } from "@fmt/blosc";
import { createBloscPool } from "@fmt/blosc/pool";
import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray } from "@fmt/store";

const { values } = parseArgs({ options: { rows: { type: "string", default: "10000000" }, reps: { type: "string", default: "5" }, dir: { type: "string", default: "/tmp" }, workers: { type: "string", default: "0,2" } } });
const rows = Number(values.rows);
const reps = Number(values.reps);
const chunklen = 65536;
const cparams = { clevel: 5, shuffle: 1, cname: "lz4" };

const data = new Float64Array(rows);
let x = 0;
let seed = 12345;
for (let i = 0; i < rows; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  x += seed / 2 ** 32 - 0.5;
  data[i] = x;
}
const bytes = new Uint8Array(data.buffer);

function median(list) {
  const s = [...list].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// `setup` and `teardown` (making and removing a scratch directory) stay outside the timing.
async function time(label, fn, setup = () => undefined, teardown = () => undefined) {
  const once = async () => {
    const context = setup();
    try {
      const t = performance.now();
      await fn(context);
      return performance.now() - t;
    } finally {
      teardown(context);
    }
  };
  await once(); // warm-up
  const runs = [];
  for (let r = 0; r < reps; r++) runs.push(await once());
  console.log(`${label.padEnd(34)} median ${median(runs).toFixed(0).padStart(5)} ms   runs ${runs.map((v) => v.toFixed(0)).join(" ")}`);
}

await time("compress only (1 thread)", () => {
  const size = chunklen * 8;
  for (let off = 0; off < bytes.length; off += size) compress(bytes.subarray(off, Math.min(bytes.length, off + size)), { typesize: 8, ...cparams });
});

for (const workers of values.workers.split(",").map(Number)) {
  const pool = workers > 0 ? createBloscPool({ threads: workers }) : undefined;
  const options = { dtype: "<f8", chunklen, cparams, ...(pool === undefined ? {} : { workers: pool }) };
  const tag = workers > 0 ? `${workers} workers` : "no workers";
  await time(`MemoryStore create (${tag})`, async () => {
    const a = await createCarray(new MemoryStore(), "a", data, options);
    await a.close();
  });
  await time(
    `FileSystemStore create (${tag})`,
    async (dir) => {
      const a = await createCarray(new FileSystemStore(dir), "a", data, options);
      await a.close();
    },
    () => mkdtempSync(join(values.dir, "create-bench-")),
    (dir) => rmSync(dir, { recursive: true, force: true }),
  );
  await pool?.close();
}
