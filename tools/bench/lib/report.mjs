// Cells, the Markdown table and the evaluation of the targets.
// A cell is a measured number, a reason it was not measured ("n/a"), or a failure ("FAIL"):
// a wrong result must never show up as a speed.

export const ok = (value) => ({ value });
export const na = (reason) => ({ na: reason });
export const fail = (reason) => ({ fail: reason });
export const NOT_IMPLEMENTED = "not implemented";

const isNumber = (cell) => cell !== undefined && typeof cell.value === "number" && Number.isFinite(cell.value);

/** numerator ÷ denominator as a cell; n/a when either side has no number. */
export function quotient(numerator, denominator) {
  if (numerator?.fail) return fail("see left");
  if (isNumber(numerator) && isNumber(denominator) && denominator.value > 0) return ok(numerator.value / denominator.value);
  return na("");
}

const escape = (text) => text.replace(/\|/g, "\\|");

function show(cell, digits, suffix = "") {
  if (cell === undefined) return "";
  if (cell.fail !== undefined) return `**FAIL**: ${escape(cell.fail)}`;
  if (cell.na !== undefined) return cell.na ? `n/a (${escape(cell.na)})` : "n/a";
  const v = cell.value;
  return `${v.toFixed(v !== 0 && Math.abs(v) < 0.1 ? digits + 1 : digits)}${suffix}`;
}

const COLUMNS = [
  ["dataset", (r) => r.dataset],
  ["codec", (r) => r.codec],
  ["shuffle", (r) => String(r.shuffle)],
  ["clevel", (r) => String(r.clevel ?? 5)],
  ["threads", (r) => String(r.threads)],
  ["ratio native", (r) => show(r.ratioNative, 3)],
  ["ratio ours", (r) => show(r.ratioOurs, 3)],
  ["ours÷native size", (r) => show(r.sizeOursOverNative, 3)],
  ["dec GB/s native", (r) => show(r.decNative, 2)],
  ["dec GB/s numcodecs", (r) => show(r.decNumcodecs, 2)],
  ["dec GB/s ours", (r) => show(r.decOurs, 2)],
  ["dec GB/s ours (alloc)", (r) => show(r.decOursAlloc, 2)],
  ["dec ours÷native", (r) => show(quotient(r.decOurs, r.decNative), 2, "×")],
  ["dec ours÷numcodecs", (r) => show(quotient(r.decOurs, r.decNumcodecs), 1, "×")],
  ["comp GB/s native", (r) => show(r.compNative, 2)],
  ["comp GB/s ours", (r) => show(r.compOurs, 2)],
  ["comp ours÷native", (r) => show(quotient(r.compOurs, r.compNative), 2, "×")],
];

/** The results table, one row per (dataset, codec, shuffle, threads). */
export function markdownTable(rows) {
  const lines = [`| ${COLUMNS.map(([h]) => h).join(" | ")} |`, `|${COLUMNS.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${COLUMNS.map(([, f]) => f(row)).join(" | ")} |`);
  return lines.join("\n");
}

const find = (rows, codec, shuffle, threads, clevel = 5) =>
  rows.find((r) => r.dataset === "f8-randwalk" && r.codec === codec && r.shuffle === shuffle && r.threads === threads && (r.clevel ?? 5) === clevel);

/**
 * The targets, on the float64 random walk with 256 KiB chunks:
 * each `{ target, status: "MET" | "NOT MET" | "NOT EVALUATED", detail }`.
 */
