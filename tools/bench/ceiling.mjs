#!/usr/bin/env node
// The native ceiling of issue 16's read goals on this machine, side by side in one run: real
// bcolz 1.2.1 (one c-blosc thread, as the bench's bcolz rows), c-blosc from C with one thread and
// with two (native_ceiling.c, each thread reading and decoding half of the chunk files), and ours
// (@fmt/store, as `pnpm bench:store` runs it), taking turns one run each per round on the store
// bench's datasets. Prints each side's median and its ratio to bcolz next to the goal.
//
//   node tools/bench/ceiling.mjs [--runs=15] [--only=readall,column,sum] [--sides=bcolz,c1,c2,ours] [--plain-malloc]
//
// --sides picks the sides that take turns (c1, c2: C on one and two threads), to see how they
// disturb each other.
//
// Needs `pnpm bench:store`'s datasets (tools/bench/.data/store), the bcolz build of
// tools/bench/build-bcolz.sh, the built packages, gcc and the system's libblosc (python3-blosc's).
// README.md, "Issue 16, step by step (2026-12-02, early morning session)", says what it showed.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { mallocSetting, nativeEnv } from "./lib/malloc.mjs";
import { startNative } from "./lib/native.mjs";
import { buildNativeCeiling, resultHash, startNativeCeiling } from "./lib/native-ceiling.mjs";
import { closeSum, referenceSum } from "./lib/store-checks.mjs";
import { loadStore, ourOperations } from "./lib/store-ours.mjs";
import { median } from "./lib/store-report.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, ".data", "store");
/** Issue 16's goals against bcolz's time. */
const GOALS = { readall: 0.7, column: 0.7, sum: 0.8 };

/** The command line's settings; `parseArgs` refuses an argument it does not know. */
function settings() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { runs: { type: "string", default: "15" }, only: { type: "string", default: "readall,column,sum" }, sides: { type: "string", default: "bcolz,c1,c2,ours" }, "plain-malloc": { type: "boolean", default: false } },
  });
  const runs = Number(values.runs);
  const only = values.only.split(",");
  /** The sides that take turns (all four by default). */
  const sides = values.sides.split(",");
  for (const op of only) if (!(op in GOALS)) throw new Error(`--only: unknown operation ${op} (readall, column, sum)`);
  for (const side of sides) if (!["bcolz", "c1", "c2", "ours"].includes(side)) throw new Error(`--sides: unknown side ${side} (bcolz, c1, c2, ours)`);
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs wants a positive integer");
  return { RUNS: runs, ONLY: only, SIDES: sides, plainMalloc: values["plain-malloc"] };
}

