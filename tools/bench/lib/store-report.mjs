// The store benchmark's tables: our median time beside a reference's (the native floor, the
// numexpr floor, zarrita.js, or our own local read), their quotient, and issue 16's goal with a
// verdict. Cells are the bench's ok/na/fail (lib/report.mjs): a wrong result shows as FAIL,
// never as a time.
import { fail, na, ok } from "./report.mjs";

/** Where the goals come from; printed in the run's header. */
export const GOALS_SOURCE = "issue 16";

/** The references a row can be measured against, as the table names them. */
export const REFERENCES = {
  native: "native floor (c-blosc + numpy)",
  numexpr: "numexpr floor (c-blosc + numexpr)",
  zarrita: "zarrita.js on the zarr v2 copy",
  local: "ours, local files, same child",
  bcolz: "bcolz 1.2.1 (1 thread)",
};

/**
 * The operations timed against a floor, in table order. `goal` is the largest ours ÷ floor issue
 * 16 accepts (the same goal for format 1 and format 2); `reference` names the floor.
 */
export const STORE_OPERATIONS = [
  // Like for like: the floor (and bcolz) never fsync, so the judged row uses a store with
  // `fsync: false`; the default, flushed at each commit, is shown beside it without a goal.
  { key: "create", label: "create the f8 carray on disk from a Float64Array (no fsync, as the floor)", reference: "native", goal: 1.0 },
  { key: "createdurable", label: "the same create, flushed to disk at the commit (the default)", reference: "native", goal: undefined },
  // Informative: two threads against the floor's one, so no goal.
  { key: "createworkers", label: "the same create (no fsync) with `workers: createBloscPool({ threads: 1 })`: one worker thread compresses, this one writes", reference: "native", goal: undefined },
  { key: "readall", label: "open + read the whole carray", reference: "native", goal: 1.0 },
  // Informative, like createworkers: a helper thread (createReadHelpers of @fmt/store/node) takes
  // half of the chunks, so two threads against the floor's one and no goal.
  { key: "readallhelpers", label: "open + `readInto` a `SharedArrayBuffer`, with `helpers: createReadHelpers({ threads: 1 })`: a helper thread reads and decodes half of the chunks", reference: "native", goal: undefined, floorOf: "readall" },
  { key: "sum", label: "sum()", reference: "native", goal: 1.0 },
  { key: "sumhelpers", label: "sum() with one helper thread (the same helpers): it sums half of the chunks", reference: "native", goal: undefined, floorOf: "sum" },
  { key: "column", label: "read one ctable column whole (f64)", reference: "native", goal: 1.0 },
  { key: "get", label: "random single-element gets", reference: "native", goal: 0.5 },
  { key: "take", label: "the same indices in one batched call (take)", reference: "native", goal: 1.0 },
  { key: "where", label: "where(f64 > q90) count", reference: "numexpr", goal: 1.0 },
  { key: "whererows", label: "where(f64 > q90) matching row numbers", reference: "numexpr", goal: 1.0 },
  { key: "where2", label: "where((f64 > q90) & (i32 < 0)) count", reference: "numexpr", goal: 1.0 },
  { key: "where2rows", label: "where((f64 > q90) & (i32 < 0)) matching row numbers", reference: "numexpr", goal: 1.0 },
];

/**
 * Issue 16's comparison with real bcolz 1.2.1 (one thread, the same format-1 files, the same run):
 * the largest ours ÷ bcolz accepted. `take` is judged against bcolz's single gets of the same
 * indices; `where` is the count.
 */
export const BCOLZ_GOALS = { create: 1.0, readall: 0.7, column: 0.7, sum: 0.8, get: 0.5, where: 0.5, take: 0.1 };
/** What bcolz runs for each operation it is measured on (store_bcolz.py); `take` reuses `get`. */
export const BCOLZ_CALLS = {
  create: "bcolz.carray(source, rootdir=…, chunklen=65536, cparams lz4 / 5 / shuffle) + flush()",
  readall: "bcolz.open(…)[:]",
  sum: "carray.sum()",
  column: 'ctable["f64"][:]',
  get: "carray[i] for each index",
  where: "ctable.eval(expression).sum()",
};

/**
 * The operation whose floor (and result check) a row shares: its `floorOf`, else itself (the
 * durable create and the create with workers share the create's).
 */
export function floorOpOf(key) {
  if (key === "createdurable" || key === "createworkers") return "create";
  return STORE_OPERATIONS.find((o) => o.key === key)?.floorOf ?? key;
}

/**
 * The rows with helper threads beside bcolz's one thread, informative (no goal): ours with one
 * helper ÷ the bcolz cell of the operation it helps, from that operation's rounds (n/a when that
 * operation was not run).
 */
