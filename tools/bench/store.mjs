#!/usr/bin/env node
// Store benchmark: every goal of issue 16 measured in one run, each as a ratio with a verdict —
// @fmt/store (format 1 and a format-2 copy) beside the native floor (python3 + numpy +
// python3-blosc, and numexpr for where) on the same files, beside zarrita.js on a zarr v2 copy of
// the same values, over HTTP and S3 beside local files, and at 1 M / 10 M / 100 M rows with the
// memory of iterBlocks; and, where a bcolz 1.2.1 can be imported (store_bcolz.py), our format-1
// operations beside real bcolz, issue 16's second comparison. See README.md, "Store benchmark".
//
// Run through `pnpm bench:store` (which builds @fmt/store first): this file imports the dists.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { cpuSnapshot, describeMachine, LoadWindows, otherCores, otherCoresNow } from "./lib/machine-load.mjs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { TUNABLE, mallocSetting, nativeEnv } from "./lib/malloc.mjs";
import { startNative } from "./lib/native.mjs";
import { fail, na, ok } from "./lib/report.mjs";
import { randomIndices, readTyped, resultChecks, sameFloat64, whereQueries } from "./lib/store-checks.mjs";
import { V2_CHECKSUM, V2_CHECKSUMS, datasetDirs, loadStore, makeV2Copies, ourOperations } from "./lib/store-ours.mjs";
import { zarrDirOf, zarritaOperations } from "./lib/store-peer.mjs";
import { measureRemote } from "./lib/store-remote.mjs";
import {
  BCOLZ_GOALS, GOALS_SOURCE, PEER_GOALS, REFERENCES, bcolzHelpedRows, bcolzRows, floorOpOf, REMOTE_GOAL, STORE_OPERATIONS,
  goalSummary, makeRow, median, rssMarkdownTable, rssRow, scaleMarkdownTable, scaleRows, storeMarkdownTable, storeRows,
} from "./lib/store-report.mjs";
import { measureScale } from "./lib/store-scale.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SCALE_FULL = [1_000_000, 10_000_000, 100_000_000];
const SIZES = {
  full: { carrayRows: 10_000_000, ctableRows: 5_000_000, gets: 10_000, peerGets: 1_000, runs: 5, scale: SCALE_FULL },
  quick: { carrayRows: 300_000, ctableRows: 200_000, gets: 500, peerGets: 200, runs: 1, scale: [10_000, 100_000, 1_000_000] },
};
const SEED = 2026;
const SECTIONS = ["v1", "v2", "peer", "remote", "scale"];

