// End-to-end tests of the `bcolz-ts` bin on corpus datasets: the built bin is spawned as a user
// would run it, and its output is checked against the corpus's expected values and manifests.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkgDir, "../..");
const bin = join(pkgDir, "dist/bin.js");
const real = join(repo, "conformance/corpus/v1/bcolz-real");
const broken = join(repo, "conformance/corpus/v1/bcolz-broken");
const data = (name: string): string => join(real, name, "data.bcolz");
const tmp = mkdtempSync(join(tmpdir(), "cli-e2e-"));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(...args: string[]): Run {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");
const jsonLines = (text: string): unknown[] => lines(text).map((l) => JSON.parse(l) as unknown);

function expectedBytes(name: string, file: string): Uint8Array {
  const buf = readFileSync(join(real, name, "expected", file));
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
const int32s = (b: Uint8Array): number[] => Array.from(new Int32Array(b.slice().buffer));
const float64s = (b: Uint8Array): number[] => Array.from(new Float64Array(b.slice().buffer));
function byteStrings(b: Uint8Array, size: number): string[] {
  const out: string[] = [];
  // The CLI's documented display: trailing NULs dropped, other bytes outside printable ASCII
  // (and the backslash) as \xNN.
  const show = (c: number): string => (c >= 0x20 && c <= 0x7e && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`);
  for (let i = 0; i < b.length; i += size) {
    let row = Array.from(b.subarray(i, i + size));
    while (row.length > 0 && row[row.length - 1] === 0) row = row.slice(0, -1);
    out.push(row.map(show).join(""));
  }
  return out;
}

interface RealCase {
  name: string;
  dtype: string;
  shape: number[];
  chunklen: number;
  cparams: { clevel: number; shuffle: number; cname: string };
  sizes: { nbytes: number; cbytes: number };
}
const realManifest = JSON.parse(readFileSync(join(real, "manifest.json"), "utf8")) as { cases: RealCase[] };
const realCase = (name: string): RealCase => realManifest.cases.find((c) => c.name === name)!;

beforeAll(() => {
  // The tests run the bin as shipped: compile it (incremental, quick when up to date).
  execFileSync(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-b", pkgDir], { stdio: "inherit" });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("bcolz-ts: help, version, usage errors", () => {
  it.each(["info", "cat", "head", "validate", "where", "unlock"])("%s --help prints usage and the exit codes, exit 0", (cmd) => {
    const r = run(cmd, "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: bcolz-ts ${cmd}`);
    if (cmd !== "unlock") expect(r.stdout).toContain("Exit codes:");
  });

  it("--version prints the package version", () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string };
    const r = run("--version");
    expect([r.code, r.stdout.trim()]).toEqual([0, pkg.version]);
  });

  it.each([
    [["cat", data("carray_i4_n5000_cl1024"), "abc"], "abc"],
    [["cat", data("carray_i4_n5000_cl1024"), "--step", "0"], "step"],
    [["cat", data("carray_i4_n5000_cl1024"), "--step", "-2"], "step"],
    [["cat", data("carray_i4_n5000_cl1024"), "--start", "1.5"], "1.5"],
    [["head", data("carray_i4_n5000_cl1024"), "-n", "-1"], "-1"],
    [["info"], "dir"],
    [["frobnicate"], "frobnicate"],
    [["cat", data("carray_i4_n5000_cl1024"), "--bogus"], "--bogus"],
  ])("%j → one-line message, exit 2, nothing on stdout", (args, mention) => {
    const r = run(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(lines(r.stderr)[0]).toMatch(/^error: /);
    expect(r.stderr).toContain(mention);
  });

  it("a missing dataset is a format error: exit 3 with its code", () => {
    const r = run("info", join(tmp, "nothing-here"));
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error [A-Z_]+: /);
  });
});

