// Issue 18 items 4 and 5: a wrong path is reported as what it is, naming the path given: no such
// directory, a file where a dataset directory was expected, a directory that is no dataset; an
// unreadable import source is a usage error (exit 2), never "internal error" with a stack trace.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const bin = join(dirname(fileURLToPath(import.meta.url)), "../dist/bin.js");
const tmp = mkdtempSync(join(tmpdir(), "cli-paths-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });

describe("paths the user names", () => {
  const missing = join(tmp, "nope");
  const file = join(tmp, "file.txt");
  writeFileSync(file, "hello\n");

  for (const command of ["info", "cat", "validate", "verify", "compact", "export"]) {
    it(`${command}: no such directory / a file / not a dataset`, () => {
      const extra = command === "export" ? ["--to", join(tmp, `${command}.csv`)] : [];
      const a = run(command, missing, ...extra);
      expect(a.status).toBe(3);
      expect(a.stderr).toBe(`error MISSING_FILE: ${missing}: field dir: no such directory\n`);
      const b = run(command, file, ...extra);
      expect(b.stderr).toContain(`${file}: field dir: a file, not a dataset directory`);
      const c = run(command, tmp, ...extra);
      expect(c.stderr).toContain(`${tmp}: field meta/storage: a directory, but not a bcolz dataset`);
    });
  }

  it("import of a missing or unreadable source: exit 2, named, no stack trace", () => {
    const r = run("import", join(tmp, "missing.npy"), join(tmp, "out.bcolz"));
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`error INVALID_ARGUMENT: ${join(tmp, "missing.npy")}: field source: the source file: no such file\n`);
    const d = run("import", `${tmp}.csv`, join(tmp, "out2.bcolz"));
    expect(d.status).toBe(2);
    expect(d.stderr).not.toContain("internal error");
  });
});

describe("a failed export leaves no file behind (issue 18 item 6)", () => {
  it("a truncated chunk: exit 3, no target and no temporary file; the retry after repair is not blocked", async () => {
    const { cpSync, existsSync, readdirSync, readFileSync, truncateSync } = await import("node:fs");
    const real = join(dirname(fileURLToPath(import.meta.url)), "../../../conformance/corpus/v1/bcolz-real/carray_i4_n5000_cl1024/data.bcolz");
    const dir = join(tmp, "broken.bcolz");
    cpSync(real, dir, { recursive: true });
    const chunk = join(dir, "data", "__3.blp");
    const good = readFileSync(chunk);
    truncateSync(chunk, 100);
    const outDir = join(tmp, "exports");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(outDir);
    for (const ext of ["csv", "npy", "jsonl"]) {
      const target = join(outDir, `out.${ext}`);
      const r = run("export", dir, "--to", target);
      expect(r.status, r.stderr).toBe(3);
      expect(existsSync(target)).toBe(false);
    }
    expect(readdirSync(outDir)).toEqual([]);
    writeFileSync(chunk, good);
    expect(run("export", dir, "--to", join(outDir, "out.csv")).status).toBe(0);
    expect(readdirSync(outDir)).toEqual(["out.csv"]);
  });
});

describe("CSV import refuses an unclosed quote (issue 18 item 10)", () => {
  it("names the line where the quote opened; nothing is created", async () => {
    const { existsSync } = await import("node:fs");
    const csv = join(tmp, "open-quote.csv");
    writeFileSync(csv, 'a,b\n1,"x\n2,y\n');
    const r = run("import", csv, join(tmp, "q.bcolz"));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("CSV line 2: a quoted field is never closed");
    expect(existsSync(join(tmp, "q.bcolz"))).toBe(false);
    writeFileSync(csv, 'a,b\n1,"x\n2"\n');
    expect(run("import", csv, join(tmp, "q2.bcolz")).status).toBe(0); // a quoted newline is fine
  });
});

describe("export to standard output (issue 18 item 10)", () => {
  const real = join(dirname(fileURLToPath(import.meta.url)), "../../../conformance/corpus/v1/bcolz-real/ctable_addcol/data.bcolz");
  it("--to - --as csv|jsonl writes exactly what the file export writes; nothing is created", async () => {
    const { readFileSync, readdirSync } = await import("node:fs");
    const before = readdirSync(tmp);
    for (const as of ["csv", "jsonl"]) {
      const file = join(tmp, `whole.${as}`);
      expect(run("export", real, "--to", file).status).toBe(0);
      const piped = run("export", real, "--to", "-", "--as", as);
      expect(piped.status, piped.stderr).toBe(0);
      expect(piped.stdout).toBe(readFileSync(file, "utf8"));
      expect(piped.stderr).toBe("wrote 3000 row(s) to standard output\n");
    }
    expect(readdirSync(tmp).filter((f) => !before.includes(f)).sort()).toEqual(["whole.csv", "whole.jsonl"]);
  });
  it("refuses --to - without --as, and .npy to standard output", () => {
    const a = run("export", real, "--to", "-");
    expect([a.status, a.stderr]).toEqual([2, "error INVALID_ARGUMENT: field as: --to - needs --as csv or --as jsonl (expected csv or jsonl)\n"]);
    const b = run("export", real, "--to", "-", "--as", "npy");
    expect(b.status).toBe(2);
    expect(b.stderr).toContain(".npy is binary");
    expect(b.stdout).toBe("");
  });
});
