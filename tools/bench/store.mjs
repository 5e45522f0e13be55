#!/usr/bin/env node
// Store benchmark: the operations of issue 7 through @fmt/store on bcolz directories, beside a
// native floor (python3 + numpy + python3-blosc doing the same work on the same files) measured
// in the same run. See README.md, "Store benchmark".
//
// Run through `pnpm bench:store` (which builds @fmt/store first): this file imports the dists.
import { readFileSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { startNative } from "./lib/native.mjs";
import { fail, na, ok } from "./lib/report.mjs";
import { formatOperations, loadStore, ourOperations } from "./lib/store-ours.mjs";
import { STORE_OPERATIONS, storeMarkdownTable, storeRows } from "./lib/store-report.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SIZES = {
  full: { carrayRows: 10_000_000, ctableRows: 5_000_000, gets: 10_000, runs: 5 },
  quick: { carrayRows: 300_000, ctableRows: 200_000, gets: 500, runs: 1 },
};
const SEED = 2026;

const HELP = `Usage: pnpm bench:store [-- options]   (or: node tools/bench/store.mjs [options] after building @fmt/store)

  --quick        small datasets (300,000-row carray, 200,000-row ctable, 500 gets), 1 timed run
  --runs=N       timed repetitions per operation and side (median reported; default 5, quick 1)
  --only=a,b     run only these operations (${STORE_OPERATIONS.map((o) => o.key).join(", ")})
  --data=DIR     where the datasets live (default tools/bench/.data/store or .data/store-quick)
  -h, --help     this text

Prints a Markdown table to stdout (progress to stderr) and writes it to DIR/latest.md, the raw
times to DIR/latest.json. Environment: BENCH_PYTHON (default /usr/bin/python3) must have blosc
and numpy.`;

const log = (...parts) => console.error("[bench:store]", ...parts);
const firstLine = (error) => String(error?.message ?? error).split("\n")[0];

function parseCli(argv) {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== "--"),
    options: {
      quick: { type: "boolean" },
      runs: { type: "string" },
      only: { type: "string" },
      data: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const mode = values.quick ? "quick" : "full";
  const sizes = { ...SIZES[mode] };
  if (values.runs !== undefined) {
    sizes.runs = Number(values.runs);
    if (!Number.isInteger(sizes.runs) || sizes.runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
  }
  const keys = STORE_OPERATIONS.map((o) => o.key);
  const only = values.only ? values.only.split(",").map((s) => s.trim()) : keys;
  for (const k of only) if (!keys.includes(k)) throw new Error(`unknown operation ${k}`);
  const root = values.data ?? join(HERE, ".data", mode === "quick" ? "store-quick" : "store");
  return { mode, sizes, only, root };
}

/** Deterministic indices in [0, n): a small xorshift, so every run and both sides use the same ones. */
function randomIndices(count, n, seed) {
  let state = seed >>> 0 || 1;
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = Math.floor(((state >>> 0) / 2 ** 32) * n);
  }
  return out;
}