describe("bcolz-ts info", () => {
  it("describes a carray as the manifest does", () => {
    const c = realCase("carray_i4_n5000_cl1024");
    const r = run("info", data(c.name), "--json");
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout) as { kind: string; length: number; cbytes: number; nbytes: number; arrays: Record<string, unknown>[] };
    expect([info.kind, info.length, info.nbytes, info.cbytes]).toEqual(["carray", c.shape[0], c.sizes.nbytes, c.sizes.cbytes]);
    const a = info.arrays[0]!;
    expect(a).toMatchObject({ formatVersion: 1, dtype: c.dtype, shape: c.shape, chunklen: c.chunklen, nchunks: Math.ceil(c.shape[0]! / c.chunklen), cname: c.cparams.cname, clevel: c.cparams.clevel, shuffle: c.cparams.shuffle });
    expect(a["ratio"]).toBeCloseTo(c.sizes.nbytes / c.sizes.cbytes, 10);
    const text = run("info", data(c.name));
    expect(text.stdout).toMatch(/^kind: +carray$/m);
    expect(text.stdout).toMatch(new RegExp(`^chunklen: +${c.chunklen}$`, "m"));
  });

  it("lists every column of a ctable in a table", () => {
    const r = run("info", data("blosc114_ctable_mixed"));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kind: +ctable$/m);
    expect(r.stdout).toMatch(/^name +dtype +shape +chunklen/m);
    for (const [name, dtype] of [["i", "<i4"], ["f", "<f8"], ["s", "|S5"]] as const) expect(r.stdout).toMatch(new RegExp(`^${name} +${dtype.replace("|", "\\|")} +\\(2500\\)`, "m"));
  });
});

