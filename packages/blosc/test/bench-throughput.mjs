// Quick throughput check (not a test): 64 MiB float64 random walk, lz4 + shuffle, 256 KiB chunks,
// compressed by real c-blosc, decompressed by the built package (run `pnpm --filter @fmt/blosc build` first).
// Usage: node packages/blosc/test/bench-throughput.mjs [cname] [shuffle]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const { decompressInto } = await import(new URL("../dist/index.js", import.meta.url).href);

const cname = process.argv[2] ?? "lz4";
const shuffle = Number(process.argv[3] ?? 1);
const dir = mkdtempSync(join(tmpdir(), "blosc-bench-"));
execFileSync("/usr/bin/python3", ["-c", `
import blosc, numpy as np
blosc.set_nthreads(1)
walk = np.cumsum(np.random.default_rng(1).normal(0, 1, 8 * 2**20)).astype('<f8').tobytes()
out = bytearray(); sizes = []
for i in range(0, len(walk), 256 * 1024):
    c = blosc.compress(walk[i:i + 256 * 1024], typesize=8, clevel=5, shuffle=${shuffle}, cname='${cname}')
    sizes.append(len(c)); out += c
open('${dir}/chunks', 'wb').write(out); open('${dir}/sizes', 'w').write(' '.join(map(str, sizes)))
open('${dir}/walk', 'wb').write(walk)
`]);
const all = new Uint8Array(readFileSync(join(dir, "chunks")));
const walk = readFileSync(join(dir, "walk"));
const chunks = [];
let o = 0;
for (const s of readFileSync(join(dir, "sizes"), "utf8").split(" ").map(Number)) { chunks.push(all.subarray(o, o + s)); o += s; }
rmSync(dir, { recursive: true, force: true });
const out = new Uint8Array(walk.length);
const times = [];
for (let rep = 0; rep < 6; rep++) {
  const t0 = performance.now();
  let off = 0;
  for (const c of chunks) off += decompressInto(c, out.subarray(off));
  times.push(performance.now() - t0);
}
if (Buffer.compare(Buffer.from(out), walk) !== 0) throw new Error("decoded bytes differ");
times.sort((a, b) => a - b);
console.log(`${cname} shuffle=${shuffle}: ratio ${(walk.length / all.length).toFixed(2)}, best ${(64 / (times[0] / 1000)).toFixed(0)} MiB/s, median ${(64 / (times[3] / 1000)).toFixed(0)} MiB/s`);
