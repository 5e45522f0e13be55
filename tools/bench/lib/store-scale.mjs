// The store benchmark's scale section: the same f8 random-walk carray at growing sizes (1 M, 10 M
// and 100 M rows in the full run), our read-all, sum() and iterBlocks() time per row at each, and
// iterBlocks over the largest one in a child process with its peak RSS above the baseline.
// store_native.py writes the datasets once (block by block) into DATA/scale/ with a manifest each.
import { spawn } from "node:child_process";
import { join } from "node:path";

import { fail, na, ok } from "./report.mjs";
import { timed } from "./store-ours.mjs";

const firstLine = (error) => String(error?.message ?? error).split("\n")[0];
const closeTo = (got, facts) => typeof got === "number" && Math.abs(got - facts.sum) <= 1e-9 * Math.max(1, facts.abs_sum);

/** undefined when `values` (or a block of them starting at row `start`) agrees with the sampled values. */
function checkSamples(values, facts, start = 0) {
  for (const [at, expected] of Object.entries(facts.samples)) {
    const i = Number(at) - start;
    if (i >= 0 && i < values.length && !Object.is(values[i], expected)) return `row ${at}: got ${values[i]}, expected ${expected}`;
  }
  return undefined;
}

async function measure(op, runs, check) {
  try {
    const out = await op(runs);
    const problem = check(out.result);
    return problem === undefined ? Object.assign(ok(out.median * 1000), { times: out.times }) : fail(problem);
  } catch (error) {
    return fail(firstLine(error));
  }
}

/** Runs the RSS child over `dir`; resolves to its JSON reply (or throws). */
function rssChild(dir) {
  return new Promise((resolve, reject) => {
    const script = new URL("./store-rss-child.mjs", import.meta.url);
    const child = spawn(process.execPath, ["--expose-gc", script.pathname, dir], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      try {
        const reply = JSON.parse(out.trim().split("\n").at(-1) ?? "");
        if (reply.error !== undefined) reject(new Error(reply.error));
        else resolve(reply);
      } catch {
        reject(new Error(`RSS child exited with ${code} without a reply`));
      }
    });
  });
}

/**
 * Generate (or reuse) the datasets and measure. Returns `{ sizes, operations, rss, facts }` where
 * operations are `{ key, label, cells: { [rows]: cell } }` for scaleRows() and rss is the child's
 * reply (or a na/fail cell).
 * @param {{native: object, lib: object | undefined, root: string, sizes: number[], runs: number, seed: number, log: Function}} options
 */
export async function measureScale({ native, lib, root, sizes, runs, seed, log }) {
  const dir = join(root, "scale");
  const operations = [
    { key: "readall", label: "open + read the whole carray", cells: {} },
    { key: "sum", label: "sum()", cells: {} },
    { key: "iterblocks", label: "iterBlocks() over every chunk (bytes only)", cells: {} },
  ];
  const facts = {};
  for (const rows of sizes) {
    log(`scale: ${rows.toLocaleString("en")}-row carray`);
    const reply = await native.request({ cmd: "gen_scale", dir, rows, seed });
    if (!reply.ok) {
      for (const op of operations) op.cells[rows] = fail(`generating the dataset: ${reply.error}`);
      continue;
    }
    if (!reply.reused) log(`scale: wrote ${reply.path}`);
    facts[rows] = reply;
    if (!lib) {
      for (const op of operations) op.cells[rows] = na("@fmt/store not built");
      continue;
    }
    const fsStore = () => new lib.FileSystemStore(reply.path);
    const { openCarray } = lib.store;
    operations[0].cells[rows] = await measure(
      (n) => timed(async () => (await openCarray(fsStore())).read(), n),
      runs,
      (values) => (values?.length !== rows ? `${values?.length} values, expected ${rows}` : checkSamples(values, reply)),
    );
    const array = await openCarray(fsStore());
    operations[1].cells[rows] = await measure((n) => timed(() => array.sum(), n), runs, (got) => (closeTo(got, reply) ? undefined : `sum ${got}, expected ${reply.sum}`));
    operations[2].cells[rows] = await measure(
      (n) =>
        timed(async () => {
          let total = 0;
          let problem;
          for await (const { start, bytes } of array.iterBlocks()) {
            total += bytes.length;
            if (problem === undefined && bytes.byteOffset % 8 === 0) problem = checkSamples(new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8), reply, start);
          }
          return { total, problem };
        }, n),
      runs,
      (r) => r.problem ?? (r.total === rows * 8 ? undefined : `${r.total} bytes, expected ${rows * 8}`),
    );
  }

  const largest = sizes.at(-1);
  let rss;
  if (!lib) rss = na("@fmt/store not built");
  else if (facts[largest] === undefined) rss = fail("no dataset");
  else {
    log(`scale: iterBlocks over ${largest.toLocaleString("en")} rows in a child process (RSS)`);
    try {
      const reply = await rssChild(facts[largest].path);
      if (reply.rows !== largest || reply.bytes !== largest * 8) rss = fail(`iterated ${reply.bytes} bytes of ${reply.rows} rows, expected ${largest * 8}`);
      else if (!closeTo(reply.sum, facts[largest])) rss = fail(`sum ${reply.sum}, expected ${facts[largest].sum}`);
      else rss = { ...reply, rows: largest };
    } catch (error) {
      rss = fail(firstLine(error));
    }
  }
  return { sizes, operations, rss };
}