describe("bcolz-ts cat / head", () => {
  const i4 = int32s(expectedBytes("carray_i4_n5000_cl1024", "values.bin"));

  it("cat --json prints every value of a carray", () => {
    const r = run("cat", data("carray_i4_n5000_cl1024"), "--json");
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual(i4);
  });

  it("cat of 60,000 float64 rows equals the expected values exactly", () => {
    const r = run("cat", data("autochunk_f8_n60000"), "--json");
    expect(r.code).toBe(0);
    // Strict JSON: non-finite floats are printed as the strings "NaN", "Infinity", "-Infinity".
    const strict = (v: number): number | string => (Number.isNaN(v) ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : v);
    const want = float64s(expectedBytes("autochunk_f8_n60000", "values.bin"));
    expect(want.some((v) => !Number.isFinite(v))).toBe(true);
    expect(jsonLines(r.stdout)).toEqual(want.map(strict));
  });

  it("float32 values print as the shortest decimal that reads back as the same float32", () => {
    const b = expectedBytes("carray_f4_n4800_cl1100", "values.bin");
    const want = Array.from(new Float32Array(b.slice().buffer));
    const got = lines(run("cat", data("carray_f4_n4800_cl1100"), "--json").stdout);
    expect(got).toHaveLength(want.length);
    got.forEach((text, k) => {
      const v = JSON.parse(text) as number | string;
      const w = want[k]!;
      if (Number.isFinite(w)) {
        expect(Math.fround(v as number)).toBe(w);
        expect(text.replace(/^-|e.*$/g, "").replace(".", "").replace(/^0+/, "").length).toBeLessThanOrEqual(9);
      } else expect(v).toBe(Number.isNaN(w) ? "NaN" : w > 0 ? "Infinity" : "-Infinity");
    });
    expect(got.some((t) => t.length < String(want[got.indexOf(t)]).length)).toBe(true);
  });

  it("slices follow Python semantics: cat DIR -3 is the last three rows", () => {
    expect(lines(run("cat", data("carray_i4_n5000_cl1024"), "-3").stdout)).toEqual(i4.slice(-3).map(String));
    expect(lines(run("cat", data("carray_i4_n5000_cl1024"), "--start=-3").stdout)).toEqual(i4.slice(-3).map(String));
    expect(lines(run("cat", data("carray_i4_n5000_cl1024"), "10", "20").stdout)).toEqual(i4.slice(10, 20).map(String));
    expect(lines(run("cat", data("carray_i4_n5000_cl1024"), "--stop=-4990").stdout)).toEqual(i4.slice(0, 10).map(String));
    expect(run("cat", data("carray_i4_n5000_cl1024"), "--start", "6000").stdout).toBe("");
  });

  it("--step selects every n-th row across chunk boundaries", () => {
    const r = run("cat", data("carray_i4_n5000_cl1024"), "--start", "100", "--stop", "4000", "--step", "37", "--json");
    expect(jsonLines(r.stdout)).toEqual(i4.filter((_, k) => k >= 100 && k < 4000 && (k - 100) % 37 === 0));
  });

  it("head -n prints the first rows of a ctable, as JSON objects with every column", () => {
    const name = "blosc114_ctable_mixed";
    const r = run("head", data(name), "-n", "5", "--json");
    expect(r.code).toBe(0);
    const i = int32s(expectedBytes(name, "i.bin"));
    const f = float64s(expectedBytes(name, "f.bin"));
    const s = byteStrings(expectedBytes(name, "s.bin"), 5);
    expect(jsonLines(r.stdout)).toEqual([0, 1, 2, 3, 4].map((k) => ({ i: i[k], f: f[k], s: s[k] })));
    expect(lines(run("head", data(name)).stdout)).toHaveLength(10);
  });

  it("prints a whole ctable as tab-separated text, --columns chooses and orders columns", () => {
    const name = "blosc114_ctable_mixed";
    const i = int32s(expectedBytes(name, "i.bin"));
    const s = byteStrings(expectedBytes(name, "s.bin"), 5);
    const r = run("cat", data(name), "--columns", "s,i");
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(i.map((v, k) => `${s[k]}\t${v}`));
  });

  it("a closed pipe (| head -1) ends quietly with exit 0", () => {
    const script = `"${process.execPath}" "${bin}" cat "${data("bigchunk_f8_randwalk_cl40000")}"; echo "rc=$?" >&2`;
    const r = spawnSync("sh", ["-c", `(${script}) | head -1`], { encoding: "utf8" });
    expect(lines(r.stdout)).toHaveLength(1);
    expect(r.stderr).toBe("rc=0\n");
  });
});

