// The runner on format 2 (spec/conformance.md, format-2 additions): vlarray read cases, the
// `format` member, format selection, and the format-2 write check. A tiny corpus of four v2
// datasets (a carray that is v2.md §8.1's worked example, a carray of two superchunks, a
// vlarray, a ctable with a fixed-size, a utf8 and a ragged column) is built in a temporary
// directory by test/v2-adapters/fake-v2.mjs; the same fake, started in a spoiling MODE, is the
// adapter under test. Needs no build.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWriteCase, listFiles, runSuite, totalsLine, type CaseResult, type SuiteOptions } from "../src/index.js";

const root = resolve(import.meta.dirname, "../../..");
const fake = join(import.meta.dirname, "v2-adapters/fake-v2.mjs");
let scratch = "";
let corpus = "";

// ---- values ----
const i2 = (...xs: number[]): Buffer => Buffer.from(new Int16Array(xs).buffer);
const i4 = (...xs: number[]): Buffer => Buffer.from(new Int32Array(xs).buffer);
const i8 = (...xs: number[]): Buffer => Buffer.from(new BigInt64Array(xs.map(BigInt)).buffer);
const f8 = (...xs: number[]): Buffer => Buffer.from(new Float64Array(xs).buffer);
/** The vlarray value file of spec/conformance.md §1.2: per element a u64 byte length, then the bytes. */
function vl(elements: Buffer[]): Buffer {
  return Buffer.concat(
    elements.flatMap((e) => {
      const n = Buffer.alloc(8);
      n.writeBigUInt64LE(BigInt(e.length));
      return [n, e];
    }),
  );
}
const utf8 = (...xs: string[]): Buffer => vl(xs.map((x) => Buffer.from(x, "utf8")));
const sha = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

interface ArrayDef {
  name?: string;
  dtype: string;
  vtype?: "utf8" | "bytes" | "ragged";
  shape: number[];
  chunklen: number;
  cparams: { clevel: number; shuffle: number; cname: string; quantize: number };
  superchunksize: number;
  checksum: "adler32" | "none";
  spare: number;
  attrs: Record<string, unknown>;
  values: Buffer;
}
interface CaseDef {
  name: string;
  kind: "carray" | "vlarray" | "ctable";
  /** Whether the manifest gives `format` (spec/conformance.md §2.1: then it is compared). */
  format: boolean;
  ops: string[];
  attrs: Record<string, unknown>;
  array?: ArrayDef;
  columns?: ArrayDef[];
}

const LZ4 = { clevel: 5, shuffle: 1, cname: "lz4", quantize: 0 };
const common = { superchunksize: 2, checksum: "adler32" as const, spare: 10, cparams: LZ4, attrs: {} };
const CASES: CaseDef[] = [
  {
    // v2.md §8.1, byte for byte (checked below)
    name: "carray_i4_spec_example",
    kind: "carray",
    format: true,
    ops: ["create"],
    attrs: {},
    array: { ...common, dtype: "<i4", shape: [3], chunklen: 2, superchunksize: 4, spare: 50, values: i4(1, 2, 3) },
  },
  {
    name: "carray_f8_two_superchunks",
    kind: "carray",
    format: true,
    ops: ["create len 6", "append 4"],
    attrs: { unit: "m" },
    array: {
      ...common,
      dtype: "<f8",
      shape: [10],
      chunklen: 3,
      cparams: { clevel: 9, shuffle: 2, cname: "zstd", quantize: 0 },
      attrs: { unit: "m" },
      values: f8(0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5),
    },
  },
  {
    name: "vlarray_utf8",
    kind: "vlarray",
    format: true,
    ops: ["create"],
    attrs: { lang: "fr" },
    array: { ...common, dtype: "vl:utf8", vtype: "utf8", shape: [3], chunklen: 4, attrs: { lang: "fr" }, values: utf8("ab", "", "héllo") },
  },
  {
    name: "ctable_mixed",
    kind: "ctable",
    format: false,
    ops: ["create"],
    attrs: { source: "test" },
    columns: [
      { ...common, name: "id", dtype: "<i8", shape: [5], chunklen: 2, values: i8(10, 20, 30, 40, 50) },
      { ...common, name: "sym", dtype: "vl:utf8", vtype: "utf8", shape: [5], chunklen: 2, values: utf8("a", "bb", "", "ccc", "d") },
      { ...common, name: "r", dtype: "vl:<i2", vtype: "ragged", shape: [5], chunklen: 2, values: vl([i2(1, 2), i2(), i2(3), i2(4, 5, 6), i2(7)]) },
    ],
  },
];

