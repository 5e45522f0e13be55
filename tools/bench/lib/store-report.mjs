// The store benchmark's table: our median time beside the native floor's, their quotient, and
// the goal where it has one. Cells are the bench's ok/na/fail (lib/report.mjs): a wrong
// result shows as FAIL, never as a time.
import { fail, na, ok } from "./report.mjs";

/**
 * The operations of issue 7's table, in its order. `goal` is the largest ours ÷ floor the issue
 * accepts; operations without one are measured and shown, not judged.
 */
export const STORE_OPERATIONS = [
  { key: "create", label: "create the f8 carray on disk from a Float64Array", goal: 1.2 },
  { key: "readall", label: "open + read the whole carray", goal: 1.2 },
  { key: "sum", label: "sum()", goal: 1.2 },
  { key: "column", label: "read one ctable column whole (f64)", goal: 1.2 },
  { key: "get", label: "random single-element gets", goal: undefined },
  { key: "take", label: "the same indices in one batched call (take)", goal: undefined },
  { key: "where", label: 'where("f64 > q90") count on the ctable', goal: undefined },
];

const isNumber = (cell) => cell !== undefined && typeof cell.value === "number" && Number.isFinite(cell.value);

// Quotients such as 1.2 / 1.0 computed from rounded times can land a hair above the bar.
const atMost = (quotient, bar) => quotient <= bar * (1 + 1e-9);

/**
 * One row per operation: `{ key, label, ours, floor, ratio, goal, verdict }`, where ours/floor/
 * ratio are cells and verdict is "MET", "NOT MET", "NOT EVALUATED" or "—" (no goal).
 * `measured` maps an operation key to `{ ours, floor }` cells (milliseconds); missing → n/a.
 */
export function storeRows(measured, labels = {}) {
  return STORE_OPERATIONS.map(({ key, label, goal }) => {
    const ours = measured[key]?.ours ?? na("not run");
    const floor = measured[key]?.floor ?? na("not run");
    let ratio;
    if (ours.fail !== undefined || floor.fail !== undefined) ratio = fail(ours.fail !== undefined ? "ours failed" : "floor failed");
    else if (isNumber(ours) && isNumber(floor) && floor.value > 0) ratio = ok(ours.value / floor.value);
    else ratio = na("");
    let verdict = "—";
    if (goal !== undefined) {
      if (ratio.fail !== undefined) verdict = "NOT MET";
      else if (isNumber(ratio)) verdict = atMost(ratio.value, goal) ? "MET" : "NOT MET";
      else verdict = "NOT EVALUATED";
    }
    return { key, label: labels[key] ?? label, ours, floor, ratio, goal, verdict };
  });
}

const escape = (text) => String(text).replace(/\|/g, "\\|");

function showCell(cell, format) {
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

/** The rows of {@link storeRows} as a Markdown table. */
export function storeMarkdownTable(rows) {
  const lines = [
    "| operation | ours (ms) | native floor (ms) | ours ÷ floor | goal | verdict |",
    "|---|---:|---:|---:|---:|---|",
  ];
  for (const r of rows) {
    const ratio = showCell(r.ratio, (v) => `${v.toFixed(2)}×`);
    const goal = r.goal === undefined ? "—" : `≤ ${r.goal.toFixed(1)}×`;
    lines.push(`| ${escape(r.label)} | ${showCell(r.ours, formatMs)} | ${showCell(r.floor, formatMs)} | ${ratio} | ${goal} | ${r.verdict} |`);
  }
  return lines.join("\n");
}

/** Median of a non-empty list of numbers. */
export function median(values) {
  if (values.length === 0) throw new Error("median of nothing");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