const HELP = `Usage: pnpm bench:store [-- options]   (or: node tools/bench/store.mjs [options] after building @fmt/store)

  --quick         small datasets (300,000-row carray, 200,000-row ctable, 500 gets, scale at
                  10 K / 100 K / 1 M rows), 1 timed run
  --runs=N        timed repetitions per measurement (median reported; default 5, quick 1)
  --only=a,b      operations (${STORE_OPERATIONS.map((o) => o.key).join(", ")})
                  and/or sections (${SECTIONS.join(", ")}); unnamed kinds run whole
  --scale         the scale section at full sizes (1 M / 10 M / 100 M rows, 800 MB generated once)
                  even with --quick (the full run includes it anyway)
  --no-scale      skip the scale section
  --v2-checksum=NAME  the checksum of the format-2 copies and creates (default ${V2_CHECKSUM},
                  the library's default; crc32 through Node's zlib and its worker thread)
  --plain-malloc  do not re-run under GLIBC_TUNABLES=${TUNABLE} (Linux)
  --data=DIR      where the datasets live (default tools/bench/.data/store or .data/store-quick)
  -h, --help      this text

Prints Markdown to stdout (progress to stderr) and writes it to DIR/latest.md, the raw numbers to
DIR/latest.json. Environment: BENCH_PYTHON (default /usr/bin/python3) must have blosc and numpy
(numexpr and zarr for their rows); BENCH_BCOLZ names a bcolz 1.2.1 source tree built in place
(default tools/bench/.data/bcolz-1.2.1, made by tools/bench/build-bcolz.sh) for the bcolz rows.`;

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
      scale: { type: "boolean" },
      "no-scale": { type: "boolean" },
      "plain-malloc": { type: "boolean" },
      "v2-checksum": { type: "string" },
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
  if (values.scale) sizes.scale = SCALE_FULL;
  const keys = STORE_OPERATIONS.map((o) => o.key);
  const named = values.only ? values.only.split(",").map((s) => s.trim()).filter(Boolean) : [];
  for (const k of named) if (!keys.includes(k) && !SECTIONS.includes(k)) throw new Error(`unknown operation or section ${k}`);
  const ops = named.filter((k) => keys.includes(k));
  const sections = named.filter((k) => SECTIONS.includes(k));
  const only = ops.length ? ops : keys;
  const run = new Set(sections.length ? sections : SECTIONS);
  if (values["no-scale"]) run.delete("scale");
  const root = values.data ?? join(HERE, ".data", mode === "quick" ? "store-quick" : "store");
  const checksum = values["v2-checksum"] ?? V2_CHECKSUM;
  if (!V2_CHECKSUMS.includes(checksum)) throw new Error(`unknown --v2-checksum ${checksum} (one of ${V2_CHECKSUMS.join(", ")})`);
  return { mode, sizes, only, run, root, checksum, plainMalloc: values["plain-malloc"] === true };
}

async function measureOurs(op, runs, check = () => undefined) {
  let outcome;
  try {
    outcome = await op(runs);
  } catch (error) {
    return fail(firstLine(error));
  }
  if (outcome.na !== undefined) return na(outcome.na);
  let problem;
  try {
    problem = await check(outcome.result);
  } catch (error) {
    problem = `checking the result: ${firstLine(error)}`;
  }
  return problem === undefined ? Object.assign(ok(outcome.median * 1000), { times: outcome.times }) : fail(problem);
}

async function measureFloor(native, request, check = () => undefined) {
  // A child that died answers with a FAIL cell, not the end of the bench.
  const reply = await native.request({ cmd: "run", ...request }).catch((error) => ({ ok: false, error: firstLine(error) }));
  if (!reply.ok) return fail(reply.error);
  if (reply.na !== undefined) return na(reply.na);
  const problem = check(reply.result);
  // The replies also carry each timed run's minor page faults (kept in latest.json).
  return problem === undefined ? Object.assign(ok(reply.median * 1000), { times: reply.times }, reply.faults ? { faults: reply.faults } : {}) : fail(problem);
}

/**
 * The sides of one operation measured in rounds of one timed run each, warm-ups before the first
 * round only, results checked in the last: a machine that slows down or speeds up during a
 * measurement (writeback of the floor's files, memory compaction, a neighbour on the host) then
 * affects every side alike instead of whichever ran in that stretch. Each side is
 * `(runs, check) => Promise<cell>` for one timed run with `runs = { runs: 1, warmups }`; its cell
 * becomes the median of its runs, or its first failure or n/a.
 */
async function interleaved(sides, runs) {
  const times = sides.map(() => []);
  const faults = sides.map(() => []);
  const final = sides.map(() => undefined);
  for (let round = 0; round < runs; round++) {
    for (let s = 0; s < sides.length; s++) {
      if (final[s] !== undefined) continue;
      // Warm-ups left out in the first round: each side's own default (three on both).
      const spec = round === 0 ? { runs: 1 } : { runs: 1, warmups: 0 };
      const cell = await sides[s](spec, round === runs - 1);
      if (cell.value === undefined) final[s] = cell;
      else {
        times[s].push(...cell.times);
        faults[s].push(...(cell.faults ?? []));
      }
    }
  }
  return final.map((cell, s) => cell ?? Object.assign(ok(median(times[s]) * 1000), { times: times[s] }, faults[s].length ? { faults: faults[s] } : {}));
}

