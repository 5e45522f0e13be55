// `bcolz-ts import --format 2` of a CSV file with a text column (a variable-length utf8 column,
// spec/v2.md §12) and `export` of that table to JSON Lines and CSV: the built bin is spawned, and
// the strings come back unchanged.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { openCtable } from "@fmt/store";

const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "dist/bin.js");
const tmp = mkdtempSync(join(tmpdir(), "cli-vl-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const words = ["alpha", "", "héllo wörld", "a,b \"quoted\"", "☃ snow", "😀", "zz"];
const csvCell = (s: string): string => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

describe("bcolz-ts import/export with string columns", () => {
  const csv = join(tmp, "in.csv");
  writeFileSync(csv, `id,name,price\n${words.map((w, i) => `${i},${csvCell(w)},${i + 0.5}`).join("\n")}\n`);
  const dir = join(tmp, "t.bcolz");

  it("import --format 2 makes the text column a utf8 vlarray", async () => {
    const r = run("import", csv, dir, "--format", "2", "--chunklen", "3");
    expect(r.code, r.stderr).toBe(0);
    const t = await openCtable(new FileSystemStore(dir));
    expect(t.formatVersion).toBe(2);
    const name = t.column("name");
    expect(name.kind).toBe("vlarray");
    expect(await t.readColumn("name")).toEqual(words);
    expect(Array.from((await t.readColumn("id")) as BigInt64Array)).toEqual(words.map((_, i) => BigInt(i)));
  });

  it("export to .jsonl gives the strings back exactly", () => {
    const out = join(tmp, "t.jsonl");
    const r = run("export", dir, "--to", out);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(out, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id: number; name: string; price: number });
    expect(rows.map((row) => row.name)).toEqual(words);
    expect(rows.map((row) => row.price)).toEqual(words.map((_, i) => i + 0.5));
  });

  it("export to .csv and import again round-trips", async () => {
    const out = join(tmp, "t.csv");
    expect(run("export", dir, "--to", out).code).toBe(0);
    const again = join(tmp, "again.bcolz");
    const r = run("import", out, again, "--format", "2");
    expect(r.code, r.stderr).toBe(0);
    const t = await openCtable(new FileSystemStore(again));
    expect(await t.readColumn("name")).toEqual(words);
  });

  it("a .npy export of a table with a vlarray column is refused, format 1 keeps <U", async () => {
    expect(run("export", dir, "--to", join(tmp, "t.npy")).code).toBe(2);
    const v1 = join(tmp, "v1.bcolz");
    expect(run("import", csv, v1).code).toBe(0);
    const t = await openCtable(new FileSystemStore(v1));
    expect(t.column("name").dtype.str).toBe(`<U${Math.max(...words.map((w) => [...w].length))}`);
  });
});
