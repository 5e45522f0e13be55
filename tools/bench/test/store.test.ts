// The store benchmark: its verdicts on hand-picked numbers, and one --quick run end to end that
// must print a complete, well-formed table with no FAIL cell. Nothing here looks at how fast
// anything is; the times are only required to be numbers.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript module without type declarations
import { fail, na, ok } from "../lib/report.mjs";
// @ts-expect-error -- plain JavaScript module without type declarations
import { STORE_OPERATIONS, median, storeMarkdownTable, storeRows } from "../lib/store-report.mjs";

type Cell = { value?: number; na?: string; fail?: string };
type Row = { key: string; verdict: string; ratio: Cell };

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../..");

const verdictOf = (measured: Record<string, { ours: Cell; floor: Cell }>, key: string): string =>
  (storeRows(measured) as Row[]).find((r) => r.key === key)!.verdict;

describe("storeRows", () => {
  it("meets a 1.2× goal at exactly 1.2× the floor and misses it just above", () => {
    expect(verdictOf({ sum: { ours: ok(36), floor: ok(30) } }, "sum")).toBe("MET");
    expect(verdictOf({ sum: { ours: ok(36.1), floor: ok(30) } }, "sum")).toBe("NOT MET");
    expect(verdictOf({ create: { ours: ok(10), floor: ok(30) } }, "create")).toBe("MET");
  });

  it("reads a FAIL on either side as NOT MET, a missing side as NOT EVALUATED, and judges no goal-less row", () => {
    expect(verdictOf({ readall: { ours: fail("values differ"), floor: ok(30) } }, "readall")).toBe("NOT MET");
    expect(verdictOf({ readall: { ours: ok(20), floor: fail("floor broke") } }, "readall")).toBe("NOT MET");
    expect(verdictOf({ column: { ours: na("not built"), floor: ok(30) } }, "column")).toBe("NOT EVALUATED");
    expect(verdictOf({}, "column")).toBe("NOT EVALUATED");
    expect(verdictOf({ get: { ours: ok(1000), floor: ok(1) } }, "get")).toBe("—");
  });

  it("prints FAIL and n/a instead of numbers, and no quotient next to them", () => {
    const text = storeMarkdownTable(storeRows({ sum: { ours: fail("sum 3 | 4"), floor: ok(12.5) }, take: { ours: na("no take"), floor: ok(2) } })) as string;
    const lines = text.split("\n");
    const sumLine = lines.find((l) => l.startsWith("| sum()"))!;
    expect(sumLine).toContain("**FAIL**: sum 3 \\| 4");
    expect(sumLine).toContain("| 12.5 |");
    expect(sumLine.split(" | ")[3]).toBe("**FAIL**: ours failed");
    const takeLine = lines.find((l) => l.includes("(take)"))!;
    expect(takeLine).toContain("n/a (no take)");
    expect(takeLine.split(" | ")[3]).toBe("n/a");
  });

  it("takes the middle of an odd count and the mean of the two middles of an even one", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
  });
});

describe("store.mjs --quick", () => {
  const data = mkdtempSync(join(tmpdir(), "bench-store-"));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it("prints a complete table with a number or n/a in every cell and no FAIL", async () => {
    expect(existsSync(join(root, "packages/store/dist/index.js")), "run `pnpm build` first").toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, [join(here, "../store.mjs"), "--quick", `--data=${data}`], { maxBuffer: 1 << 24 });
    const lines = stdout.split("\n");
    expect(lines[0]).toBe("# Store benchmark (quick run)");
    const header = lines.findIndex((l) => l.startsWith("| operation |"));
    expect(header).toBeGreaterThan(0);
    const tableAt = (at: number): string[] => {
      const end = lines.findIndex((l, k) => k > at && !l.startsWith("|"));
      return lines.slice(at + 2, end === -1 ? undefined : end);
    };
    const rows = tableAt(header);
    expect(rows).toHaveLength(STORE_OPERATIONS.length);
    // Format 2 next to format 1 (both ours): create, read-all, gets, sum, each with two times.
    const versions = lines.findIndex((l) => l.startsWith("| operation | v1 ms | v2 ms |"));
    expect(versions, "the format-2 table").toBeGreaterThan(header);
    const versionRows = tableAt(versions);
    expect(versionRows).toHaveLength(4);
    for (const line of versionRows) {
      const cells = line.slice(2, -2).split(" | ");
      expect(cells, line).toHaveLength(5);
      expect(line).not.toContain("FAIL");
      expect(cells[1], line).toMatch(/^\d+\.\d$/);
      expect(cells[2], line).toMatch(/^\d+\.\d$/);
      expect(cells[3], line).toMatch(/^\d+\.\d\d×$/);
    }
    const time = /^(\d+(\.\d+)?|n\/a( \(.*\))?)$/;
    for (const [i, line] of rows.entries()) {
      const cells = line.slice(2, -2).split(" | ");
      expect(cells, line).toHaveLength(6);
      expect(line).not.toContain("FAIL");
      expect(cells[1], line).toMatch(time);
      expect(cells[2], line).toMatch(/^\d+(\.\d+)?$/); // the floor always runs
      expect(cells[3], line).toMatch(/^(\d+\.\d\d×|n\/a)$/);
      const goal = (STORE_OPERATIONS as { goal?: number }[])[i]!.goal;
      expect(cells[4]).toBe(goal === undefined ? "—" : `≤ ${goal.toFixed(1)}×`);
      expect(cells[5]).toMatch(goal === undefined ? /^—$/ : /^(MET|NOT MET)$/);
    }
    // The same run's raw numbers: each quotient is the two medians it sits between.
    const json = JSON.parse(readFileSync(join(data, "latest.json"), "utf8")) as { rows: { ours: Cell; floor: Cell; ratio: Cell }[] };
    for (const r of json.rows) {
      if (r.ours.value !== undefined) expect(r.ratio.value).toBe(r.ours.value / r.floor.value!);
    }
  });
});