describe("bcolz-ts validate", () => {
  interface BrokenCase {
    name: string;
    rootdir: string;
    category: string;
    expect?: { error?: string };
    rules?: string[];
  }
  const cases = (JSON.parse(readFileSync(join(broken, "manifest.json"), "utf8")) as { cases: BrokenCase[] }).cases;
  // v1-16-3 is the per-call read allowance (spec/conformance.md §1.2): a bound on one read, not a
  // defect of the dataset, so validate (which holds one chunk at a time) judges those files instead.
  const callLimit = (c: BrokenCase): boolean => c.rules?.includes("v1-16-3") === true;
  const bad = cases.filter((c) => c.expect?.error !== undefined && !callLimit(c));
  const good = cases.filter((c) => c.category === "valid");

  it("the corpus has both broken and valid cases to check", () => {
    expect(bad.length).toBeGreaterThan(10);
    expect(good.length).toBeGreaterThan(0);
  });

  it.each(bad.map((c) => [c.name, c] as const))("%s: reports the expected error code, exit 3", (_, c) => {
    const r = run("validate", join(broken, c.name, c.rootdir), "--json");
    expect(r.code).toBe(3);
    const report = JSON.parse(r.stdout) as { ok: boolean; problems: { code: string }[] };
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.code)).toContain(c.expect!.error);
  });

  it("a length claim far past the chunk files: the missing files are one problem, not one line each", () => {
    const c = cases.find(callLimit)!;
    expect(c.name).toBe("sizes_over_read_allowance");
    const r = run("validate", join(broken, c.name, c.rootdir));
    expect(r.code).toBe(3);
    const lines = r.stdout.trim().split("\n");
    expect(lines.length).toBeLessThan(5);
    expect(r.stdout).toContain("problem MISSING_FILE");
    expect(r.stdout).toMatch(/the files of chunks 5 to 585937 are missing \(585,933 chunks, data\/__5\.blp to data\/__585937\.blp\)/);
  });

  it.each(good.map((c) => [c.name, c] as const))("%s: valid, exit 0", (_, c) => {
    const r = run("validate", join(broken, c.name, c.rootdir));
    expect([r.code, r.stdout]).toEqual([0, expect.stringMatching(/^ok: /)]);
  });

  it("reports every broken chunk, not only the first", () => {
    const dir = join(tmp, "two-bad-chunks");
    cpSync(data("carray_i4_n5000_cl1024"), dir, { recursive: true });
    writeFileSync(join(dir, "data/__1.blp"), "not a chunk");
    const chunk3 = readFileSync(join(dir, "data/__3.blp"));
    chunk3[0] = 0x78; // break the blpk magic
    writeFileSync(join(dir, "data/__3.blp"), chunk3);
    const r = run("validate", dir, "--json");
    expect(r.code).toBe(3);
    const report = JSON.parse(r.stdout) as { problems: { code: string; path: string }[]; chunksOk: number };
    expect(report.problems.map((p) => p.path)).toEqual(["data/__1.blp", "data/__3.blp"]);
    expect(report.chunksOk).toBe(3);
    const text = run("validate", dir);
    expect(lines(text.stdout).filter((l) => l.startsWith("problem "))).toHaveLength(2);
    expect(text.stdout).toMatch(/^invalid: 2 problem\(s\)/m);
  });

  it("shows a progress bar in a terminal (a pty through script(1)), none when piped", () => {
    const dir = data("bigchunk_f8_randwalk_cl40000");
    const tty = spawnSync("script", ["-qec", `"${process.execPath}" "${bin}" validate "${dir}"`, "/dev/null"], { encoding: "utf8" });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain("validating [");
    expect(tty.stdout).toContain("3/3");
    expect(tty.stdout).toContain("ok: carray, 1 array(s), 3 chunk(s) decoded");
    const piped = run("validate", dir);
    expect([piped.stdout, piped.stderr]).toEqual(["ok: carray, 1 array(s), 3 chunk(s) decoded\n", ""]);
    const off = spawnSync("script", ["-qec", `"${process.execPath}" "${bin}" validate --no-progress "${dir}"`, "/dev/null"], { encoding: "utf8" });
    expect(off.stdout).not.toContain("validating [");
  });

  it("a real ctable is valid", () => {
    const r = run("validate", data("blosc114_ctable_mixed"));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ok: ctable, 3 array(s), 12 chunk(s) decoded\n");
  });
});

describe("bcolz-ts where", () => {
  const name = "blosc114_ctable_mixed";
  const i = int32s(expectedBytes(name, "i.bin"));
  const f = float64s(expectedBytes(name, "f.bin"));
  const s = byteStrings(expectedBytes(name, "s.bin"), 5);
  const hits = i.map((v, k) => (v > 5 && f[k]! < 9 ? k : -1)).filter((k) => k >= 0);

  it("--count counts the matches", () => {
    const r = run("where", data(name), "i > 5 & f < 9", "--count");
    expect([r.code, r.stdout]).toEqual([0, `${hits.length}\n`]);
  });

  it("prints the matching rows with their row numbers, --columns and --limit apply", () => {
    const r = run("where", data(name), "i > 5 & f < 9", "--columns", "s,i", "--limit", "7");
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(hits.slice(0, 7).map((k) => `${k}\t${s[k]}\t${i[k]}`));
    const json = run("where", data(name), "i > 5 & f < 9", "--json");
    expect(jsonLines(json.stdout)).toEqual(hits.map((k) => ({ _row: k, i: i[k], f: f[k], s: s[k] })));
  });

  it("a bad expression or a carray is a usage error (exit 2, code printed)", () => {
    const r = run("where", data(name), "i >> 5");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error INVALID_ARGUMENT: /);
    expect(run("where", data("carray_i4_n5000_cl1024"), "x > 1").code).toBe(2);
  });
});