/** An executable that runs the fake adapter in `mode` (the runner starts adapters without a shell). */
function adapter(mode: string): string {
  const path = join(scratch, "adapters", mode);
  mkdirSync(join(scratch, "adapters"), { recursive: true });
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${fake}" ${mode} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

function arrayCase(a: ArrayDef, valuesFile: string): Record<string, unknown> {
  const { values: _bytes, ...rest } = a;
  return { ...rest, dflt: 0, expectedlen: null, values: valuesFile };
}

/** Writes case `c` with the fake's "good" mode and returns its manifest entry. */
async function buildCase(setDir: string, c: CaseDef): Promise<Record<string, unknown>> {
  const caseDir = join(setDir, c.name);
  const build = join(scratch, "build", c.name);
  mkdirSync(join(caseDir, "expected"), { recursive: true });
  mkdirSync(build, { recursive: true });
  const entry: Record<string, unknown> = { name: c.name, kind: c.kind, ...(c.format ? { format: 2 } : {}), attrs: c.attrs, ops: c.ops, expectedlen: null };
  let doc: Record<string, unknown>;
  if (c.kind !== "ctable") {
    const a = c.array!;
    writeFileSync(join(build, "values.bin"), a.values);
    writeFileSync(join(caseDir, "expected/values.bin"), a.values);
    doc = { format: 2, kind: c.kind, ...arrayCase(a, "values.bin"), columns: [] };
    Object.assign(entry, { dtype: a.dtype, shape: a.shape, chunklen: a.chunklen, cparams: a.cparams, expected: { "values.bin": { sha256: sha(a.values), bytes: a.values.length } } });
  } else {
    const cols = c.columns!;
    cols.forEach((a, i) => {
      writeFileSync(join(build, `col-${i}.bin`), a.values);
      writeFileSync(join(caseDir, "expected", `${a.name!}.bin`), a.values);
    });
    doc = { format: 2, kind: "ctable", attrs: c.attrs, columns: cols.map((a, i) => arrayCase(a, `col-${i}.bin`)) };
    Object.assign(entry, {
      dtype: cols.map((a) => [a.name, a.dtype]),
      len: cols[0]!.shape[0],
      chunklen: cols[0]!.chunklen,
      columns: cols.map((a) => ({ name: a.name, dtype: a.dtype, shape: a.shape, chunklen: a.chunklen, cparams: a.cparams, attrs: {}, expected_file: `${a.name!}.bin`, sha256: sha(a.values), bytes: a.values.length })),
    });
  }
  writeFileSync(join(build, "case.json"), JSON.stringify(doc));
  execFileSync(adapter("good"), ["write", join(build, "case.json"), join(caseDir, "data.bcolz")]);
  entry.files = await listFiles(join(caseDir, "data.bcolz"));
  return entry;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "conformance-v2-"));
  corpus = join(scratch, "corpus");
  const setDir = join(corpus, "v2", "mini");
  mkdirSync(setDir, { recursive: true });
  const cases = [];
  for (const c of CASES) cases.push(await buildCase(setDir, c));
  writeFileSync(join(setDir, "manifest.json"), JSON.stringify({ format: "test corpus v2", cases }, null, 1));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(mode: string, options: Partial<SuiteOptions> = {}) {
  return runSuite({ adapter: adapter(mode), corpus, jobs: 4, timeoutMs: 30_000, ...options });
}
/** `operation case STATUS: detail` of every result that is not PASS, sorted. */
function notPassed(results: CaseResult[]): string[] {
  return results
    .filter((r) => r.status !== "PASS")
    .map((r) => `${r.operation ?? "read"} ${r.name} ${r.status}: ${r.detail}`)
    .sort();
}

