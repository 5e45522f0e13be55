// `bcolz-ts convert`, `verify` and `compact` (spec/v2.md §13.6, §14, §15), spawned as a user runs
// them, on a real bcolz dataset of the corpus: converted to format 2 and back, checked against the
// corpus's expected values; damage found by file and index; a failed conversion leaves nothing.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkgDir, "../..");
const bin = join(pkgDir, "dist/bin.js");
const real = join(repo, "conformance/corpus/v1/bcolz-real");
const tmp = mkdtempSync(join(tmpdir(), "cli-maintain-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("bcolz-ts convert / verify / compact", () => {
  it("converts a real ctable to format 2 and back; values stay those bcolz wrote", () => {
    const src = join(real, "ctable_addcol", "data.bcolz");
    const v2 = join(tmp, "t2");
    const v1 = join(tmp, "t1");
    const to2 = run("convert", src, v2, "--format", "2", "--checksum", "crc32", "--superchunksize", "2");
    expect(to2.code, to2.stderr).toBe(0);
    expect(to2.stderr).toMatch(/copied byte for byte, 0 recompressed/);
    expect(run("info", v2).stdout).toMatch(/format version: 2/);
    expect(existsSync(join(v2, "__rootdirs__"))).toBe(false);
    const verified = run("verify", v2);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^ok: ctable, format 2, \d+ chunk\(s\) checked/m);
    expect(run("compact", v2).stdout).toBe("reclaimed 0 byte(s)\n");
    expect(run("convert", v2, v1, "--format", "1").code).toBe(0);
    expect(run("info", v1).stdout).toMatch(/format version: 1/);
    // Column b against the corpus's expected bytes (float64, little-endian).
    const expected = new Float64Array(new Uint8Array(readFileSync(join(real, "ctable_addcol", "expected", "b.bin"))).buffer);
    for (const dir of [v2, v1]) {
      const out = run("export", dir, "--to", join(dir + "-b.jsonl"), "--columns", "b");
      expect(out.code, out.stderr).toBe(0);
      const got = readFileSync(join(dir + "-b.jsonl"), "utf8").trim().split("\n").map((l) => Number((JSON.parse(l) as { b: number | string }).b)); // non-finite values come as "NaN", "Infinity"
      expect(got).toEqual(Array.from(expected));
    }
  });

  it("verify names every damaged chunk with its file and local index, exit 3", () => {
    const src = join(real, "carray_i4_n5000_cl1024", "data.bcolz");
    const dir = join(tmp, "damaged");
    expect(run("convert", src, dir, "--format", "2", "--superchunksize", "2").code).toBe(0);
    for (const file of ["__1__.bin", "__2__.bin"]) {
      const path = join(dir, "data", file);
      const bytes = new Uint8Array(readFileSync(path));
      const offset = Number(new DataView(bytes.buffer).getBigInt64(32 + bytes[24]! + 8, true)); // local chunk 1
      bytes[offset + 20]! ^= 0x04;
      writeFileSync(path, bytes);
    }
    const r = run("verify", dir, "--json");
    expect(r.code).toBe(3);
    const report = JSON.parse(r.stdout) as { ok: boolean; problems: { path: string; chunk: number; local: number; code: string }[] };
    expect(report.problems.map((p) => [p.path, p.chunk, p.local, p.code])).toEqual([
      ["data/__1__.bin", 1, 1, "CHECKSUM_MISMATCH"],
      ["data/__2__.bin", 3, 1, "CHECKSUM_MISMATCH"],
    ]);
    expect(run("verify", dir).stdout).toMatch(/problem CHECKSUM_MISMATCH at data\/__2__\.bin chunk 3 \(local 1\)/);
  });

  it("convert shows a progress bar in a terminal (a pty through script(1)), none when piped", () => {
    const src = join(real, "bigchunk_f8_randwalk_cl40000", "data.bcolz");
    const tty = spawnSync("script", ["-qec", `"${process.execPath}" "${bin}" convert "${src}" "${join(tmp, "bar")}" --format 2`, "/dev/null"], { encoding: "utf8" });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain("converting [");
    expect(tty.stdout).toContain("3/3");
    const piped = run("convert", src, join(tmp, "nobar"), "--format", "2");
    expect(piped.stderr).not.toContain("converting [");
    expect(piped.stderr).toMatch(/^converted carray to format 2/);
  });

  it("refuses an existing destination and an unknown format, leaving it as it was", () => {
    const src = join(real, "carray_i4_n5000_cl1024", "data.bcolz");
    const dir = join(tmp, "exists");
    expect(run("convert", src, dir, "--format", "2").code).toBe(0);
    const before = readFileSync(join(dir, "meta", "storage"));
    const again = run("convert", src, dir, "--format", "1");
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/ALREADY_EXISTS/);
    expect(readFileSync(join(dir, "meta", "storage"))).toEqual(before);
    expect(run("convert", src, join(tmp, "x"), "--format", "3").code).toBe(2);
    expect(existsSync(join(tmp, "x"))).toBe(false);
  });
});