export function bcolzHelpedRows(ours, bcolz) {
  return STORE_OPERATIONS.filter((o) => o.floorOf !== undefined && o.floorOf in BCOLZ_GOALS).map(({ key, label, floorOf }) =>
    makeRow({ section: "bcolz", key: `bcolz-${key}`, label: `${label} (two threads; bcolz: ${BCOLZ_CALLS[floorOf]}, one thread, as in its own row above)`, on: "format 1", ours: ours[key], reference: bcolz[floorOf], referenceName: REFERENCES.bcolz, goal: undefined }));
}

/**
 * Our format-1 rows against bcolz 1.2.1: `ours` maps an operation key to our cell, `bcolz` to
 * bcolz's (missing → n/a); `labels` overrides the operations' labels by key.
 */
export function bcolzRows(ours, bcolz, labels = {}) {
  const label = (key) => labels[key] ?? STORE_OPERATIONS.find((o) => o.key === key)?.label ?? key;
  return Object.entries(BCOLZ_GOALS).map(([key, goal]) => {
    const against = key === "take" ? "get" : key;
    const call = key === "take" ? `bcolz's ${BCOLZ_CALLS.get}` : BCOLZ_CALLS[key];
    return makeRow({ section: "bcolz", key: `bcolz-${key}`, label: `${label(key)} (bcolz: ${call})`, on: "format 1", ours: ours[key], reference: bcolz[against], referenceName: REFERENCES.bcolz, goal });
  });
}

/** Goals of the JavaScript peer (ours ÷ zarrita.js) and of the remote stores (remote ÷ local). */
export const PEER_GOALS = { readall: 0.25, get: 0.1 };
/** Remote read-all at ≥ 0.5× the local speed, i.e. at most 2× the local time. */
export const REMOTE_GOAL = 2.0;
/** Scale: per-row time at the largest size at most this × the smallest size's. */
export const SCALE_GOAL = 1.3;
/** Scale: iterBlocks over the largest carray, peak RSS above the baseline below this many MiB. */
export const RSS_GOAL_MIB = 128;

const isNumber = (cell) => cell !== undefined && typeof cell.value === "number" && Number.isFinite(cell.value);

// Quotients such as 1.2 / 1.0 computed from rounded times can land a hair above the bar.
const atMost = (quotient, bar) => quotient <= bar * (1 + 1e-9);

/**
 * ours ÷ reference as a cell and the verdict against `goal` (largest quotient accepted):
 * "MET", "NOT MET" (also when either side FAILed), "NOT EVALUATED" (a side n/a) or "—" (no goal).
 */
export function judge(ours, reference, goal) {
  let ratio;
  if (ours.fail !== undefined || reference.fail !== undefined) ratio = fail(ours.fail !== undefined ? "ours failed" : "reference failed");
  else if (isNumber(ours) && isNumber(reference) && reference.value > 0) ratio = ok(ours.value / reference.value);
  else ratio = na("");
  let verdict = "—";
  if (goal !== undefined) {
    if (ratio.fail !== undefined) verdict = "NOT MET";
    else if (isNumber(ratio)) verdict = atMost(ratio.value, goal) ? "MET" : "NOT MET";
    else verdict = "NOT EVALUATED";
  }
  return { ratio, verdict };
}

/**
 * One table row: `{ section, key, label, on, ours, referenceName, reference, floor, ratio, goal, verdict }`
 * (`floor` is `reference`, kept under its old name for latest.json readers).
 */
export function makeRow({ section, key, label, on, ours, reference, referenceName, goal }) {
  const o = ours ?? na("not run");
  const r = reference ?? na("not run");
  return { section, key, label, on, ours: o, referenceName, reference: r, floor: r, ...judge(o, r, goal), goal };
}

/**
 * The operations against their floors for one format: `measured` maps an operation key to
 * `{ ours, floor }` cells (milliseconds; missing → n/a). `labels` overrides labels by key.
 */
export function storeRows(measured, labels = {}, { section = "v1", on = "format 1" } = {}) {
  return STORE_OPERATIONS.map(({ key, label, goal, reference }) =>
    makeRow({ section, key, label: labels[key] ?? label, on, ours: measured[key]?.ours, reference: measured[key]?.floor, referenceName: REFERENCES[reference], goal }));
}

export const escape = (text) => String(text).replace(/\|/g, "\\|");

export function showCell(cell, format) {
  if (cell.fail !== undefined) return `**FAIL**: ${escape(cell.fail)}`;
  if (cell.na !== undefined) return cell.na ? `n/a (${escape(cell.na)})` : "n/a";
  return format(cell.value);
}

/** Milliseconds with three significant digits (at least one decimal below 100 ms). */
export function formatMs(ms) {
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  return ms.toFixed(2);
}

/** A goal as the table prints it: `≤ 1.0×`, `≤ 0.25×`, `≤ 0.1×`. */
export function formatGoal(goal) {
  if (goal === undefined) return "—";
  return `≤ ${Number.isInteger(goal) ? goal.toFixed(1) : String(goal)}×`;
}

/** A quotient: two decimals, or two significant digits below 0.1 (`0.0042×`). */
export const formatRatio = (v) => `${v >= 0.1 || v === 0 ? v.toFixed(2) : v.toPrecision(2)}×`;

