// `|b1` values print as booleans wherever the CLI prints or exports values (issue 18 item 4):
// text (cat, head, where, CSV) as True / False, JSON (--json, JSON Lines, info's dflt) as
// true / false, never 0 / 1: for a bool carray from real bcolz, bool ctable columns with trailing
// dimensions, and a format-2 ragged bool column. The library itself reads bool values as a
// Uint8Array of 0/1 (documented with `Values` in @fmt/expr) and min()/max() as booleans.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCtable, open } from "@fmt/store";
import { cli as runCli } from "./run-cli.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const bcolzBool = join(repo, "conformance/corpus/v1/bcolz-real/carray_b1_n7777_cl2500/data.bcolz");
const tmp = mkdtempSync(join(tmpdir(), "cli-bool-"));
const table = join(tmp, "t.bcolz");
const ragged = join(tmp, "ragged.bcolz");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  const t = await createCtable(new FileSystemStore(table), "", [
    { name: "id", data: new Int32Array([0, 1, 2]), options: { dtype: "<i4" } },
    { name: "ok", data: [true, false, true], options: { dtype: "|b1", dflt: true } },
    { name: "pair", data: Uint8Array.of(1, 0, 0, 1, 1, 1), options: { dtype: "|b1", shape: [2] } },
  ]);
  await t.close();
  const r = await createCtable(new FileSystemStore(ragged), "", [{ name: "flags", vtype: "ragged", data: [Uint8Array.of(1, 0), Uint8Array.of(), Uint8Array.of(0)], options: { dtype: "|b1" } }], { formatVersion: 2 });
  await r.close();
});

/** stdout of a `bcolz-ts` run that must succeed. */
async function cli(...args: string[]): Promise<string> {
  const r = await runCli(...args);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

const jsonLines = (text: string): unknown[] => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as unknown);

describe("booleans in CLI output", () => {
  it("cat / head: True / False as text, true / false as JSON, for real bcolz bool data", async () => {
    const a = await open(new FileSystemStore(bcolzBool));
    if (a.kind !== "carray") throw new Error("expected a carray");
    const values = Array.from((await a.read(0, 6)) as Uint8Array);
    expect(new Set(values)).toEqual(new Set([0, 1]));
    expect(await cli("head", bcolzBool, "-n", "6")).toBe(values.map((v) => (v === 1 ? "True\n" : "False\n")).join(""));
    expect(jsonLines(await cli("head", bcolzBool, "-n", "6", "--json"))).toEqual(values.map((v) => v === 1));
  });

  it("ctable columns, with trailing dimensions: cat, where and both exports", async () => {
    expect(await cli("cat", table)).toBe("0\tTrue\t[True, False]\n1\tFalse\t[False, True]\n2\tTrue\t[True, True]\n");
    const rows = [
      { id: 0, ok: true, pair: [true, false] },
      { id: 1, ok: false, pair: [false, true] },
      { id: 2, ok: true, pair: [true, true] },
    ];
    expect(jsonLines(await cli("cat", table, "--json"))).toEqual(rows);
    expect(await cli("where", table, "id >= 1")).toBe("1\t1\tFalse\t[False, True]\n2\t2\tTrue\t[True, True]\n");
    expect(jsonLines(await cli("where", table, "id >= 1", "--json"))).toEqual(rows.slice(1).map((r, i) => ({ _row: i + 1, ...r })));
    const csv = join(tmp, "t.csv");
    const jsonl = join(tmp, "t.jsonl");
    await cli("export", table, "--to", csv, "--no-progress");
    await cli("export", table, "--to", jsonl, "--no-progress");
    expect(readFileSync(csv, "utf8")).toBe('id:<i4,ok:|b1,pair:|b1(2)\n0,True,"[True, False]"\n1,False,"[False, True]"\n2,True,"[True, True]"\n');
    expect(jsonLines(readFileSync(jsonl, "utf8"))).toEqual(rows);
  });

  it("a ragged bool column (format 2)", async () => {
    expect(await cli("cat", ragged)).toBe("[True, False]\n[]\n[False]\n");
    expect(jsonLines(await cli("cat", ragged, "--json"))).toEqual([{ flags: [true, false] }, { flags: [] }, { flags: [false] }]);
  });

  it("info shows a bool dflt as true / false", async () => {
    expect(await cli("info", bcolzBool)).toMatch(/^dflt:\s+false$/m);
    const info = JSON.parse(await cli("info", table, "--json")) as { arrays: { name: string; dflt: unknown }[] };
    expect(info.arrays.map((a) => [a.name, a.dflt])).toEqual([["id", 0], ["ok", true], ["pair", false]]);
  });

  it("the library: read gives 0/1 bytes (documented), min/max give booleans", async () => {
    const a = await open(new FileSystemStore(bcolzBool));
    if (a.kind !== "carray") throw new Error("expected a carray");
    expect(await a.read(0, 2)).toBeInstanceOf(Uint8Array);
    expect(typeof (await a.min())).toBe("boolean");
    expect(typeof (await a.max())).toBe("boolean");
  });
});
