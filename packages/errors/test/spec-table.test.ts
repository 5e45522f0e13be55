// Keeps the normative table of spec/errors.md and ERROR_CODES in step: same codes, same meaning
// strings, same order. The spec is the source of truth for wording; this test only compares.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../src/index.js";

const specPath = fileURLToPath(new URL("../../../spec/errors.md", import.meta.url));

/** Rows of the first Markdown table whose header is `| code | meaning |`, as [code, meaning]. */
function readCodeTable(markdown: string): [string, string][] {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => /^\|\s*code\s*\|\s*meaning\s*\|\s*$/.test(line));
  if (start < 0) throw new Error("spec/errors.md has no `| code | meaning |` table");
  const separator = lines[start + 1] ?? "";
  if (!/^\|(\s*:?-+:?\s*\|){2}\s*$/.test(separator)) throw new Error(`bad separator row: ${separator}`);
  const rows: [string, string][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
    if (cells.length !== 2) throw new Error(`table row does not have two cells: ${line}`);
    const code = cells[0]!.replace(/^`(.*)`$/, "$1");
    rows.push([code, cells[1]!]);
  }
  return rows;
}

describe("spec/errors.md code table", () => {
  const rows = readCodeTable(readFileSync(specPath, "utf8"));

  it("lists exactly the ERROR_CODES keys, in the same order", () => {
    expect(rows.map(([code]) => code)).toEqual(Object.keys(ERROR_CODES));
  });

  it("gives every code the same meaning string as ERROR_CODES", () => {
    expect(Object.fromEntries(rows)).toEqual({ ...ERROR_CODES });
    for (const [code, meaning] of rows) {
      expect(meaning, code).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES]);
    }
  });

  it("names no code twice", () => {
    const codes = rows.map(([code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("parser rejects a table whose wording drifted", () => {
    // Guards the comparison itself: a one-word change in the spec must be visible to the test.
    const drifted = readCodeTable("| code | meaning |\n|---|---|\n| `TRUNCATED` | input stops early |\n");
    expect(drifted).toEqual([["TRUNCATED", "input stops early"]]);
    expect(drifted[0]![1]).not.toBe(ERROR_CODES.TRUNCATED);
  });
});