describe("the test corpus", () => {
  it("the fake writes v2.md §8.1's worked example byte for byte (superchunk and meta/storage)", () => {
    const spec = readFileSync(join(root, "spec/v2.md"), "utf8");
    const block = /```hex superchunk-dataset\n([\s\S]*?)```/.exec(spec)![1]!;
    const bytes = Buffer.from(
      block
        .split("\n")
        .flatMap((line) => line.replace(/^[0-9A-F]{4}: /, "").match(/^(?:[0-9A-F]{2} )*[0-9A-F]{2}(?= |$)/)?.[0].split(" ") ?? [])
        .map((h) => parseInt(h, 16)),
    );
    expect(bytes.length).toBe(160);
    const dataset = join(corpus, "v2/mini/carray_i4_spec_example/data.bcolz");
    expect(readFileSync(join(dataset, "data/__1__.bin")).equals(bytes)).toBe(true);
    const storage = /^meta\/storage {2}(\{.*\})$/m.exec(spec)![1]!;
    expect(readFileSync(join(dataset, "meta/storage"), "utf8")).toBe(`${storage}\n`);
  });

  it("the write case of a v2 set carries format 2, the §10.1 keys of each array and a vlarray's vtype", async () => {
    const manifest = JSON.parse(readFileSync(join(corpus, "v2/mini/manifest.json"), "utf8")) as { cases: Record<string, unknown>[] };
    const dir = join(scratch, "write-case");
    const vlCase = JSON.parse(readFileSync(await buildWriteCase(manifest.cases[2]!, join(corpus, "v2/mini"), dir, 2), "utf8")) as Record<string, unknown>;
    expect(vlCase).toMatchObject({ format: 2, kind: "vlarray", vtype: "utf8", dtype: "vl:utf8", shape: [3], superchunksize: 2, checksum: "adler32", spare: 10, attrs: { lang: "fr" } });
    expect(readFileSync(join(dir, "values.bin")).equals(utf8("ab", "", "héllo"))).toBe(true);
    const table = JSON.parse(readFileSync(await buildWriteCase(manifest.cases[3]!, join(corpus, "v2/mini"), dir, 2), "utf8")) as { columns: Record<string, unknown>[] };
    expect(table).toMatchObject({ format: 2, kind: "ctable", attrs: { source: "test" } });
    expect(table.columns.map((c) => [c.name, c.vtype, c.superchunksize, c.values])).toEqual([
      ["id", undefined, 2, "col-0.bin"],
      ["sym", "utf8", 2, "col-1.bin"],
      ["r", "ragged", 2, "col-2.bin"],
    ]);
  });

  it("a meta/storage whose dflt is NaN still gives its §10.1 keys, and dflt keeps its spelling", async () => {
    const set = join(scratch, "nan-set");
    mkdirSync(join(set, "c/data.bcolz/meta"), { recursive: true });
    mkdirSync(join(set, "c/expected"), { recursive: true });
    writeFileSync(join(set, "c/expected/values.bin"), f8(Number.NaN));
    writeFileSync(join(set, "c/data.bcolz/__attrs__"), '{"scale": 2.0}\n');
    writeFileSync(
      join(set, "c/data.bcolz/meta/storage"),
      '{"format_version": 2, "kind": "carray", "dtype": "<f8", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 4, "superchunksize": 8, "checksum": "crc32", "spare": 0, "expectedlen": 1, "dflt": NaN}\n',
    );
    const raw = { name: "c", kind: "carray", dtype: "<f8", shape: [1], chunklen: 4, cparams: LZ4, expectedlen: 1 };
    const text = readFileSync(await buildWriteCase(raw, set, join(scratch, "nan-case"), 2), "utf8");
    expect(text).toContain('"superchunksize": 8, "checksum": "crc32", "spare": 0, "dflt": "NaN"');
    expect(text).toContain('"attrs": {"scale": 2.0}');
  });
});

