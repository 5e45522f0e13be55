// Read-path timings on a 10 M-row float64 random walk carray written by our writer with bcolz's
// defaults (lz4, clevel 5, shuffle, chunklen 65536), in a directory under /tmp: open + read all,
// sum, 10,000 random single-element gets, and the same 10,000 indices in one take. Not a test:
//
//   pnpm exec turbo run build && node packages/store/test/bench-read-path.mjs [runs] [pool]
//
// Pass a repository root as BENCH_ROOT to time another checkout's build on the same file (the
// file is created once, by whichever build runs first). "pool" decodes on a 2-thread BloscPool.
// Prints the median and every run of each operation, in milliseconds.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = process.env.BENCH_ROOT ?? fileURLToPath(new URL("../../..", import.meta.url));
const runs = Number(process.argv[2] ?? 5);
const { openCarray, createCarray } = await import(`${root}/packages/store/dist/index.js`);
const { FileSystemStore } = await import(`${root}/packages/fs-adapters/dist/node.js`);
const workers = process.argv[3] === "pool" ? (await import(`${root}/packages/blosc/dist/pool-node.js`)).createBloscPool({ threads: 2 }) : undefined;
const options = workers === undefined ? {} : { workers };
const parent = "/tmp/bcolz-read-bench";
const dir = `${parent}/walk10m.bcolz`;
const N = 10_000_000;

let seed = 12345;
const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
if (!existsSync(dir)) {
  const x = new Float64Array(N);
  for (let i = 1; i < N; i++) x[i] = x[i - 1] + next() / 2 ** 32 - 0.5;
  const a = await createCarray(new FileSystemStore(parent), "walk10m.bcolz", x, { dtype: "<f8", chunklen: 65536, cparams: { cname: "lz4", clevel: 5, shuffle: 1 } });
  await a.close();
}
seed = 987;
const indices = Array.from({ length: 10_000 }, () => next() % N);
const times = { "open + read all": [], sum: [], "10,000 gets": [], "take 10,000": [] };
const time = async (name, fn) => {
  const t = performance.now();
  const result = await fn();
  times[name].push(performance.now() - t);
  return result;
};
for (let r = 0; r < runs; r++) {
  const all = await time("open + read all", async () => (await openCarray(new FileSystemStore(dir), "", options)).read());
  if (all.length !== N) throw new Error("read a wrong length");
  const a = await openCarray(new FileSystemStore(dir), "", options);
  await time("sum", () => a.sum());
  const fresh = await openCarray(new FileSystemStore(dir), "", options);
  const one = await time("10,000 gets", async () => {
    let s = 0;
    for (const i of indices) s += await fresh.get(i);
    return s;
  });
  const other = await openCarray(new FileSystemStore(dir), "", options);
  if (typeof other.take !== "function") continue; // a build from before take existed
  const taken = await time("take 10,000", () => other.take(indices));
  let s = 0;
  for (const v of taken) s += v;
  if (s !== one) throw new Error("take and get disagree");
}
await workers?.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, xs] of Object.entries(times)) {
  if (xs.length === 0) continue;
  console.log(`${name.padEnd(16)} median ${median(xs).toFixed(1).padStart(8)} ms   runs ${xs.map((x) => x.toFixed(0)).join(" ")}`);
}