/** "10 M" for whole millions, else "300,000". */
const rowCount = (n) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6} M` : n.toLocaleString("en"));

async function main() {
  const { mode, sizes, only, run, root, checksum, plainMalloc } = parseCli(process.argv.slice(2));
  const malloc = mallocSetting(fileURLToPath(import.meta.url), plainMalloc);
  if (malloc === undefined) return; // this process only waits for its re-run
  const python = process.env.BENCH_PYTHON ?? "/usr/bin/python3";
  mkdirSync(root, { recursive: true });
  const lib = await loadStore();
  if (!lib.loaded) log(`@fmt/store could not be imported (${lib.error}); our cells will read n/a. Was it built?`);

  // Before any child starts: a child's CPU time counts as this process's only once it has exited.
  const othersBefore = await otherCoresNow(1000);
  const cpuAtStart = cpuSnapshot();
  // One window per operation (children that still run counted as ours): a burst of other work
  // shows in its window even when the whole run's average hides it.
  const windows = new LoadWindows();
  const native = startNative(join(HERE, "store_native.py"), python, nativeEnv());
  // Real bcolz in a process of its own (its extension bundles its own c-blosc).
  // BENCH_BCOLZ relative to where the command was typed (pnpm runs this file from tools/bench).
  const bcolzDir = process.env.BENCH_BCOLZ ? resolve(process.env.INIT_CWD ?? process.cwd(), process.env.BENCH_BCOLZ) : join(HERE, ".data", "bcolz-1.2.1");
  const bcolz = run.has("v1") ? startNative(join(HERE, "store_bcolz.py"), python, { ...nativeEnv(), BENCH_BCOLZ: bcolzDir }) : undefined;
  const started = performance.now();
  const loadBefore = loadavg()[0];
  const v1 = {};
  const v2 = {};
  /** Removers of our sides' create directories, run once at the end (see the finally below). */
  const removeCreated = [];
  const rows = [];
  let facts;
  let versions;
  let bcolzInfo;
  const bcolzCells = {};
  let zarrInfo;
  let scale;
  try {
    log(`datasets in ${root} (${sizes.carrayRows.toLocaleString("en")}-row carray, ${sizes.ctableRows.toLocaleString("en")}-row ctable)`);
    facts = await native.request({ cmd: "gen", dir: root, carray_rows: sizes.carrayRows, ctable_rows: sizes.ctableRows, seed: SEED });
    if (!facts.ok) throw new Error(`dataset generation failed: ${facts.error}`);
    log(facts.reused ? "reusing the datasets on disk" : "wrote the datasets");
    versions = await native.request({ cmd: "versions" });
    bcolzInfo = bcolz ? await bcolz.request({ cmd: "versions" }).catch((error) => ({ ok: false, error: firstLine(error) })) : { ok: true, na: "not run (format 1 not measured)" };
    if (!bcolzInfo.ok) bcolzInfo = { ok: true, na: bcolzInfo.error };
    if (bcolzInfo.na) log(`bcolz rows: n/a (${bcolzInfo.na})`);

    const source = readTyped(join(root, "carray-source.f8"));
    const column = readTyped(join(root, "ctable-f64.bin"));
    const i32 = readTyped(join(root, "ctable-i32.bin"), Int32Array);
    const indices = randomIndices(sizes.gets, source.length, SEED);
    const where = whereQueries(facts.q90, column, i32);
    const checks = resultChecks({ root, source, column, indices, where, native });
    const data = { root, source, indices, where };
    const ours1 = lib.loaded ? ourOperations(lib, { ...data, version: 1 }) : undefined;
    if (ours1) removeCreated.push(() => ours1.cleanup());
    let ours2;
    if (lib.loaded && (run.has("v2") || run.has("remote"))) {
      if (typeof lib.store.convert !== "function") log("format 2: convert() missing; v2 rows read n/a");
      else {
        log(`format 2: converting the carray and the ctable (${checksum})`);
        try {
          await makeV2Copies(lib, root, checksum);
          ours2 = ourOperations(lib, { ...data, version: 2, checksum });
          removeCreated.push(() => ours2.cleanup());
        } catch (error) {
          ours2 = { error: `convert() failed: ${firstLine(error)}` };
        }
      }
    }

    // Format 1 and format 2 beside the same floors (one floor measurement per operation).
    // The peer rows reuse our format-1 read-all.
    const needFloor = run.has("v1") || run.has("v2");
    for (const { key, reference } of STORE_OPERATIONS) {
      if (!only.includes(key) || !(needFloor || (run.has("peer") && key === "readall"))) continue;
      const check = checks[floorOpOf(key)];
      const sides = [];
      const names = [];
      if (needFloor) {
        // The durable create and the create with workers have the create's floor (the floor never
        // flushes, and compresses on one thread).
        const request = { op: floorOpOf(key), dir: root };
        if (key === "get" || key === "take") request.indices = indices;
        if (key.startsWith("where")) {
          const query = key.startsWith("where2") ? where.two : where.one;
          Object.assign(request, { expression: query.expression, columns: query.columns });
        }
        names.push(`${reference} floor`);
        sides.push((spec, last) => measureFloor(native, { ...request, ...spec }, last ? check.floor : undefined));
      }
      const oursSide = (ours, unavailable) => {
        if (ours?.error) return () => Promise.resolve(fail(ours.error));
        if (ours === undefined) return () => Promise.resolve(na(unavailable));
        return (spec, last) => measureOurs(ours[key], spec, last ? check.ours : undefined);
      };
      const v1Wanted = run.has("v1") || (run.has("peer") && key === "readall");
      if (v1Wanted) {
        names.push("ours, format 1");
        sides.push(oursSide(ours1, "@fmt/store not built"));
      }
      if (run.has("v2")) {
        names.push("ours, format 2");
        sides.push(oursSide(ours2, lib.loaded ? "convert() missing" : "@fmt/store not built"));
      }
      // bcolz takes its turn in the same rounds (take is judged against its gets).
      const withBcolz = run.has("v1") && key in BCOLZ_GOALS && key !== "take";
      if (withBcolz && bcolzInfo.na) bcolzCells[key] = na("bcolz unavailable: see the header");
      else if (withBcolz) {
        names.push("bcolz 1.2.1");
        const request = { op: key, dir: root, ...(key === "get" ? { indices } : {}), ...(key === "where" ? { expression: where.one.expression } : {}) };
        sides.push((spec, last) => measureFloor(bcolz, { ...request, ...spec }, last ? check.floor : undefined));
      }
      log(`${key}: ${names.join(", ")}, ${sizes.runs} interleaved rounds`);
      const cells = await windows.around(key, () => interleaved(sides, sizes.runs));
      const floor = needFloor ? cells.shift() : na("not run");
      v1[key] = { floor };
      v2[key] = { floor };
      if (v1Wanted) v1[key].ours = cells.shift();
      if (run.has("v2")) v2[key].ours = cells.shift();
      if (withBcolz && !bcolzInfo.na) bcolzCells[key] = cells.shift();
    }
    // Our take is judged against bcolz's gets, which only a run with `get` measures.
    if (only.includes("take") && !only.includes("get") && bcolzCells.get === undefined) bcolzCells.get = na("bcolz's gets not measured: add get to --only");

    const labels = {
      create: `create the ${rowCount(sizes.carrayRows)}-row f8 carray on disk from a Float64Array (no fsync, as the floor)`,
      get: `${sizes.gets.toLocaleString("en")} random single-element gets`,
      take: `the same ${sizes.gets.toLocaleString("en")} indices in one batched call (take)`,
    };
    const keep = (list) => list.filter((r) => only.includes(r.key));
    if (run.has("v1")) rows.push(...keep(storeRows(v1, labels, { section: "v1", on: "format 1" })));
    if (run.has("v2")) rows.push(...keep(storeRows(v2, labels, { section: "v2", on: `format 2 (${checksum})` })));
    if (run.has("v1")) {
      const ours = Object.fromEntries(Object.keys(BCOLZ_GOALS).map((k) => [k, v1[k]?.ours]));
      rows.push(...bcolzRows(ours, bcolzCells, labels).filter((r) => only.includes(r.key.slice("bcolz-".length))));
      const helped = Object.fromEntries(STORE_OPERATIONS.filter((o) => o.floorOf !== undefined).map((o) => [o.key, v1[o.key]?.ours]));
      rows.push(...bcolzHelpedRows(helped, bcolzCells).filter((r) => only.includes(r.key.slice("bcolz-".length))));
    }

    // The JavaScript peer: zarrita.js on a zarr v2 copy of the same values.
    if (run.has("peer")) await windows.around("peer", async () => {
      zarrInfo = await native.request({ cmd: "zarr", dir: root });
      const peerGets = indices.slice(0, sizes.peerGets);
      // Every branch below sets them.
      let readallCell;
      let getsCell;
      let oursGets;
      const z = zarrInfo.ok && zarrInfo.na === undefined ? await zarritaOperations(zarrDirOf(root)) : undefined;
      if (!zarrInfo.ok) readallCell = getsCell = fail(`writing the zarr copy: ${zarrInfo.error}`);
      else if (zarrInfo.na !== undefined) readallCell = getsCell = na(zarrInfo.na);
      else if (!z.loaded) readallCell = getsCell = na(z.error);
      else {
        zarrInfo.zarrita = z.version;
        log("peer: zarrita.js read-all");
        readallCell = await measureOurs(z.readall, sizes.runs, (values) => (sameFloat64(values, source) ? undefined : "zarrita's values differ from the source array"));
        log(`peer: zarrita.js ${peerGets.length} gets`);
        getsCell = await measureOurs(z.gets(peerGets), sizes.runs, (values) => (values.every((v, i) => Object.is(v, source[peerGets[i]])) ? undefined : "zarrita's values differ from the source"));
      }
      if (ours1) {
        log(`peer: ours, ${peerGets.length} gets`);
        oursGets = await measureOurs(ours1.getFirst(peerGets.length), sizes.runs, (values) => (values.every((v, i) => Object.is(Number(v), source[peerGets[i]])) ? undefined : "values differ from the source"));
      } else oursGets = na("@fmt/store not built");
      rows.push(
        makeRow({ section: "peer", key: "peer-readall", label: "open + read the whole carray", on: "format 1", ours: v1.readall?.ours, reference: readallCell, referenceName: REFERENCES.zarrita, goal: PEER_GOALS.readall }),
        makeRow({ section: "peer", key: "peer-get", label: `${peerGets.length.toLocaleString("en")} random single-element gets`, on: "format 1", ours: oursGets, reference: getsCell, referenceName: REFERENCES.zarrita, goal: PEER_GOALS.get }),
      );
    });

    // Remote stores: read-all over HTTP and S3 beside local files, in one child process.
    if (run.has("remote")) {
      log("remote: HTTP and S3 read-all (tools/remote-tests/bench/read-remote.ts)");
      const names = [[datasetDirs(root, 1).carray, "format 1"]];
      if (ours2 && !ours2.error) names.push([datasetDirs(root, 2, checksum).carray, `format 2 (${checksum})`]);
      const base = (p) => p.slice(root.length + 1);
      const remote = lib.loaded ? await windows.around("remote", () => measureRemote(root, names.map(([p]) => base(p)), sizes.runs)) : undefined;
      for (const [path, format] of names) {
        const r = remote?.[base(path)] ?? { local: na("@fmt/store not built"), http: na("@fmt/store not built"), s3: na("@fmt/store not built") };
        for (const [kind, name] of [["http", "HTTP (static server)"], ["s3", "S3 (s3rver)"]]) {
          rows.push(makeRow({ section: "remote", key: `remote-${kind}`, label: `open + read the whole carray over ${name}, loopback`, on: format, ours: r[kind], reference: r.local, referenceName: REFERENCES.local, goal: REMOTE_GOAL }));
          // Informative: our client and the server alone, the read's own requests (recorded on its
          // first, untimed run) sent again with nothing decoded, against the same local read.
          rows.push(makeRow({ section: "remote", key: `remote-${kind}-fetch`, label: `fetch what the read asks for over ${name} (the open's, then every file in format 1 or runs of slots in format 2), 16 at a time into reused buffers, no decoding (our client's floor)`, on: format, ours: r[`${kind}Fetch`] ?? na("not measured"), reference: r.local, referenceName: REFERENCES.local, goal: undefined }));
          // Informative: curl, a native client, sending the same requests to the same server.
          rows.push(makeRow({ section: "remote", key: `remote-${kind}-curl`, label: `curl sending the read's requests to ${name}, 16 at a time (a native client's floor, its start included)`, on: format, ours: r[`${kind}Curl`] ?? na("not measured"), reference: r.local, referenceName: REFERENCES.local, goal: undefined }));
        }
      }
    }

    if (run.has("scale")) scale = await windows.around("scale", () => measureScale({ native, lib: lib.loaded ? lib : undefined, root, sizes: sizes.scale, runs: sizes.runs, seed: SEED, log }));
  } finally {
    // The create rows' directories (every side's) go only now, once, whatever happened: removed
    // between rows, their inodes would slow the file creations of the next create row (see
    // bench_child.py's CreatedDirectories).
    for (const remove of removeCreated) remove();
    await native.request({ cmd: "remove_created" }).catch(() => undefined);
    await native.close();
    if (bcolz) {
      await bcolz.request({ cmd: "remove_created" }).catch(() => undefined);
      await bcolz.close();
    }
  }

  const minutes = (performance.now() - started) / 60000;
  const loadAfter = loadavg()[0];
  const machine = describeMachine({ othersBefore, othersDuring: otherCores(cpuAtStart, cpuSnapshot()), busiest: windows.busiest(), loadBefore, loadAfter, cores: cpus().length });
  const header = [
    `# Store benchmark (${mode} run)`,
    "",
    `- goals: ${GOALS_SOURCE} (create, read-all, sum, column read, take ≤ 1.0× the native floor; where ≤ 1.0× the numexpr floor; gets ≤ 0.5×; the same for format 2; ` +
      `against bcolz 1.2.1 (format 1): create ≤ ${BCOLZ_GOALS.create.toFixed(1)}×, read-all ≤ ${BCOLZ_GOALS.readall}×, column ≤ ${BCOLZ_GOALS.column}×, sum ≤ ${BCOLZ_GOALS.sum}×, gets ≤ ${BCOLZ_GOALS.get}×, where count ≤ ${BCOLZ_GOALS.where}×, take ≤ ${BCOLZ_GOALS.take}× its gets; ` +
      `read-all ≤ ${PEER_GOALS.readall}× and gets ≤ ${PEER_GOALS.get}× zarrita.js; HTTP and S3 read-all ≥ 0.5× the local speed; scale linear, iterBlocks RSS bounded)`,
    `- ${new Date().toISOString()}, ${minutes.toFixed(1)} min; Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? "?"}; ` +
      machine.text,
    `- our side's malloc: ${malloc}; the native side runs as started`,
    `- native floor: c-blosc ${versions.blosc ?? "?"} (python-blosc ${versions.python_blosc ?? "?"}, 1 thread) + numpy ${versions.numpy ?? "?"} under ${python}; ` +
      `${versions.numexpr ? `numexpr ${versions.numexpr} (1 thread)` : "numexpr missing"}; ${versions.zarr ? `zarr ${versions.zarr} writes the zarr copy` : "zarr missing"}; ` +
      `zarrita.js ${zarrInfo?.zarrita ?? "not run"}`,
    `- bcolz: ${bcolzInfo?.na ? `n/a (${bcolzInfo.na})` : `bcolz ${bcolzInfo?.bcolz} from ${bcolzDir} with its own c-blosc ${bcolzInfo?.blosc} (1 thread), ` +
      `${bcolzInfo?.numexpr ? `numexpr ${bcolzInfo.numexpr} (${bcolzInfo.numexprThreads ?? "?"} thread${bcolzInfo.numexprThreads === 1 ? "" : "s"})` : "no numexpr"}, numpy ${bcolzInfo?.numpy} under ${python}, ` +
      `glibc's malloc thresholds ${bcolzInfo?.mallocFixed ? "fixed at 32 / 64 MiB (see store_bcolz.py)" : "as started"}; in a process of its own, taking its turn in the same rounds`}`,
    `- datasets (bcolz 1.2.1 layout and defaults: lz4, clevel 5, shuffle, written by c-blosc): ` +
      `${sizes.carrayRows.toLocaleString("en")}-row f8 random walk, chunklen 65536; ` +
      `${sizes.ctableRows.toLocaleString("en")}-row ctable i64/f64/i32, chunklens ${facts?.chunklens ? Object.values(facts.chunklens).join("/") : "?"}; q90 = ${facts?.q90 ?? "?"}; ` +
      `format 2 = convert() copies with ${checksum} checksums`,
    `- median of ${sizes.runs} timed run${sizes.runs === 1 ? "" : "s"} per side; the floor, our formats and bcolz take turns, one run each per round, after three untimed warm-up runs per side before the first round (files in the page cache)`,
    "",
  ].join("\n");

  const parts = [header, "## Goals of issue 16, side by side", "", storeMarkdownTable(rows), "", `${goalSummary(rows)} in this table.`, ""];
  const formatRows = ["create", "readall", "get", "sum"].filter((k) => v1[k]?.ours && v2[k]?.ours);
  if (formatRows.length) {
    parts.push("## Format 2 next to format 1 (issue 15), from the same measurements", "", "| operation | v1 ms | v2 ms | v2 ÷ v1 | goal |", "|---|---:|---:|---:|---|");
    for (const key of formatRows) {
      const a = v1[key].ours.value;
      const b = v2[key].ours.value;
      const ratio = typeof a === "number" && typeof b === "number" && a > 0 ? b / a : undefined;
      const goal = key === "create" || key === "readall" ? 1.1 : undefined;
      const show = (cell) => (typeof cell.value === "number" ? cell.value.toFixed(1) : (cell.fail ?? cell.na ?? "?"));
      const verdict = goal === undefined ? "—" : ratio === undefined ? `≤ ${goal}×: NOT EVALUATED` : `≤ ${goal}×: ${ratio <= goal ? "MET" : "NOT MET"}`;
      const label = rows.find((r) => r.section === "v1" && r.key === key)?.label ?? key;
      parts.push(`| ${label} | ${show(v1[key].ours)} | ${show(v2[key].ours)} | ${ratio === undefined ? "—" : `${ratio.toFixed(2)}×`} | ${verdict} |`);
    }
    parts.push("");
  }
  let scaleTable;
  let rss;
  if (scale) {
    scaleTable = scaleRows(scale.operations, scale.sizes);
    rss = rssRow(scale.rss);
    parts.push("## Scale: our time per row at each size (format 1, f8 random walk, chunklen 65536)", "", scaleMarkdownTable(scaleTable), "");
    parts.push(rssMarkdownTable(rss, `iterBlocks() over the ${rowCount(scale.sizes.at(-1))}-row carray, in a child process`), "");
  }
  if (scale) parts.push(`Overall: ${goalSummary([...rows, ...scaleTable, rss])} (the goals table, the scale rows and the memory row).`, "");
  const markdown = parts.join("\n");
  process.stdout.write(markdown);
  writeFileSync(join(root, "latest.md"), markdown);
  writeFileSync(join(root, "latest.json"), `${JSON.stringify({ mode, sizes, malloc, machine: { ...machine, windows: windows.list }, facts, versions, bcolz: bcolzInfo, zarr: zarrInfo, rows, scale: scaleTable, rss }, null, 2)}\n`);
  log(`wrote ${join(root, "latest.md")} and latest.json`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