describe("format-2 read cases", () => {
  it("control: the fake passes every read case and every write check (in set, then manifest order)", async () => {
    const { results } = await run("good");
    expect(notPassed(results)).toEqual([]);
    expect(results.map((r) => `${r.operation} ${r.name}`)).toEqual([
      "read carray_i4_spec_example",
      "read carray_f8_two_superchunks",
      "read vlarray_utf8",
      "read ctable_mixed",
      "write carray_i4_spec_example",
      "write carray_f8_two_superchunks",
      "write vlarray_utf8",
      "write ctable_mixed",
    ]);
    expect(results.find((r) => r.name === "carray_f8_two_superchunks" && r.operation === "write")!.detail).toMatch(/^metadata and values match \(produced by append 4/);
  });

  it("format is compared when the manifest gives it, and only then", async () => {
    const { results } = await run("format-1", { only: "read" });
    expect(notPassed(results)).toEqual([
      "read carray_f8_two_superchunks FAIL: format: got 1, expected 2",
      "read carray_i4_spec_example FAIL: format: got 1, expected 2",
      "read vlarray_utf8 FAIL: format: got 1, expected 2",
    ]);
  });

  it("a vlarray's dtype spelling is compared, alone and as a ctable column", async () => {
    const { results } = await run("vl-dtype", { only: "read" });
    expect(notPassed(results)).toEqual([
      expect.stringMatching(/^read ctable_mixed FAIL: dtype: got \[\["id","<i8"\],\["sym","vl:bytes"\],\["r","vl:<i2"\]\], expected .*; columns\[1\]\.dtype: got "vl:bytes", expected "vl:utf8"$/),
      'read vlarray_utf8 FAIL: dtype: got "vl:bytes", expected "vl:utf8"',
    ]);
  });

  it("a vlarray's value file is compared by length and SHA-256, alone and as a ctable column", async () => {
    const { results } = await run("vl-values", { only: "read" });
    expect(notPassed(results)).toEqual([
      "read ctable_mixed FAIL: col-1.bin (sym): 47 bytes, sha256 differs from expected (47 bytes); col-2.bin (r): 54 bytes, sha256 differs from expected (54 bytes)",
      "read vlarray_utf8 FAIL: values.bin: 32 bytes, sha256 differs from expected (32 bytes)",
    ]);
  });
});

describe("format selection", () => {
  it("an adapter without format 2 in info: every v2 case, read and write, is SKIP with the reason", async () => {
    const { results } = await run("v1-only");
    expect(results).toHaveLength(8);
    expect(new Set(results.map((r) => `${r.status}: ${r.detail}`))).toEqual(new Set(["SKIP: adapter info does not list format 2"]));
    expect(totalsLine(results)).toBe("0 passed, 0 failed, 8 skipped");
  });

  it("a read-only adapter: v2 reads run, v2 write checks are SKIP", async () => {
    const { results } = await run("read-only");
    expect(notPassed(results)).toEqual([
      "write carray_f8_two_superchunks SKIP: adapter info does not list the write operation",
      "write carray_i4_spec_example SKIP: adapter info does not list the write operation",
      "write ctable_mixed SKIP: adapter info does not list the write operation",
      "write vlarray_utf8 SKIP: adapter info does not list the write operation",
    ]);
    expect(totalsLine(results)).toBe("4 passed, 0 failed, 4 skipped");
  });

  it("--format 1 leaves the v2 cases out of the run altogether", async () => {
    mkdirSync(join(corpus, "v1"), { recursive: true });
    const { results } = await run("good", { formats: [1] });
    rmSync(join(corpus, "v1"), { recursive: true });
    expect(results).toEqual([]);
  });
});

describe("the format-2 write check", () => {
  const writeFailures = async (mode: string): Promise<string[]> => notPassed((await run(mode, { only: "write" })).results);

  it("last-chunk (header bytes 12-15) and spare room are not compared", async () => {
    expect(await writeFailures("last-chunk")).toEqual([]);
    expect(await writeFailures("no-spare")).toEqual([]);
  });

  it("every other header field is compared, in every superchunk of every array", async () => {
    const failed = await writeFailures("typesize");
    expect(failed).toEqual([
      expect.stringMatching(/^write carray_f8_two_superchunks FAIL: data\/__1__\.bin: header typesize 01 vs 08; data\/__2__\.bin: header typesize 01 vs 08$/),
      expect.stringMatching(/^write carray_i4_spec_example FAIL: data\/__1__\.bin: header typesize 01 vs 04$/),
      expect.stringMatching(/^write ctable_mixed FAIL: data\/id\/data\/__1__\.bin: header typesize 01 vs 08; .*data\/sym\/offsets\/data\/__1__\.bin: header typesize 01 vs 08; .*data\/r\/values\/data\/__1__\.bin: header typesize 01 vs 02/),
      // values/ is |u1: typesize 1 is right there
      "write vlarray_utf8 FAIL: offsets/data/__1__.bin: header typesize 01 vs 08",
    ]);
  });

  it("the metadata section is compared byte for byte", async () => {
    const failed = await writeFailures("meta-section");
    expect(failed).toHaveLength(4);
    expect(failed[1]).toBe('write carray_i4_spec_example FAIL: data/__1__.bin: metadata section "{\\"first_chunk\\": 0, \\"capacity\\": 4}       " vs "{\\"capacity\\": 4, \\"first_chunk\\": 0}       "');
  });

  it("meta/storage and meta/shape are compared byte for byte, also inside vlarrays", async () => {
    const storage = await writeFailures("storage-order");
    expect(storage).toHaveLength(4);
    expect(storage[1]).toMatch(/^write carray_i4_spec_example FAIL: meta\/storage differs: "\{\\"kind\\": \\"carray\\", \\"format_version\\": 2/);
    expect(storage[3]).toMatch(/^write vlarray_utf8 FAIL: offsets\/meta\/storage differs: .*; values\/meta\/storage differs: /);
    const shape = await writeFailures("shape-spelling");
    expect(shape[2]).toMatch(/^write ctable_mixed FAIL: data\/id\/meta\/shape differs: "\{\\"shape\\":\[5\]\}\\n" vs "\{\\"shape\\": \[5\]\}\\n"; data\/sym\/offsets\/meta\/shape differs/);
    const vlStorage = await writeFailures("vl-storage");
    expect(vlStorage).toEqual([
      expect.stringMatching(/^write ctable_mixed FAIL: data\/sym\/meta\/storage differs: .*; data\/r\/meta\/storage differs: /),
      expect.stringMatching(/^write vlarray_utf8 FAIL: meta\/storage differs: "\{\\"format_version\\": 2, \\"kind\\": \\"vlarray\\", \\"vtype\\": \\"utf8\\" \}\\n" vs /),
    ]);
  });

  it("the layout: a lock, an update's .next file, a v1 meta/sizes, a temporary in a vlarray fail the case, even when the file set is exempt", async () => {
    const lock = await writeFailures("lock");
    expect(lock).toHaveLength(4);
    for (const line of lock) expect(line).toMatch(/FAIL: files outside the format-2 layout \(v2\.md §10\.5, §11, §12\): /);
    expect(lock[0]).toMatch(/^write carray_f8_two_superchunks FAIL: files outside the format-2 layout \(v2\.md §10\.5, §11, §12\): \.lock, data\/__1__\.bin\.0\.next$/);
    expect(lock[3]).toMatch(/\): offsets\/\.lock, offsets\/data\/__1__\.bin\.0\.next, values\/\.lock, values\/data\/__1__\.bin\.0\.next; files \[/);
    expect((await writeFailures("v1-files"))[1]).toMatch(/^write carray_i4_spec_example FAIL: files outside the format-2 layout \(v2\.md §10\.5, §11, §12\): meta\/sizes; files \[/);
    expect(await writeFailures("vl-stray")).toEqual([
      expect.stringMatching(/^write ctable_mixed FAIL: files outside the format-2 layout \(.*\): data\/r\/values\/data\/__1__\.bin\.tmp, data\/sym\/values\/data\/__1__\.bin\.tmp; files \[/),
      expect.stringMatching(/^write vlarray_utf8 FAIL: files outside the format-2 layout \(.*\): values\/data\/__1__\.bin\.tmp; files \[/),
    ]);
  });

  it("the file set is compared with the manifest's files, except for cases produced by later operations", async () => {
    const failed = await writeFailures("extra-superchunk");
    expect(failed).toHaveLength(3);
    expect(failed[0]).toMatch(/^write carray_i4_spec_example FAIL: files \["__attrs__","data\/__1__\.bin","data\/__2__\.bin","meta\/shape","meta\/storage"\] vs the corpus \["__attrs__","data\/__1__\.bin","meta\/shape","meta\/storage"\]$/);
    const { results } = await run("extra-superchunk", { only: "write", filters: ["*two_superchunks"] });
    expect(results[0]).toMatchObject({ status: "PASS", detail: expect.stringMatching(/produced by append 4/) as unknown });
  });

  it("the written dataset is read back through the adapter and compared with the expected values", async () => {
    expect(await writeFailures("wrong-values")).toEqual([
      "write carray_f8_two_superchunks FAIL: values read back differ from the corpus's",
      "write carray_i4_spec_example FAIL: values read back differ from the corpus's",
      "write ctable_mixed FAIL: column id read back differs; column sym read back differs; column r read back differs",
      "write vlarray_utf8 FAIL: values read back differ from the corpus's",
    ]);
  });
});
