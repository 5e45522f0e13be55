// Issue 9: the reference adapter's `write` must keep a case file's `values` inside the case
// directory (a probe made it read /dev/zero forever and files anywhere), must not write column
// names readers refuse, and its `read` is one call for the output and work limits.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCtable } from "@fmt/store";
import { readDatasetToDir, writeDatasetFromCase } from "../src/adapter.js";

const root = mkdtempSync(join(tmpdir(), "adapter-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let serial = 0;

async function failure(p: Promise<unknown>): Promise<BcolzError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BcolzError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

/** A case directory holding `v.bin` (three <i4 values) and case.json with the given `values`. */
function caseWith(values: string, extra: Record<string, unknown> = {}): { caseJson: string; caseDir: string; out: string } {
  const caseDir = join(root, `case${++serial}`);
  mkdirSync(caseDir);
  writeFileSync(join(caseDir, "v.bin"), new Uint8Array(new Int32Array([1, 2, 3]).buffer));
  const doc = { format: 1, kind: "carray", dtype: "<i4", shape: [3], chunklen: 2, values, ...extra };
  writeFileSync(join(caseDir, "case.json"), JSON.stringify(doc));
  return { caseJson: join(caseDir, "case.json"), caseDir, out: join(root, `out${serial}`) };
}

const written = (out: string): string[] => (existsSync(out) ? readdirSync(out) : []);

describe("adapter write: the values path", () => {
  it.each(["/dev/zero", "../v.bin", "sub/../../v.bin", "", "/etc/passwd"])("refuses %j with UNSAFE_NAME before writing", async (values) => {
    const { caseJson, out } = caseWith(values);
    const e = await failure(writeDatasetFromCase(caseJson, out));
    expect([e.code, e.field]).toEqual(["UNSAFE_NAME", "values"]);
    expect(written(out)).toEqual([]);
  });

  it("refuses a symbolic link (here to /dev/zero) and a directory with INVALID_ARGUMENT", async () => {
    const link = caseWith("zero.bin");
    symlinkSync("/dev/zero", join(link.caseDir, "zero.bin"));
    const dir = caseWith("sub");
    mkdirSync(join(dir.caseDir, "sub"));
    for (const c of [link, dir]) {
      const e = await failure(writeDatasetFromCase(c.caseJson, c.out));
      expect([e.code, e.field]).toEqual(["INVALID_ARGUMENT", "values"]);
      expect(written(c.out)).toEqual([]);
    }
  });

  it("refuses a file of the wrong size before reading it", async () => {
    const c = caseWith("v.bin", { shape: [4] });
    const e = await failure(writeDatasetFromCase(c.caseJson, c.out));
    expect([e.code, e.field, e.actual]).toEqual(["INVALID_ARGUMENT", "values", 12]);
  });

  it("writes from a plain relative path, also in a subdirectory", async () => {
    const c = caseWith("vals/x.bin");
    mkdirSync(join(c.caseDir, "vals"));
    writeFileSync(join(c.caseDir, "vals/x.bin"), new Uint8Array(new Int32Array([4, 5, 6]).buffer));
    await writeDatasetFromCase(c.caseJson, c.out);
    expect(written(c.out).sort()).toEqual(["__attrs__", "data", "meta"]);
  });
});

describe("adapter write: column names", () => {
  it.each(["a\u0001b", "1abc", "a b", ".lock", "x".repeat(300)])("refuses column %j with UNSAFE_NAME and writes no __rootdirs__", async (name) => {
    const c = caseWith("v.bin");
    writeFileSync(c.caseJson, JSON.stringify({ format: 1, kind: "ctable", columns: [{ name, dtype: "<i4", shape: [3], chunklen: 2, values: "v.bin" }] }));
    const e = await failure(writeDatasetFromCase(c.caseJson, c.out));
    expect(e.code).toBe("UNSAFE_NAME");
    expect(existsSync(join(c.out, "__rootdirs__"))).toBe(false);
  });
});

describe("adapter read: one call for the limits", () => {
  it("refuses a ctable whose columns together exceed maxReadBytes, though each fits", async () => {
    const dir = join(root, "table");
    const data = new Float64Array(1000);
    const t = await createCtable(new FileSystemStore(dir), "", ["a", "b", "c"].map((name) => ({ name, data })), { chunklen: 100 });
    await t.close();
    const e = await failure(readDatasetToDir(dir, join(root, "table-out"), { maxReadBytes: 20_000 }));
    expect([e.code, e.field, e.actual]).toEqual(["SIZE_LIMIT", "maxReadBytes", 24_000]);
    const w = await failure(readDatasetToDir(dir, join(root, "table-out"), { maxChunksPerCall: 25 }));
    expect([w.code, w.field, w.actual]).toEqual(["SIZE_LIMIT", "maxChunksPerCall", 30]);
    expect(written(join(root, "table-out"))).toEqual([]);
    await readDatasetToDir(dir, join(root, "table-out"), { maxReadBytes: 24_000, maxChunksPerCall: 30 });
    expect(written(join(root, "table-out")).sort()).toEqual(["col-0.bin", "col-1.bin", "col-2.bin", "result.json"]);
  });
});
