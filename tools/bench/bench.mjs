#!/usr/bin/env node
// Blosc benchmark: @fmt/blosc next to native c-blosc (python3-blosc) and numcodecs (c-blosc in
// WebAssembly), in one run, on the same data and the same compressed chunks. See README.md.
//
// Run through `pnpm bench` (which builds @fmt/blosc first): this file imports the package's dist.
import { readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { BUSY_OTHER_CORES, cpuSnapshot, describeMachine, otherCores, otherCoresNow } from "./lib/machine-load.mjs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { TUNABLE, mallocSetting, nativeEnv } from "./lib/malloc.mjs";
import { startNative, splitChunks } from "./lib/native.mjs";
import { loadOurs, firstLine } from "./lib/ours.mjs";
import { measure, TIMING } from "./lib/timing.mjs";
import { ok, na, fail, NOT_IMPLEMENTED, markdownTable, evaluateTargets, markdownTargets } from "./lib/report.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA_DIR = join(HERE, ".data");
const CHUNK_BYTES = 256 * 1024;
const CLEVEL = 5;
const WARMUP_CHUNKS = 32;
// Scratch files for chunks passed between the two sides; per process, so two runs cannot collide.
const NATIVE_CHUNKS = join(DATA_DIR, `native-chunks-${process.pid}.bin`);
const OURS_CHUNKS = join(DATA_DIR, `ours-chunks-${process.pid}.bin`);
const removeScratch = () => { for (const scratch of [NATIVE_CHUNKS, OURS_CHUNKS]) rmSync(scratch, { force: true }); };
process.once("SIGINT", () => { removeScratch(); process.exit(130); });

const ALL_DATASETS = ["f8-randwalk", "i8-arange", "f8-uniform", "i4-uniform100"];
const TYPESIZE = { "f8-randwalk": 8, "i8-arange": 8, "f8-uniform": 8, "i4-uniform100": 4 };
// zstdLevels: the zstd decode sweep (float64 random walk, byte shuffle, 1 thread) at these clevels
// besides the main table's clevel 5, for issue 16's "zstd decode ≥ 0.5× native at every clevel".
const PLANS = {
  quick: { datasets: ["f8-randwalk"], codecs: ["lz4", "blosclz"], shuffles: [1, 2], threads: [1, 2], zstdLevels: [1, 9] },
  default: { datasets: ALL_DATASETS, codecs: ["lz4", "blosclz", "zstd", "zlib"], shuffles: [0, 1, 2], threads: [1, 2], zstdLevels: [1, 2, 3, 4, 6, 7, 8, 9] },
  full: { datasets: ALL_DATASETS, codecs: ["lz4", "blosclz", "zstd", "zlib", "lz4hc", "snappy"], shuffles: [0, 1, 2], threads: [1, 2], zstdLevels: [1, 2, 3, 4, 6, 7, 8, 9] },
};

const HELP = `Usage: pnpm bench [-- options]   (or: node tools/bench/bench.mjs [options] after building @fmt/blosc)

  --quick              float64 random walk only, lz4 and blosclz, shuffle 1 and 2 (about a minute)
  --full               every dataset, also lz4hc and snappy, steadier timing (>= 3 reps and >= 1 s each)
  --datasets=a,b       restrict to these datasets (${ALL_DATASETS.join(", ")})
  --codecs=a,b         restrict to these codecs
  --shuffles=0,1,2     restrict to these shuffles
  --threads=1,2        restrict to these thread counts
  --zstd-levels=1,9    the zstd decode sweep's clevels (besides 5; none: --zstd-levels=)
  --plain-malloc       do not re-run under GLIBC_TUNABLES=${TUNABLE} (Linux)
  -h, --help           this text

Prints a Markdown table and the targets to stdout (progress goes to stderr) and writes the same
Markdown to tools/bench/.data/latest.md and the raw numbers to tools/bench/.data/latest.json.
Environment: BENCH_PYTHON (default /usr/bin/python3) must have blosc and numpy.`;

function parseCli(argv) {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== "--"),
    options: {
      quick: { type: "boolean" },
      full: { type: "boolean" },
      datasets: { type: "string" },
      codecs: { type: "string" },
      shuffles: { type: "string" },
      threads: { type: "string" },
      "zstd-levels": { type: "string" },
      "plain-malloc": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  if (values.quick && values.full) throw new Error("--quick and --full exclude each other");
  const mode = values.quick ? "quick" : values.full ? "full" : "default";
  const plan = { ...PLANS[mode] };
  const list = (text, parse = String) => text.split(",").map((s) => parse(s.trim()));
  if (values.datasets) plan.datasets = list(values.datasets);
  if (values.codecs) plan.codecs = list(values.codecs);
  if (values.shuffles) plan.shuffles = list(values.shuffles, Number);
  if (values.threads) plan.threads = list(values.threads, Number);
  if (values["zstd-levels"] !== undefined) plan.zstdLevels = values["zstd-levels"] === "" ? [] : list(values["zstd-levels"], Number);
  for (const l of plan.zstdLevels) if (!Number.isInteger(l) || l < 1 || l > 9) throw new Error(`bad zstd clevel ${l}`);
  for (const d of plan.datasets) if (!ALL_DATASETS.includes(d)) throw new Error(`unknown dataset ${d}`);
  for (const s of plan.shuffles) if (![0, 1, 2].includes(s)) throw new Error(`bad shuffle ${s}`);
  for (const t of plan.threads) if (!Number.isInteger(t) || t < 1) throw new Error(`bad thread count ${t}`);
  return { mode, plan, timing: TIMING[mode], plainMalloc: values["plain-malloc"] === true };
}

const log = (...parts) => console.error("[bench]", ...parts);
const gbps = (bytes, seconds) => bytes / seconds / 1e9;

function sameBytes(a, b) {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

/**
 * Run `decodeOne(chunk, index)` over the first `count` chunks once, comparing each result with the
 * original bytes. Returns undefined when all match, else the reason for a FAIL cell. This pass is
 * also the warm-up of the timed loop that follows.
 */
async function verifyDecoding(chunks, pieces, decodeOne, count) {
  for (let i = 0; i < count; i++) {
    let decoded;
    try {
      decoded = await decodeOne(chunks[i], i);
    } catch (error) {
      return `chunk ${i}: ${firstLine(error)}`;
    }
    if (!(decoded instanceof Uint8Array)) return `chunk ${i}: result is not a Uint8Array`;
    if (!sameBytes(decoded, pieces[i])) return `chunk ${i} decodes to different bytes`;
  }
  return undefined;
}

// Ours is checked on every chunk; numcodecs (real c-blosc, not under test) only on the warm-up ones.
async function timeDecoding(label, chunks, pieces, nbytes, timing, decodeOne, decodeAll, verifyCount = chunks.length) {
  const problem = await verifyDecoding(chunks, pieces, decodeOne, Math.min(verifyCount, chunks.length));
  if (problem) {
    log(`  ${label}: FAIL ${problem}`);
    return fail(problem);
  }
  try {
    const t = await measure(decodeAll, timing);
    return Object.assign(ok(gbps(nbytes, t.best)), { reps: t.reps });
  } catch (error) {
    return fail(firstLine(error));
  }
}

async function main() {
  const { mode, plan, timing, plainMalloc } = parseCli(process.argv.slice(2));
  const malloc = mallocSetting(fileURLToPath(import.meta.url), plainMalloc);
  if (malloc === undefined) return; // the re-run under the tunable does the work
  const python = process.env.BENCH_PYTHON ?? "/usr/bin/python3";
  mkdirSync(DATA_DIR, { recursive: true });

  const ours = await loadOurs();
  if (!ours.loaded) log(`@fmt/blosc could not be imported (${ours.error}); its cells will read n/a. Was it built?`);
  else {
    const has = ["decompress", "decompressInto", "compress"].filter((k) => ours[k]);
    log(`@fmt/blosc exports: ${has.join(", ") || "none of decompress/decompressInto/compress"}` +
      (ours.pool ? `; worker pool: ${ours.pool.name} from ${ours.pool.source}` : "; no worker pool"));
  }
  const { default: NumcodecsBlosc } = await import("numcodecs/blosc");
  const numcodecsVersion = JSON.parse(readFileSync(join(HERE, "node_modules/numcodecs/package.json"), "utf8")).version;

  // Before any child starts: a child's CPU time counts as this process's only once it has exited.
  const othersBefore = await otherCoresNow(1000);
  const cpuAtStart = cpuSnapshot();
  const native = startNative(join(HERE, "native.py"), python, nativeEnv());
  const pools = new Map();
  const rows = [];
  let bloscVersion = "?";
  const started = performance.now();
  const loadBefore = loadavg()[0];
  if (othersBefore !== undefined && othersBefore > BUSY_OTHER_CORES) log(`other processes keep ${othersBefore.toFixed(2)} cores busy: timings will be disturbed`);
  try {
    const gen = await native.request({ cmd: "gen", dir: DATA_DIR, names: plan.datasets });
    if (!gen.ok) throw new Error(`dataset generation failed: ${gen.error}`);

    for (const threads of plan.threads) {
      if (threads === 1 || !ours.pool) continue;
      try {
        pools.set(threads, await ours.pool.open(threads));
      } catch (error) {
        pools.set(threads, { error: firstLine(error) });
        log(`worker pool with ${threads} threads could not be opened: ${firstLine(error)}`);
      }
    }

    for (const dataset of plan.datasets) {
      const raw = new Uint8Array(readFileSync(join(DATA_DIR, `${dataset}.bin`)));
      const pieces = [];
      for (let off = 0; off < raw.length; off += CHUNK_BYTES) pieces.push(raw.subarray(off, off + CHUNK_BYTES));
      const typesize = TYPESIZE[dataset];

      for (const codec of plan.codecs) {
        for (const shuffle of plan.shuffles) {
          const configRows = await runConfig({ dataset, codec, shuffle, threadCounts: plan.threads, raw, pieces, typesize, timing, native, ours, pools, NumcodecsBlosc });
          for (const row of configRows) if (row.bloscVersion) bloscVersion = row.bloscVersion;
          rows.push(...configRows);
        }
      }
    }
    // The zstd sweep: decode speed at other clevels (the main table has clevel 5).
    if (plan.datasets.includes("f8-randwalk")) {
      const raw = new Uint8Array(readFileSync(join(DATA_DIR, "f8-randwalk.bin")));
      const pieces = [];
      for (let off = 0; off < raw.length; off += CHUNK_BYTES) pieces.push(raw.subarray(off, off + CHUNK_BYTES));
      for (const clevel of plan.zstdLevels) {
        rows.push(...(await runConfig({ dataset: "f8-randwalk", codec: "zstd", shuffle: 1, clevel, threadCounts: [1], raw, pieces, typesize: 8, timing, native, ours, pools, NumcodecsBlosc })));
      }
    }
  } finally {
    for (const pool of pools.values()) if (pool.close) await pool.close().catch(() => {});
    await native.close();
    removeScratch();
  }

  const minutes = (performance.now() - started) / 60000;
  const loadAfter = loadavg()[0];
  const machine = describeMachine({ othersBefore, othersDuring: otherCores(cpuAtStart, cpuSnapshot()), loadBefore, loadAfter, cores: cpus().length });
  const header = [
    `# Blosc benchmark (${mode} run)`,
    "",
    `- ${new Date().toISOString()}, ${minutes.toFixed(1)} min; Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? "?"}; ` +
      machine.text,
    `- native: c-blosc ${bloscVersion} via python3-blosc; numcodecs ${numcodecsVersion} (c-blosc in WebAssembly); ` +
      `@fmt/blosc: ${ours.loaded ? ["decompress", "decompressInto", "compress"].filter((k) => ours[k]).join(", ") || "nothing usable" : `not loaded (${ours.error})`}` +
      `${ours.pool ? `, pool ${ours.pool.name}` : ", no worker pool"}`,
    `- our side's malloc: ${malloc}; the native side runs as started`,
    `- 64 MiB per dataset in 256 KiB chunks (256 chunks), clevel ${CLEVEL} (the zstd rows after the main ones: other clevels), automatic blocksize; GB/s = 10^9 uncompressed bytes per second, best of ` +
      `repetitions (stop at ≥ ${timing.minReps} reps and ≥ ${timing.minTime} s, or ${timing.maxReps} reps)`,
    "- dec native = c-blosc into one reused buffer (decompress_ptr); dec ours = decompressInto into one reused buffer " +
      "(with 2 threads: the worker pool); dec ours (alloc) = decompress, a new array per chunk; numcodecs = Blosc.decode",
    "",
  ].join("\n");
  const markdown = `${header}\n${markdownTable(rows)}\n\n${markdownTargets(evaluateTargets(rows))}\n`;
  process.stdout.write(markdown);
  writeFileSync(join(DATA_DIR, "latest.md"), markdown);
  writeFileSync(join(DATA_DIR, "latest.json"), `${JSON.stringify({ mode, timing, machine, rows }, null, 2)}\n`);
  log(`wrote ${join(DATA_DIR, "latest.md")} and latest.json`);
}

/** One (dataset, codec, shuffle): native compresses once; one row per thread count. */
async function runConfig(c) {
  const { dataset, codec, shuffle, threadCounts, raw, typesize, timing, native } = c;
  const clevel = c.clevel ?? CLEVEL;
  const nbytes = raw.length;
  log(`${dataset} ${codec} shuffle=${shuffle}${clevel === CLEVEL ? "" : ` clevel=${clevel}`}`);
  const chunksPath = NATIVE_CHUNKS;

  // Native: compress (its chunks are everyone's decompression input) and decompress.
  const reply = await native.request({
    cmd: "native", dir: DATA_DIR, dataset, cname: codec, shuffle, clevel, threads: threadCounts,
    chunkBytes: CHUNK_BYTES, chunksPath, warmupChunks: WARMUP_CHUNKS, timing,
  });
  if (!reply.ok) {
    log(`  native: ${reply.error}`);
    return threadCounts.map((threads) => ({ dataset, codec, shuffle, clevel, threads, ratioNative: fail(`native: ${reply.error}`) }));
  }
  const chunks = splitChunks(new Uint8Array(readFileSync(chunksPath)));
  const timed = (t) => (t.skipped ? na(t.skipped) : Object.assign(ok(gbps(nbytes, t.best)), { reps: t.reps }));
  const rows = [];
  for (const threads of threadCounts) {
    const n = reply.byThreads[String(threads)];
    const row = {
      dataset, codec, shuffle, clevel, threads, typesize,
      bloscVersion: reply.blosc.split(" ")[0],
      nativeBlocksize: reply.blocksize,
      nativeCbytes: reply.cbytes,
      ratioNative: ok(nbytes / reply.cbytes),
      compNative: timed(n.compress),
      decNative: timed(n.decompressInto),
      decNativeAlloc: timed(n.decompress),
    };
    await runOurs(row, chunks, c);
    const brief = ["decNative", "decNumcodecs", "decOurs", "compNative", "compOurs"]
      .map((k) => `${k}=${row[k]?.value !== undefined ? row[k].value.toFixed(2) : row[k]?.fail ? "FAIL" : "n/a"}`)
      .join(" ");
    log(`  threads=${threads} ${brief}`);
    rows.push(row);
  }
  return rows;
}

/** numcodecs and @fmt/blosc on the native chunks of one row, then our compression. */
async function runOurs(row, chunks, c) {
  const { dataset, codec, shuffle, threads, clevel } = row;
  const { raw, pieces, typesize, timing, native, ours, pools, NumcodecsBlosc } = c;
  const nbytes = raw.length;

  // numcodecs: single-threaded WebAssembly; its decoder reads any Blosc chunk.
  if (threads === 1) {
    const codecImpl = NumcodecsBlosc.fromConfig({ id: "blosc", cname: codec, clevel, shuffle });
    row.decNumcodecs = await timeDecoding("numcodecs", chunks, pieces, nbytes, timing,
      (chunk) => codecImpl.decode(chunk),
      async () => { for (const chunk of chunks) await codecImpl.decode(chunk); },
      WARMUP_CHUNKS);
  } else {
    row.decNumcodecs = na("1 thread only");
  }

  // Ours: decompression.
  if (threads === 1) {
    if (ours.decompressInto) {
      const out = new Uint8Array(CHUNK_BYTES);
      row.decOurs = await timeDecoding("ours decompressInto", chunks, pieces, nbytes, timing,
        (chunk) => {
          out.fill(0); // so that bytes left over from the previous chunk cannot pass for output
          const n = ours.decompressInto(chunk, out);
          if (n !== CHUNK_BYTES) throw new Error(`decompressInto returned ${n}, expected ${CHUNK_BYTES}`);
          return out;
        },
        () => { for (const chunk of chunks) ours.decompressInto(chunk, out); });
    } else {
      row.decOurs = na(NOT_IMPLEMENTED);
    }
    row.decOursAlloc = ours.decompress
      ? await timeDecoding("ours decompress", chunks, pieces, nbytes, timing,
        (chunk) => ours.decompress(chunk),
        () => { for (const chunk of chunks) ours.decompress(chunk); })
      : na(NOT_IMPLEMENTED);
  } else {
    const pool = pools.get(threads);
    if (!pool) row.decOurs = na(NOT_IMPLEMENTED);
    else if (pool.error) row.decOurs = fail(`pool: ${pool.error}`);
    else {
      row.decOurs = await timeDecoding(`ours pool(${threads})`, chunks, pieces, nbytes, timing,
        (chunk) => pool.decompress(chunk),
        () => Promise.all(chunks.map((chunk) => pool.decompress(chunk))));
      if (chunks.some((chunk) => chunk.byteLength === 0)) row.decOurs = fail("pool detached the input chunks");
    }
    row.decOursAlloc = na("pool is in dec ours");
  }

  // Ours: compression, checked by native c-blosc decoding our chunks back to the original.
  let compressAll;
  const options = { typesize, clevel, shuffle, cname: codec };
  if (threads === 1 && ours.compress) {
    compressAll = (subset) => subset.map((piece) => ours.compress(piece, options));
  } else if (threads > 1 && pools.get(threads)?.compress) {
    const pool = pools.get(threads);
    compressAll = (subset) => Promise.all(subset.map((piece) => pool.compress(piece, options)));
  }
  if (!compressAll) {
    row.compOurs = na(NOT_IMPLEMENTED);
    row.ratioOurs = na(NOT_IMPLEMENTED);
    row.sizeOursOverNative = na(NOT_IMPLEMENTED);
  } else {
    try {
      await compressAll(pieces.slice(0, WARMUP_CHUNKS));
      let produced;
      const t = await measure(async () => { produced = await compressAll(pieces); }, timing);
      if (!produced.every((chunk) => chunk instanceof Uint8Array)) throw new Error("compress did not return Uint8Arrays");
      const oursPath = OURS_CHUNKS;
      writeFileSync(oursPath, Buffer.concat(produced));
      const check = await native.request({ cmd: "verify", dir: DATA_DIR, dataset, chunkBytes: CHUNK_BYTES, chunksPath: oursPath });
      if (!check.ok) throw new Error(`native verify: ${check.error}`);
      if (!check.valid) {
        row.compOurs = fail(`c-blosc: ${check.reason}`);
        row.ratioOurs = fail("see compress");
        row.sizeOursOverNative = fail("see compress");
      } else {
        const cbytes = produced.reduce((sum, chunk) => sum + chunk.length, 0);
        row.compOurs = Object.assign(ok(gbps(nbytes, t.best)), { reps: t.reps });
        row.ratioOurs = ok(nbytes / cbytes);
        row.sizeOursOverNative = ok(cbytes / row.nativeCbytes);
        row.oursBlocksize = check.blocksize;
      }
    } catch (error) {
      // An encoder that does not cover a codec yet says so with UNKNOWN_CODEC: a gap, not a wrong result.
      if (error?.code === "UNKNOWN_CODEC") {
        row.compOurs = na(`${NOT_IMPLEMENTED}: ${firstLine(error)}`);
        row.ratioOurs = na(NOT_IMPLEMENTED);
        row.sizeOursOverNative = na(NOT_IMPLEMENTED);
      } else {
        row.compOurs = fail(firstLine(error));
        row.ratioOurs = fail("see compress");
        row.sizeOursOverNative = fail("see compress");
      }
    }
  }
}

main().catch((error) => {
  console.error(`[bench] ${error instanceof Error ? error.stack : error}`);
  process.exit(1);
});