export function evaluateTargets(rows) {
  const results = [];
  const add = (target, status, detail) => results.push({ target, status, detail });
  const x = (v) => `${v.toFixed(2)}×`;
  // Quotients like 2.4 / 3.0 land a hair under 0.8 in binary floating point.
  const atLeast = (quotient, bar) => quotient >= bar * (1 - 1e-9);
  const gb = (cell) => show(cell, 2) + (isNumber(cell) ? " GB/s" : "");

  // Each check returns a status for numbers it has, or why it cannot judge.
  const judge = (target, needed, check) => {
    const missing = needed.find(([, cell]) => !isNumber(cell));
    if (missing) {
      const [what, cell] = missing;
      const why = cell === undefined ? "config not in this run" : cell.fail !== undefined ? `FAIL: ${cell.fail}` : `n/a (${cell.na})`;
      add(target, cell?.fail !== undefined ? "NOT MET" : "NOT EVALUATED", `${what}: ${why}`);
      return;
    }
    const [met, detail] = check(...needed.map(([, c]) => c.value));
    add(target, met ? "MET" : "NOT MET", detail);
  };

  const s1 = find(rows, "lz4", 1, 1);
  const s2 = find(rows, "lz4", 2, 1);
  const s1t2 = find(rows, "lz4", 1, 2);

  judge("lz4 + byte shuffle decompression ≥ 0.8× native (1 thread)", [["ours", s1?.decOurs], ["native", s1?.decNative]],
    (o, n) => [atLeast(o / n, 0.8), `ours ${o.toFixed(2)} GB/s vs native ${n.toFixed(2)} GB/s = ${x(o / n)} (need ≥ 0.80×)`]);
  judge("lz4 + byte shuffle decompression ≥ 10× numcodecs (1 thread)", [["ours", s1?.decOurs], ["numcodecs", s1?.decNumcodecs]],
    (o, w) => [atLeast(o / w, 10), `ours ${o.toFixed(2)} GB/s vs numcodecs ${w.toFixed(3)} GB/s = ${x(o / w)} (need ≥ 10×)`]);
  judge("lz4 + bitshuffle decompression ≥ 0.8× native (1 thread)", [["ours", s2?.decOurs], ["native", s2?.decNative]],
    (o, n) => [atLeast(o / n, 0.8), `ours ${o.toFixed(2)} GB/s vs native ${n.toFixed(2)} GB/s = ${x(o / n)} (need ≥ 0.80×)`]);
  judge("lz4 + byte shuffle compression ≥ 0.8× native with the same ratio (± 2 %) (1 thread)",
    [["ours speed", s1?.compOurs], ["native speed", s1?.compNative], ["ours ratio", s1?.ratioOurs], ["native ratio", s1?.ratioNative]],
    (o, n, ro, rn) => {
      const speedOk = atLeast(o / n, 0.8);
      const ratioOk = Math.abs(ro / rn - 1) <= 0.02 * (1 + 1e-9);
      return [speedOk && ratioOk,
        `speed ${o.toFixed(2)} vs ${n.toFixed(2)} GB/s = ${x(o / n)} (need ≥ 0.80×: ${speedOk ? "ok" : "no"}); ` +
        `ratio ${ro.toFixed(3)} vs ${rn.toFixed(3)} = ${((ro / rn - 1) * 100).toFixed(2)} % (need within ± 2 %: ${ratioOk ? "ok" : "no"})`];
    });
  judge("2 threads decompressing the 64 MiB (lz4 + byte shuffle) ≥ 1.0× native single-threaded",
    [["ours, 2 threads", s1t2?.decOurs], ["native, 1 thread", s1?.decNative]],
    (o, n) => [atLeast(o / n, 1), `ours (2 threads) ${o.toFixed(2)} GB/s vs native (1 thread) ${n.toFixed(2)} GB/s = ${x(o / n)} (need ≥ 1.00×)` +
      (isNumber(s1t2?.decNative) ? `; native with 2 threads: ${gb(s1t2.decNative)}` : "")]);
  // zstd + byte shuffle, 1 thread, at every clevel the run has (5 in the main table, the others
  // from the zstd sweep).
  const zstd = rows.filter((r) => r.dataset === "f8-randwalk" && r.codec === "zstd" && r.shuffle === 1 && r.threads === 1).sort((a, b) => (a.clevel ?? 5) - (b.clevel ?? 5));
  if (zstd.length === 0) add("zstd + byte shuffle decompression ≥ 0.5× native at every clevel (1 thread)", "NOT EVALUATED", "no zstd row in this run (--codecs or --zstd-levels)");
  else {
    const cells = zstd.map((r) => [`clevel ${r.clevel ?? 5}`, r.decOurs, r.decNative]);
    const missing = cells.find(([, o, n]) => !isNumber(o) || !isNumber(n));
    if (missing) add("zstd + byte shuffle decompression ≥ 0.5× native at every clevel (1 thread)", "NOT EVALUATED", `${missing[0]}: a cell is n/a or FAIL`);
    else {
      const worst = cells.reduce((w, c) => (c[1].value / c[2].value < w[1].value / w[2].value ? c : w));
      const met = cells.every(([, o, n]) => atLeast(o.value / n.value, 0.5));
      add("zstd + byte shuffle decompression ≥ 0.5× native at every clevel (1 thread)", met ? "MET" : "NOT MET",
        cells.map(([l, o, n]) => `${l} ${x(o.value / n.value)}`).join(", ") + `; lowest ${worst[0]} (need ≥ 0.50× at each)`);
    }
  }
  return results;
}

/** The targets as a Markdown section. */
export function markdownTargets(targets) {
  const lines = ["## Targets (float64 random walk, 256 KiB chunks, clevel 5)", ""];
  for (const t of targets) lines.push(`- **${t.status}** — ${t.target}: ${t.detail}`);
  return lines.join("\n");
}
