// The bench's verdicts, checked on hand-picked numbers: a target is MET only when the numbers
// say so, a wrong result reads FAIL (never a speed), and a missing piece is NOT EVALUATED.
import { describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript module without type declarations
import { evaluateTargets, fail, markdownTable, na, ok } from "../lib/report.mjs";

type Cell = { value?: number; na?: string; fail?: string };
type Row = Record<string, unknown> & { dataset: string; codec: string; shuffle: number; threads: number };

const row = (codec: string, shuffle: number, threads: number, cells: Record<string, Cell>): Row => ({
  dataset: "f8-randwalk", codec, shuffle, threads, ...cells,
});

const statusOf = (rows: Row[], start: string): string => {
  const found = (evaluateTargets(rows) as { target: string; status: string }[]).find((t) => t.target.startsWith(start));
  if (!found) throw new Error(`no target starting with ${start}`);
  return found.status;
};

describe("evaluateTargets", () => {
  it("meets the decompression target at exactly 0.8× native and misses it just below", () => {
    const at = [row("lz4", 1, 1, { decOurs: ok(2.4), decNative: ok(3.0), decNumcodecs: ok(0.2) })];
    const below = [row("lz4", 1, 1, { decOurs: ok(2.39), decNative: ok(3.0), decNumcodecs: ok(0.2) })];
    expect(statusOf(at, "lz4 + byte shuffle decompression ≥ 0.8×")).toBe("MET");
    expect(statusOf(below, "lz4 + byte shuffle decompression ≥ 0.8×")).toBe("NOT MET");
    // 2.4 / 0.2 = 12× numcodecs, 2.39 / 0.25 = 9.56×
    expect(statusOf(at, "lz4 + byte shuffle decompression ≥ 10×")).toBe("MET");
    expect(statusOf([row("lz4", 1, 1, { decOurs: ok(2.39), decNumcodecs: ok(0.25) })], "lz4 + byte shuffle decompression ≥ 10×")).toBe("NOT MET");
  });

  it("needs both speed and ratio for the compression target", () => {
    const base = { compNative: ok(1.0), ratioNative: ok(1.3) };
    // Issue 16's bar: 0.8× native.
    const good = [row("lz4", 1, 1, { ...base, compOurs: ok(0.8), ratioOurs: ok(1.29) })];
    const slow = [row("lz4", 1, 1, { ...base, compOurs: ok(0.79), ratioOurs: ok(1.3) })];
    const worseRatio = [row("lz4", 1, 1, { ...base, compOurs: ok(0.9), ratioOurs: ok(1.25) })]; // -3.8 %
    expect(statusOf(good, "lz4 + byte shuffle compression")).toBe("MET");
    expect(statusOf(slow, "lz4 + byte shuffle compression")).toBe("NOT MET");
    expect(statusOf(worseRatio, "lz4 + byte shuffle compression")).toBe("NOT MET");
  });

  it("compares two threads of ours with one thread of native", () => {
    const rows = [
      row("lz4", 1, 1, { decNative: ok(3.0) }),
      row("lz4", 1, 2, { decOurs: ok(3.1), decNative: ok(9.9) }),
    ];
    expect(statusOf(rows, "2 threads")).toBe("MET");
  });

  it("judges zstd decompression at every clevel of the run: one clevel under 0.5× native misses it", () => {
    const zstd = (clevel: number, ours: number, native: number): Row => ({ ...row("zstd", 1, 1, { decOurs: ok(ours), decNative: ok(native) }), clevel });
    expect(statusOf([zstd(1, 1.0, 2.0), zstd(5, 1.5, 2.0), zstd(9, 1.2, 2.0)], "zstd + byte shuffle")).toBe("MET");
    expect(statusOf([zstd(1, 1.0, 2.0), zstd(5, 1.5, 2.0), zstd(9, 0.99, 2.0)], "zstd + byte shuffle")).toBe("NOT MET");
    expect(statusOf([zstd(1, 1.0, 2.0), { ...zstd(3, 0, 2.0), decOurs: na("not implemented") }], "zstd + byte shuffle")).toBe("NOT EVALUATED");
    expect(statusOf([], "zstd + byte shuffle")).toBe("NOT EVALUATED");
  });

  it("reads a FAIL as NOT MET and a missing implementation as NOT EVALUATED", () => {
    const failed = [row("lz4", 2, 1, { decOurs: fail("chunk 3 decodes to different bytes"), decNative: ok(1.4) })];
    const missing = [row("lz4", 2, 1, { decOurs: na("not implemented"), decNative: ok(1.4) })];
    expect(statusOf(failed, "lz4 + bitshuffle")).toBe("NOT MET");
    expect(statusOf(missing, "lz4 + bitshuffle")).toBe("NOT EVALUATED");
    expect(statusOf([], "lz4 + bitshuffle")).toBe("NOT EVALUATED");
  });
});

describe("markdownTable", () => {
  it("prints FAIL instead of a speed, and n/a with its reason", () => {
    const text = markdownTable([
      row("lz4", 1, 1, { decNative: ok(3.25), decOurs: fail("chunk 0 | bad"), decNumcodecs: na("1 thread only") }),
    ]);
    const cells = (text.split("\n")[2] ?? "").split(" | ");
    expect(cells).toContain("3.25");
    expect(cells).toContain("**FAIL**: chunk 0 \\| bad");
    expect(cells).toContain("n/a (1 thread only)");
    // the quotient next to a failed measurement is not a number either
    expect(text).not.toMatch(/\d×/);
  });
});