/** The rows of {@link makeRow} as one Markdown table. */
export function storeMarkdownTable(rows) {
  const lines = [
    "| operation | ours on | ours (ms) | reference | reference (ms) | ours ÷ reference | goal | verdict |",
    "|---|---|---:|---|---:|---:|---:|---|",
  ];
  for (const r of rows) {
    lines.push(`| ${escape(r.label)} | ${escape(r.on)} | ${showCell(r.ours, formatMs)} | ${escape(r.referenceName)} | ${showCell(r.reference, formatMs)} | ` +
      `${showCell(r.ratio, formatRatio)} | ${formatGoal(r.goal)} | ${r.verdict} |`);
  }
  return lines.join("\n");
}

/** "MET k of n goals" over rows with a verdict (NOT EVALUATED counts as not met). */
export function goalSummary(rows) {
  const judged = rows.filter((r) => r.verdict !== "—");
  const met = judged.filter((r) => r.verdict === "MET").length;
  const unevaluated = judged.filter((r) => r.verdict === "NOT EVALUATED").length;
  return `${met} of ${judged.length} goals MET${unevaluated ? ` (${unevaluated} NOT EVALUATED)` : ""}`;
}

/**
 * Scale rows: for each operation, `cells` maps a row count to a time cell (ms); the per-row time
 * (ns) at each size, and the verdict on largest ÷ smallest per-row time ≤ {@link SCALE_GOAL}.
 * @param {{label: string, cells: Record<number, object>}[]} operations
 * @param {number[]} sizes row counts, ascending
 */
export function scaleRows(operations, sizes) {
  return operations.map(({ key, label, cells }) => {
    const perRow = sizes.map((n) => {
      const cell = cells[n] ?? na("not run");
      return isNumber(cell) ? ok((cell.value * 1e6) / n) : cell;
    });
    const { ratio, verdict } = judge(perRow.at(-1), perRow[0], SCALE_GOAL);
    return { key, label, sizes, times: sizes.map((n) => cells[n] ?? na("not run")), perRow, ratio, goal: SCALE_GOAL, verdict };
  });
}

const rowsName = (n) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6} M` : n.toLocaleString("en"));

/** The scale rows as a Markdown table. */
export function scaleMarkdownTable(rows) {
  if (rows.length === 0) return "";
  const sizes = rows[0].sizes;
  const head = sizes.map((n) => `${rowsName(n)} rows: ms | ns/row`).join(" | ");
  const lines = [
    `| operation | ${head} | ns/row ${rowsName(sizes.at(-1))} ÷ ${rowsName(sizes[0])} | goal | verdict |`,
    `|---|${sizes.map(() => "---:|---:").join("|")}|---:|---:|---|`,
  ];
  for (const r of rows) {
    const cells = sizes.map((_, i) => `${showCell(r.times[i], formatMs)} | ${showCell(r.perRow[i], (v) => v.toFixed(2))}`).join(" | ");
    lines.push(`| ${escape(r.label)} | ${cells} | ${showCell(r.ratio, formatRatio)} | ${formatGoal(r.goal)} | ${r.verdict} |`);
  }
  return lines.join("\n");
}

/**
 * The memory row: `rss` is `{ rows, baselineMiB, peakMiB, peakSource, sampledPeakMiB }` or a cell with na/fail.
 * Verdict: peak − baseline < {@link RSS_GOAL_MIB}.
 */
export function rssRow(rss) {
  if (rss?.fail !== undefined) return { rss, above: rss, verdict: "NOT MET" };
  if (rss?.na !== undefined || rss === undefined) return { rss: rss ?? na("not run"), above: rss ?? na("not run"), verdict: "NOT EVALUATED" };
  const above = rss.peakMiB - rss.baselineMiB;
  return { rss, above: ok(above), verdict: above < RSS_GOAL_MIB ? "MET" : "NOT MET" };
}

/** The memory row as a Markdown table. */
export function rssMarkdownTable(row, label) {
  const mib = (v) => `${v.toFixed(1)}`;
  const r = row.rss;
  const has = r.baselineMiB !== undefined;
  return [
    "| operation | baseline RSS (MiB) | peak RSS, kernel high-water mark (MiB) | peak RSS, sampled per block (MiB) | peak − baseline (MiB) | goal | verdict |",
    "|---|---:|---:|---:|---:|---:|---|",
    `| ${escape(label)} | ${has ? mib(r.baselineMiB) : showCell(r, mib)} | ${has ? `${mib(r.peakMiB)}${r.peakSource === "maxRSS" ? " (maxRSS)" : ""}` : "—"} | ${has ? mib(r.sampledPeakMiB) : "—"} | ${showCell(row.above, mib)} | < ${RSS_GOAL_MIB} MiB | ${row.verdict} |`,
  ].join("\n");
}

/** Median of a non-empty list of numbers. */
export function median(values) {
  if (values.length === 0) throw new Error("median of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