async function main() {
  const { RUNS, ONLY, SIDES, plainMalloc } = settings();
  const malloc = mallocSetting(fileURLToPath(import.meta.url), plainMalloc);
  if (malloc === undefined) return;
  if (!existsSync(join(ROOT, "carray.bcolz"))) throw new Error(`no datasets in ${ROOT}: run \`node tools/bench/store.mjs --runs=1 --no-scale --only=readall\` first`);
  const lib = await loadStore();
  if (!lib.loaded) throw new Error(`@fmt/store could not be imported (${lib.error}); build the packages first`);
  const binary = buildNativeCeiling(join(HERE, ".data", "native-ceiling"));
  // BENCH_BCOLZ as store.mjs reads it: relative to where the command was typed.
  const bcolzDir = process.env.BENCH_BCOLZ ? resolve(process.env.INIT_CWD ?? process.cwd(), process.env.BENCH_BCOLZ) : join(HERE, ".data", "bcolz-1.2.1");
  const ceiling = startNativeCeiling(binary, nativeEnv());
  const bcolz = startNative(join(HERE, "store_bcolz.py"), process.env.BENCH_PYTHON ?? "/usr/bin/python3", { ...nativeEnv(), BENCH_BCOLZ: bcolzDir });
  try {
    const ours = ourOperations(lib, { root: ROOT, source: new Float64Array(0), indices: [], where: { one: { expression: "" }, two: { expression: "" } } });
    const dirs = { readall: join(ROOT, "carray.bcolz"), sum: join(ROOT, "carray.bcolz"), column: join(ROOT, "ctable.bcolz", "f64") };
    const info = await bcolz.request({ cmd: "versions" });
    if (!info.ok || info.na) throw new Error(`bcolz 1.2.1 unavailable: ${info.na ?? info.error}`);
    console.log(`native ceiling: ${RUNS} rounds per operation, the sides taking turns, one run each per round; our side under ${malloc}`);
    console.log(`bcolz ${info.bcolz} with its own c-blosc ${info.blosc} (1 thread); C: the system's c-blosc ${await ceiling.version()}`);
    console.log("");
    console.log("| operation | bcolz 1.2.1 (ms) | C, 1 thread | C, 2 threads | ours | goal (÷ bcolz) | C 1 thread ÷ bcolz | C 2 threads ÷ bcolz | ours ÷ bcolz |");
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const op of ONLY) {
      const nativeOp = op === "sum" ? "sum" : "readall";
      // Each side answers its time, the sum of what it read (checked against the values' sum, as
      // the bench checks its sides) and, for a read-all, the hash of the result in row order and
      // the number of values (C and ours; bcolz's child reports the sum only; C also counts the
      // values its sum added).
      const reference = referenceSum((await ours[op === "sum" ? "readall" : op]({ runs: 1, warmups: 0 })).result);
      const all = {
        bcolz: async (warmups) => {
          const reply = await bcolz.request({ cmd: "run", op, dir: ROOT, runs: 1, warmups });
          if (!reply.ok || reply.na) throw new Error(`bcolz ${op}: ${reply.na ?? reply.error}`);
          return { seconds: reply.times[0], check: reply.result.sum };
        },
        c1: () => ceiling.run(nativeOp, dirs[op], 1),
        c2: () => ceiling.run(nativeOp, dirs[op], 2),
        ours: async (warmups) => {
          const out = await ours[op]({ runs: 1, warmups });
          return op === "sum" ? { seconds: out.times[0], check: out.result } : { seconds: out.times[0], check: referenceSum(out.result).sum, hash: resultHash(out.result), count: out.result.length };
        },
      };
      const sides = Object.fromEntries(SIDES.map((name) => [name, all[name]]));
      const times = Object.fromEntries(SIDES.map((name) => [name, []]));
      let hash;
      let count;
      // Warm-ups before the first round: three runs of each C side; bcolz and ours run three
      // untimed inside their first call, then one timed that is not kept.
      for (const [name, side] of Object.entries(sides)) for (let w = 0; w < (name === "c1" || name === "c2" ? 3 : 1); w++) await side(3);
      for (let round = 0; round < RUNS; round++) {
        for (const [name, side] of Object.entries(sides)) {
          const got = await side(0);
          if (!closeSum(got.check, reference)) throw new Error(`${op}: ${name} read values summing to ${got.check}, not ${reference.sum}`);
          if (got.hash !== undefined) {
            hash ??= got.hash;
            if (got.hash !== hash) throw new Error(`${op}: ${name}'s result differs from another side's (hash ${got.hash}, not ${hash})`);
          }
          if (got.count !== undefined) {
            count ??= got.count;
            if (got.count !== count) throw new Error(`${op}: ${name} read ${got.count} values, another side ${count}`);
          }
          times[name].push(got.seconds * 1000);
        }
      }
      const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
      const ms = (k) => (m[k] === undefined ? "—" : m[k].toFixed(1));
      const ratio = (k) => (m[k] === undefined || m.bcolz === undefined ? "—" : (m[k] / m.bcolz).toFixed(2));
      console.log(`| ${op} | ${ms("bcolz")} | ${ms("c1")} | ${ms("c2")} | ${ms("ours")} | ≤ ${GOALS[op]} | ${ratio("c1")} | ${ratio("c2")} | ${ratio("ours")} |`);
    }
  } finally {
    await ceiling.close();
    await bcolz.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