describe("bcolz-ts export", () => {
  /** Splits a .npy file into its header dictionary text and its data bytes. */
  function readNpy(path: string): { header: string; body: Uint8Array } {
    const buf = new Uint8Array(readFileSync(path));
    expect(Array.from(buf.subarray(0, 8))).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    const len = buf[8]! | (buf[9]! << 8);
    expect((10 + len) % 64).toBe(0);
    return { header: Buffer.from(buf.subarray(10, 10 + len)).toString("latin1"), body: buf.subarray(10 + len) };
  }

  it("a carray to .npy: header with dtype and shape, then exactly the expected bytes", () => {
    const out = join(tmp, "a.npy");
    const r = run("export", data("carray_i4_n5000_cl1024"), "--to", out);
    expect(r.code).toBe(0);
    const { header, body } = readNpy(out);
    expect(header).toMatch(/^\{'descr': '<i4', 'fortran_order': False, 'shape': \(5000,\), \} *\n$/);
    expect(Buffer.from(body).equals(Buffer.from(expectedBytes("carray_i4_n5000_cl1024", "values.bin")))).toBe(true);
    expect(run("export", data("carray_i4_n5000_cl1024"), "--to", out).code).toBe(2); // exists
    expect(run("export", data("carray_i4_n5000_cl1024"), "--to", out, "--force").code).toBe(0);
  });

  it("a ctable to .npy is a structured array whose records interleave the columns", () => {
    const name = "blosc114_ctable_mixed";
    const out = join(tmp, "t.npy");
    expect(run("export", data(name), "--to", out).code).toBe(0);
    const { header, body } = readNpy(out);
    expect(header).toContain("'descr': [('i', '<i4'), ('f', '<f8'), ('s', '|S5')], 'fortran_order': False, 'shape': (2500,)");
    const [i, f, s] = ["i.bin", "f.bin", "s.bin"].map((file) => expectedBytes(name, file));
    expect(body.length).toBe(2500 * 17);
    for (const k of [0, 1, 699, 700, 2499]) {
      expect(Array.from(body.subarray(k * 17, k * 17 + 4))).toEqual(Array.from(i!.subarray(k * 4, k * 4 + 4)));
      expect(Array.from(body.subarray(k * 17 + 4, k * 17 + 12))).toEqual(Array.from(f!.subarray(k * 8, k * 8 + 8)));
      expect(Array.from(body.subarray(k * 17 + 12, k * 17 + 17))).toEqual(Array.from(s!.subarray(k * 5, k * 5 + 5)));
    }
  });

  it("CSV has a typed header (name:dtype) and the cat text values; JSON lines equal cat --json", () => {
    const name = "blosc114_ctable_mixed";
    const csv = join(tmp, "t.csv");
    const jsonl = join(tmp, "t.jsonl");
    expect(run("export", data(name), "--to", csv, "--columns", "i,s").code).toBe(0);
    const i = int32s(expectedBytes(name, "i.bin"));
    const s = byteStrings(expectedBytes(name, "s.bin"), 5);
    const quote = (t: string): string => (/[",]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t);
    expect(lines(readFileSync(csv, "utf8"))).toEqual(["i:<i4,s:|S5", ...i.map((v, k) => `${v},${quote(s[k]!)}`)]);
    expect(run("export", data(name), "--to", jsonl).code).toBe(0);
    expect(readFileSync(jsonl, "utf8")).toBe(run("cat", data(name), "--json").stdout);
  });

  it("an unknown extension is a usage error", () => {
    const r = run("export", data("carray_i4_n5000_cl1024"), "--to", join(tmp, "a.txt"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(".npy, .csv or .jsonl");
  });
});

describe("bcolz-ts import", () => {
  it("a ctable round trip export .npy → import (chunklen, cparams) → cat keeps every value", () => {
    const name = "blosc114_ctable_mixed";
    const npy = join(tmp, "rt.npy");
    const dir = join(tmp, "rt.bcolz");
    expect(run("export", data(name), "--to", npy).code).toBe(0);
    const r = run("import", npy, dir, "--chunklen", "300", "--cname", "zstd", "--clevel", "7", "--shuffle", "2");
    expect(r.code).toBe(0);
    const info = JSON.parse(run("info", dir, "--json").stdout) as { kind: string; length: number; arrays: Record<string, unknown>[] };
    expect([info.kind, info.length]).toEqual(["ctable", 2500]);
    for (const a of info.arrays) expect(a).toMatchObject({ chunklen: 300, cname: "zstd", clevel: 7, shuffle: 2 });
    expect(info.arrays.map((a) => [a["name"], a["dtype"]])).toEqual([["i", "<i4"], ["f", "<f8"], ["s", "|S5"]]);
    expect(run("cat", dir, "--json").stdout).toBe(run("cat", data(name), "--json").stdout);
    expect(run("validate", dir).code).toBe(0);
  });

  it("a carray round trip through .npy keeps the bytes", () => {
    const src = join(tmp, "rt-a.npy");
    const dir = join(tmp, "rt-a.bcolz");
    const back = join(tmp, "rt-a2.npy");
    expect(run("export", data("carray_f8_n6000_cl1600"), "--to", src).code).toBe(0);
    expect(run("import", src, dir, "--chunklen", "1000").code).toBe(0);
    expect(run("export", dir, "--to", back).code).toBe(0);
    expect(readFileSync(back).equals(readFileSync(src))).toBe(true);
    const again = run("import", src, dir);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/^error ALREADY_EXISTS: .*--force/);
    expect(run("import", src, dir, "--force", "--cname", "zlib").code).toBe(0);
  });

  it("a CSV with a header becomes a ctable with int64, float64, bool and string columns", () => {
    const csv = join(tmp, "small.csv");
    writeFileSync(csv, 'id,price,flag,name\n1,2.5,True,"a, b"\n-7,1e3,False,"say ""hi"""\n9007199254740993,-0.25,True,plain\n');
    const dir = join(tmp, "small.bcolz");
    expect(run("import", csv, dir).code).toBe(0);
    const info = JSON.parse(run("info", dir, "--json").stdout) as { arrays: Record<string, unknown>[] };
    expect(info.arrays.map((a) => a["dtype"])).toEqual(["<i8", "<f8", "|b1", "<U8"]);
    expect(jsonLines(run("cat", dir, "--json").stdout)).toEqual([
      { id: 1, price: 2.5, flag: true, name: "a, b" },
      { id: -7, price: 1000, flag: false, name: 'say "hi"' },
      { id: 2 ** 53 + 1, price: -0.25, flag: true, name: "plain" },
    ]);
    expect(run("cat", dir, "--json").stdout.split("\n")[2]).toContain('"id":9007199254740993');
  });

  it("bad options and inputs are usage errors", () => {
    const csv = join(tmp, "ragged.csv");
    writeFileSync(csv, "a,b\n1,2\n3\n");
    expect(run("import", csv, join(tmp, "ragged.bcolz")).code).toBe(2);
    expect(run("import", csv, join(tmp, "x.bcolz"), "--clevel", "12").code).toBe(2);
    expect(run("import", csv, join(tmp, "x.bcolz"), "--cname", "gzip").code).toBe(2);
    expect(run("import", join(tmp, "x.txt"), join(tmp, "x.bcolz")).code).toBe(2);
  });
});
