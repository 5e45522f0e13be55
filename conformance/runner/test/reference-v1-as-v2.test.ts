// Issue 15's check: every real bcolz 1.2.1 dataset of the corpus, written by the reference adapter
// as format 2 (the format-1 write case with `"format": 2`), reads back through the adapter with
// the values bcolz wrote (the corpus's expected files) and the same dtype, shape, chunklen, cparams
// and attributes; the directory is a format-2 layout that bcolz 1.x cannot mistake for its own.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildWriteCase, loadWriteCases, runAdapter, sameJson } from "../src/index.js";

const root = resolve(import.meta.dirname, "../../..");
const adapter = join(root, "conformance/adapters/reference/adapter");
const corpus = join(root, "conformance/corpus");
const tmp = mkdtempSync(join(tmpdir(), "v1-as-v2-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sha256 = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

describe("real bcolz datasets written by the reference adapter as format 2", async () => {
  const cases = (await loadWriteCases(corpus, 1)).filter((c) => c.set === "bcolz-real");
  it("covers every real dataset", () => expect(cases.length).toBeGreaterThanOrEqual(60));
  for (const c of cases) {
    const name = c.raw.name as string;
    it(name, async () => {
      const dir = join(tmp, name);
      const casePath = await buildWriteCase(c.raw, c.setDir, join(dir, "case"), 1);
      writeFileSync(casePath, readFileSync(casePath, "utf8").replace(/^\{"format": 1,/, '{"format": 2,'));
      const dataset = join(dir, "data.bcolz");
      const written = await runAdapter(adapter, ["write", casePath, dataset]);
      expect(written.code, written.stdout + written.stderr).toBe(0);
      const files = filesUnder(dataset);
      expect(files.filter((f) => /(^|\/)(meta\/sizes|__rootdirs__|\.lock|\.journal)$|\.blp$/.test(f))).toEqual([]);
      const out = join(dir, "out");
      const read = await runAdapter(adapter, ["read", dataset, out]);
      expect(read.code, read.stdout + read.stderr).toBe(0);
      const result = JSON.parse(readFileSync(join(out, "result.json"), "utf8")) as Record<string, unknown> & { columns: Record<string, unknown>[] };
      expect(result.format).toBe(2);
      if (c.raw.kind === "carray") {
        const expected = (c.raw.expected as Record<string, { sha256: string }>)["values.bin"]!;
        expect(sha256(join(out, "values.bin"))).toBe(expected.sha256);
        for (const key of ["dtype", "shape", "chunklen"]) expect(result[key], key).toEqual(c.raw[key]);
        const cp = c.raw.cparams as Record<string, unknown>;
        expect(result.cparams).toEqual({ clevel: cp.clevel, shuffle: cp.shuffle, cname: cp.cname });
        expect(sameJson(result.attrs, c.raw.attrs ?? {}), JSON.stringify(result.attrs)).toBe(true);
      } else {
        const columns = c.raw.columns as Record<string, unknown>[];
        expect(result.columns.map((col) => col.name)).toEqual(columns.map((col) => col.name));
        columns.forEach((col, i) => {
          expect(sha256(join(out, `col-${i}.bin`)), col.name as string).toBe(col.sha256);
          expect(result.columns[i]!.dtype).toEqual(col.dtype);
          expect(result.columns[i]!.chunklen).toEqual(col.chunklen);
        });
        expect(existsSync(join(dataset, "meta", "storage"))).toBe(true);
      }
    }, 60_000);
  }
});