function readFloat64(path) {
  const bytes = readFileSync(path);
  // A fresh, aligned buffer: Buffers may sit at any offset of a shared pool.
  const out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

const sameFloat64 = (a, b) => a instanceof Float64Array && a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Σ values with compensation, and Σ |values|: the reference a sum may differ from by rounding only. */
function referenceSum(values) {
  let sum = 0;
  let carry = 0;
  let magnitude = 0;
  for (const v of values) {
    const y = v - carry;
    const t = sum + y;
    carry = t - sum - y;
    sum = t;
    magnitude += Math.abs(v);
  }
  return { sum, magnitude };
}

const closeSum = (got, ref) => typeof got === "number" && Math.abs(got - ref.sum) <= 1e-9 * Math.max(1, ref.magnitude);

/**
 * Checks of each operation's result, for ours and the floor. Each returns undefined when right,
 * else the reason the cell reads FAIL. The expected values come from the source arrays numpy
 * wrote, never from the code under test.
 */
function resultChecks(ctx) {
  const { source, column, indices, whereCount, native } = ctx;
  const sourceRef = referenceSum(source);
  const expectedAt = indices.map((i) => source[i]);
  const sameList = (got) => {
    if (got === undefined || got.length !== expectedAt.length) return `${got?.length ?? "no"} values for ${expectedAt.length} indices`;
    for (let i = 0; i < expectedAt.length; i++) {
      if (!Object.is(Number(got[i]), expectedAt[i])) return `index ${indices[i]}: got ${got[i]}, expected ${expectedAt[i]}`;
    }
    return undefined;
  };
  return {
    create: {
      ours: async () => {
        const reply = await native.request({ cmd: "check_dir", dir: ctx.root, path: ctx.createdDir });
        if (!reply.ok) return reply.error;
        return reply.equal ? undefined : `c-blosc + numpy read back something else: ${reply.reason}`;
      },
      floor: (r) => (r.roundTrips ? undefined : "native create did not round-trip"),
    },
    readall: {
      ours: (values) => (sameFloat64(values, source) ? undefined : "values differ from the source array"),
      floor: (r) => (r.first === source[0] && r.last === source[source.length - 1] ? undefined : "first/last values differ"),
    },
    sum: {
      ours: (got) => (closeSum(got, sourceRef) ? undefined : `sum ${got}, expected ${sourceRef.sum}`),
      floor: (r) => (closeSum(r.sum, sourceRef) ? undefined : `sum ${r.sum}, expected ${sourceRef.sum}`),
    },
    column: {
      ours: (values) => (sameFloat64(values, column) ? undefined : "values differ from the column's source"),
      floor: (r) => (r.first === column[0] && r.last === column[column.length - 1] ? undefined : "first/last values differ"),
    },
    get: { ours: (values) => sameList(values), floor: (r) => sameList(r.values) },
    take: { ours: (values) => sameList(values === undefined ? undefined : Array.from(values)), floor: (r) => sameList(r.values) },
    where: {
      ours: (count) => (count === whereCount ? undefined : `count ${count}, expected ${whereCount}`),
      floor: (r) => (r.count === whereCount ? undefined : `count ${r.count}, expected ${whereCount}`),
    },
  };
}

async function measureOurs(op, runs, check) {
  let outcome;
  try {
    outcome = await op(runs);
  } catch (error) {
    return fail(firstLine(error));
  }
  if (outcome.na !== undefined) return na(outcome.na);
  const problem = await check(outcome.result);
  return problem === undefined ? Object.assign(ok(outcome.median * 1000), { times: outcome.times }) : fail(problem);
}

async function measureFloor(native, request, check) {
  const reply = await native.request({ cmd: "run", ...request });
  if (!reply.ok) return fail(reply.error);
  const problem = check(reply.result);
  return problem === undefined ? Object.assign(ok(reply.median * 1000), { times: reply.times }) : fail(problem);
}

async function main() {
  const { mode, sizes, only, root } = parseCli(process.argv.slice(2));
  const python = process.env.BENCH_PYTHON ?? "/usr/bin/python3";
  mkdirSync(root, { recursive: true });
  const lib = await loadStore();
  if (!lib.loaded) log(`@fmt/store could not be imported (${lib.error}); our cells will read n/a. Was it built?`);

  const native = startNative(join(HERE, "store_native.py"), python);
  const started = performance.now();
  const loadBefore = loadavg()[0];
  const measured = {};
  let facts;
  try {
    log(`datasets in ${root} (${sizes.carrayRows.toLocaleString("en")}-row carray, ${sizes.ctableRows.toLocaleString("en")}-row ctable)`);
    facts = await native.request({ cmd: "gen", dir: root, carray_rows: sizes.carrayRows, ctable_rows: sizes.ctableRows, seed: SEED });
    if (!facts.ok) throw new Error(`dataset generation failed: ${facts.error}`);
    log(facts.reused ? "reusing the datasets on disk" : "wrote the datasets");

    const source = readFloat64(join(root, "carray-source.f8"));
    const column = readFloat64(join(root, "ctable-f64.bin"));
    const indices = randomIndices(sizes.gets, source.length, SEED);
    const q = facts.q90;
    let whereCount = 0;
    for (const v of column) if (v > Number(q)) whereCount++;
    const ours = lib.loaded ? ourOperations(lib, { root, source, indices, q }) : undefined;
    const checks = resultChecks({ root, createdDir: ours?.createdDir, source, column, indices, whereCount, native });

    for (const { key } of STORE_OPERATIONS) {
      if (!only.includes(key)) continue;
      log(`${key}: native floor`);
      const request = { op: key, dir: root, runs: sizes.runs };
      if (key === "get" || key === "take") request.indices = indices;
      if (key === "where") request.q = q;
      const floor = await measureFloor(native, request, checks[key].floor);
      log(`${key}: ours`);
      const oursCell = ours ? await measureOurs(ours[key], sizes.runs, checks[key].ours) : na("@fmt/store not built");
      measured[key] = { ours: oursCell, floor };
    }
    if (ours) rmSync(ours.createdDir, { recursive: true, force: true });
  } finally {
    await native.close();
  }

  // Format 2 next to format 1 (both ours), checked against the same source values.
  const formatRows = [];
  if (lib.loaded && typeof lib.store.convert === "function") {
    const source = readFloat64(join(root, "carray-source.f8"));
    const indices = randomIndices(sizes.gets, source.length, SEED);
    const versions = formatOperations(lib, { root, source, indices });
    log("format 2: converting the carray (crc32)");
    await versions.ensureV2();
    const refSum = referenceSum(source);
    const checkOf = {
      create: () => undefined,
      readall: (values) => (sameFloat64(values, source) ? undefined : "values differ from the source array"),
      get: (values) => (values.every((v, i) => Object.is(Number(v), source[indices[i]])) ? undefined : "wrong values"),
      sum: (got) => (closeSum(got, refSum) ? undefined : `sum ${got}, expected ${refSum.sum}`),
    };
    for (const op of versions.ops) {
      if (!only.includes(op.key)) continue;
      const cells = {};
      for (const version of [1, 2]) {
        log(`${op.key}: format ${version}`);
        cells[version] = await measureOurs(op.run(version), sizes.runs, checkOf[op.key]);
      }
      formatRows.push({ label: op.label, goal: op.goal, v1: cells[1], v2: cells[2] });
    }
    versions.cleanup();
  }

  const labels = {
    create: `create the ${(sizes.carrayRows / 1e6).toLocaleString("en")} M-row f8 carray on disk from a Float64Array`,
    get: `${sizes.gets.toLocaleString("en")} random single-element gets`,
    take: `the same ${sizes.gets.toLocaleString("en")} indices in one batched call (take)`,
  };
  const rows = storeRows(measured, labels);
  const minutes = (performance.now() - started) / 60000;
  const loadAfter = loadavg()[0];
  const busy = loadBefore > cpus().length / 2 || loadAfter > cpus().length;
  const header = [
    `# Store benchmark (${mode} run)`,
    "",
    `- ${new Date().toISOString()}, ${minutes.toFixed(1)} min; Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? "?"}; ` +
      `1-min load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after` + (busy ? " (**busy machine: numbers are not trustworthy**)" : ""),
    `- native floor: c-blosc ${facts?.blosc ?? "?"} (python-blosc ${facts?.python_blosc ?? "?"}, 1 thread) + numpy ${facts?.numpy ?? "?"} under ${python}`,
    `- datasets (bcolz 1.2.1 layout and defaults: lz4, clevel 5, shuffle, written by c-blosc): ` +
      `${sizes.carrayRows.toLocaleString("en")}-row f8 random walk, chunklen 65536; ` +
      `${sizes.ctableRows.toLocaleString("en")}-row ctable i64/f64/i32, chunklens ${facts?.chunklens ? Object.values(facts.chunklens).join("/") : "?"}; q90 = ${facts?.q90 ?? "?"}`,
    `- median of ${sizes.runs} timed run${sizes.runs === 1 ? "" : "s"} after one untimed warm-up run per operation and side (files in the page cache)`,
    "",
  ].join("\n");
  const formatTable = formatRows.length === 0 ? "" : [
    "",
    "## Format 2 (superchunks, crc32 verified on read) next to format 1, both ours, same run",
    "",
    "| operation | v1 ms | v2 ms | v2 ÷ v1 | goal |",
    "|---|---:|---:|---:|---|",
    ...formatRows.map((r) => {
      const v1 = r.v1.value;
      const v2 = r.v2.value;
      const ratio = typeof v1 === "number" && typeof v2 === "number" && v1 > 0 ? v2 / v1 : undefined;
      const show = (cell) => (typeof cell.value === "number" ? cell.value.toFixed(1) : (cell.fail ?? cell.na ?? "?"));
      const goal = r.goal === undefined ? "—" : ratio === undefined ? `≤ ${r.goal}×: NOT EVALUATED` : `≤ ${r.goal}×: ${ratio <= r.goal ? "MET" : "NOT MET"}`;
      return `| ${r.label} | ${show(r.v1)} | ${show(r.v2)} | ${ratio === undefined ? "—" : `${ratio.toFixed(2)}×`} | ${goal} |`;
    }),
    "",
  ].join("\n");
  const markdown = `${header}\n${storeMarkdownTable(rows)}\n${formatTable}`;
  process.stdout.write(markdown);
  writeFileSync(join(root, "latest.md"), markdown);
  writeFileSync(join(root, "latest.json"), `${JSON.stringify({ mode, sizes, facts, rows }, null, 2)}\n`);
  log(`wrote ${join(root, "latest.md")} and latest.json`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
