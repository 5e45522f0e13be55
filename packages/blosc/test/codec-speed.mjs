// zstd and zlib speed, ours beside native c-blosc (python3-blosc) in the same run (not a test).
// Data: float64 random walk (numpy, seed 1), split into chunks, byte shuffle, one thread on both
// sides. Decoding runs on chunks written by c-blosc; compression on the same bytes. Rounds
// alternate native and ours; each cell is the median over rounds of the best of `reps` passes.
// Times are the process's CPU time (user + system) on both sides, not wall-clock time, so that
// other jobs on a shared machine distort them less.
// Usage (after `pnpm --filter @fmt/blosc build`):
//   node packages/blosc/test/codec-speed.mjs [--mib 16] [--chunk-kib 1024] [--rounds 3]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const MIB = option("mib", 16);
const CHUNK = option("chunk-kib", 1024) * 1024;
const ROUNDS = option("rounds", 3);
// zlib runs twice: with the default (fflate) and with Node's zlib handed in from @fmt/blosc/node
const CONFIGS = [
  ["zstd", "libzstd wasm / own decoder"],
  ["zlib", "fflate"],
  ["zlib", "node:zlib"],
].flatMap(([cname, impl]) => [1, 5, 9].map((clevel) => ({ cname, impl, clevel })));

const blosc = await import(new URL("../dist/index.js", import.meta.url).href);
const { nodeZlib } = await import(new URL("../dist/node.js", import.meta.url).href);
const zstd = await blosc.loadZstdEncoder();
const dir = mkdtempSync(join(tmpdir(), "codec-speed-"));

const NATIVE = `
import blosc, json, sys, time, numpy as np
blosc.set_nthreads(1)
mib, chunk, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
walk = np.cumsum(np.random.default_rng(1).normal(0, 1, mib * 2**17)).astype('<f8').tobytes()
open(d + '/walk', 'wb').write(walk)
pieces = [walk[i:i + chunk] for i in range(0, len(walk), chunk)]
out = {}
for cname in ['zstd', 'zlib']:
    for clevel in [1, 5, 9]:
        reps = 1 if (cname, clevel) == ('zstd', 9) else 3
        best_c = best_d = 1e9
        for _ in range(reps):
            t = time.process_time()
            chunks = [blosc.compress(p, typesize=8, clevel=clevel, shuffle=blosc.SHUFFLE, cname=cname) for p in pieces]
            best_c = min(best_c, time.process_time() - t)
        for _ in range(3):
            t = time.process_time()
            for c in chunks: blosc.decompress(c)
            best_d = min(best_d, time.process_time() - t)
        open(f'{d}/{cname}{clevel}', 'wb').write(b''.join(chunks))
        open(f'{d}/{cname}{clevel}.sizes', 'w').write(' '.join(str(len(c)) for c in chunks))
        out[f'{cname}{clevel}'] = {'comp': best_c, 'dec': best_d, 'ratio': len(walk) / sum(map(len, chunks))}
out['version'] = blosc.blosclib_version
print(json.dumps(out))
`;

function measureOurs(walk, cname, impl, clevel) {
  const zlib = impl === "node:zlib" ? nodeZlib : undefined;
  const all = new Uint8Array(readFileSync(join(dir, `${cname}${clevel}`)));
  const chunks = [];
  let at = 0;
  for (const size of readFileSync(join(dir, `${cname}${clevel}.sizes`), "utf8").split(" ").map(Number)) {
    chunks.push(all.subarray(at, at + size));
    at += size;
  }
  const out = new Uint8Array(walk.length);
  let dec = Infinity;
  for (let r = 0; r < 3; r++) {
    const t = process.cpuUsage();
    let off = 0;
    for (const c of chunks) off += blosc.decompressInto(c, out.subarray(off), { zlib });
    dec = Math.min(dec, cpuSince(t));
  }
  if (Buffer.compare(Buffer.from(out), Buffer.from(walk)) !== 0) throw new Error(`${cname} ${clevel}: decoded bytes differ`);
  let comp = Infinity;
  let size = 0;
  for (let r = 0; r < (cname === "zstd" && clevel === 9 ? 1 : 3); r++) {
    const t = process.cpuUsage();
    size = 0;
    for (let i = 0; i < walk.length; i += CHUNK) size += blosc.compress(walk.subarray(i, i + CHUNK), { typesize: 8, clevel, shuffle: 1, cname, zstd, zlib }).length;
    comp = Math.min(comp, cpuSince(t));
  }
  return { comp, dec, ratio: walk.length / size };
}

/** CPU seconds (user + system) since `start`, a `process.cpuUsage()` value. */
const cpuSince = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};

const rounds = [];
let version = "";
let walk;
for (let round = 0; round < ROUNDS; round++) {
  const native = JSON.parse(execFileSync("/usr/bin/python3", ["-c", NATIVE, String(MIB), String(CHUNK), dir], { encoding: "utf8", maxBuffer: 1 << 24 }));
  version = native.version;
  walk ??= new Uint8Array(readFileSync(join(dir, "walk")));
  const ours = Object.fromEntries(CONFIGS.map(({ cname, impl, clevel }) => [`${impl}${clevel}`, measureOurs(walk, cname, impl, clevel)]));
  rounds.push({ native, ours });
}
rmSync(dir, { recursive: true, force: true });

const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
const mbps = (seconds) => (MIB * 1.048576) / seconds;
console.log(`${MIB} MiB float64 random walk, ${CHUNK / 1024} KiB chunks, byte shuffle, 1 thread; c-blosc ${version}; ${ROUNDS} rounds; Node ${process.version}`);
console.log("| codec | ours | clevel | ratio native / ours | comp native MB/s | comp ours MB/s | comp ours ÷ native | dec native MB/s | dec ours MB/s | dec ours ÷ native |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const { cname, impl, clevel } of CONFIGS) {
  const key = `${cname}${clevel}`;
  const mine = `${impl}${clevel}`;
  const cell = (side, what) => median(rounds.map((r) => mbps(r[side][side === "ours" ? mine : key][what])));
  const ratio = (what) => median(rounds.map((r) => r.native[key][what] / r.ours[mine][what]));
  const [cn, co, dn, dour] = [cell("native", "comp"), cell("ours", "comp"), cell("native", "dec"), cell("ours", "dec")];
  console.log(`| ${cname} | ${impl} | ${clevel} | ${rounds[0].native[key].ratio.toFixed(3)} / ${rounds[0].ours[mine].ratio.toFixed(3)} | ${cn.toFixed(0)} | ${co.toFixed(0)} | ${ratio("comp").toFixed(2)}× | ${dn.toFixed(0)} | ${dour.toFixed(0)} | ${ratio("dec").toFixed(2)}× |`);
}
