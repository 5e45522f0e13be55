// The runner's pure parts: filters, known-failures files, the checks on what an adapter wrote,
// crash lines, the totals line and the command-line checks that need no adapter run.
import { describe, expect, it } from "vitest";
import {
  applyKnownFailures,
  crashDetail,
  describeTreeChanges,
  globMatcher,
  parseCommandLine,
  parseKnownFailures,
  strayFiles,
  strayFilesV2,
  superchunkDifference,
  totalsLine,
  type CaseResult,
} from "../src/index.js";

const result = (name: string, status: CaseResult["status"], operation: "read" | "write" = "read"): CaseResult => ({
  set: "s",
  name,
  category: "valid",
  operation,
  status,
  detail: "why",
  ms: 1,
});

describe("globMatcher", () => {
  it("* spans any characters, ? one; a plain pattern is a substring", () => {
    expect(globMatcher("bcolz-real/*ctable*")("bcolz-real/blosc114_ctable_mixed")).toBe(true);
    expect(globMatcher("bcolz-real/*ctable*")("bcolz-broken/ctable_names_empty")).toBe(false);
    expect(globMatcher("*/edge_f8_len?")("bcolz-real/edge_f8_len0")).toBe(true);
    expect(globMatcher("*/edge_f8_len?")("bcolz-real/edge_f8_len10")).toBe(false);
    expect(globMatcher("broken/")("bcolz-broken/blpk_bad_magic")).toBe(true);
    expect(globMatcher("a.b")("axb")).toBe(false);
  });
});

describe("known-failures files", () => {
  it("plain text: one case a line, an optional operation, comments and blank lines", () => {
    expect(parseKnownFailures("# why\n\nset/a  # trailing\nwrite set/b\nread set/c\n", "k.txt")).toEqual([
      { operation: "read", id: "set/a" },
      { operation: "write", id: "set/b" },
      { operation: "read", id: "set/c" },
    ]);
    expect(parseKnownFailures("where where/i4_mul_wrap\n", "k.txt")).toEqual([{ operation: "where", id: "where/i4_mul_wrap" }]);
  });

  it("Markdown: only the headings naming a case in a code span", () => {
    const md = "# Known failures\n\nProse with set/x in it.\n\n## `bcolz-broken/attrs_duplicate_key`\n\nspec §9.2 is unclear.\n";
    expect(parseKnownFailures(md, "KNOWN-FAILURES.md")).toEqual([{ operation: "read", id: "bcolz-broken/attrs_duplicate_key" }]);
  });

  it("an unreadable line is an error naming it", () => {
    expect(() => parseKnownFailures("set/a set/b\n", "k.txt")).toThrow(/k\.txt: cannot read the line "set\/a set\/b"/);
  });

  it("failures become KNOWN, passes become stale FAILs, skips stay, unmatched entries are returned", () => {
    const { results, unmatched } = applyKnownFailures(
      [result("f", "FAIL"), result("c", "CRASH"), result("p", "PASS"), result("k", "SKIP"), result("w", "FAIL", "write")],
      [
        { operation: "read", id: "s/f" },
        { operation: "read", id: "s/c" },
        { operation: "read", id: "s/p" },
        { operation: "read", id: "s/k" },
        { operation: "read", id: "s/w" },
      ],
    );
    expect(results.map((r) => `${r.name} ${r.status}`)).toEqual(["f KNOWN", "c KNOWN", "p FAIL", "k SKIP", "w FAIL"]);
    expect(results[1]!.detail).toBe("known failure (CRASH): why");
    expect(unmatched.map((k) => k.id)).toEqual(["s/k", "s/w"]);
  });
});

describe("totalsLine", () => {
  it("counts FAIL and CRASH as failed, KNOWN in neither, SKIP apart", () => {
    expect(totalsLine([result("a", "PASS"), result("b", "FAIL"), result("c", "CRASH"), result("d", "KNOWN")])).toBe("1 passed, 2 failed");
    expect(totalsLine([result("a", "PASS"), result("b", "SKIP")])).toBe("1 passed, 0 failed, 1 skipped");
  });
});

describe("checks on what an adapter wrote", () => {
  it("strayFiles: only the carray/ctable layout is allowed", () => {
    const carray = ["__attrs__", "data/__0.blp", "data/__12.blp", "meta/sizes", "meta/storage"];
    expect(strayFiles(carray, "carray", [])).toEqual([]);
    expect(strayFiles([...carray, ".lock", "data/__1.blp.tmp", "meta/storage~"], "carray", [])).toEqual([".lock", "data/__1.blp.tmp", "meta/storage~"]);
    const ctable = ["__attrs__", "__rootdirs__", "a/__attrs__", "a/data/__0.blp", "a/meta/sizes", "a/meta/storage"];
    expect(strayFiles(ctable, "ctable", ["a"])).toEqual([]);
    expect(strayFiles([...ctable, "b/meta/storage", "a/.journal", "notes.txt"], "ctable", ["a"])).toEqual(["b/meta/storage", "a/.journal", "notes.txt"]);
  });

  it("strayFilesV2: only the v2 carray, vlarray and ctable layouts are allowed (v2.md §10.5, §11, §12)", () => {
    const carray = ["__attrs__", "data/__1__.bin", "data/__12__.bin", "meta/shape", "meta/storage"];
    expect(strayFilesV2(carray, "carray", [])).toEqual([]);
    const bad = [".lock", ".journal", "data/__1__.bin.3.next", "data/__1__.bin.compact", "data/__0__.bin", "data/__01__.bin", "data/__0.blp", "meta/sizes", "__rootdirs__"];
    expect(strayFilesV2([...carray, ...bad], "carray", [])).toEqual(bad);
    const vlarray = ["__attrs__", "meta/storage", ...carray.map((f) => `offsets/${f}`), ...carray.map((f) => `values/${f}`)];
    expect(strayFilesV2(vlarray, "vlarray", [])).toEqual([]);
    expect(strayFilesV2([...vlarray, "meta/shape", "values/.lock", "lengths/meta/storage"], "vlarray", [])).toEqual(["meta/shape", "values/.lock", "lengths/meta/storage"]);
    const ctable = ["__attrs__", "meta/storage", ...carray.map((f) => `data/id/${f}`), ...vlarray.map((f) => `data/sym/${f}`)];
    const columns = [
      { name: "id", vlarray: false },
      { name: "sym", vlarray: true },
    ];
    expect(strayFilesV2(ctable, "ctable", columns)).toEqual([]);
    expect(strayFilesV2([...ctable, "data/id/offsets/meta/storage", "data/sym/data/__1__.bin", "data/other/meta/storage", "id/meta/storage", ".append"], "ctable", columns)).toEqual([
      "data/id/offsets/meta/storage",
      "data/sym/data/__1__.bin",
      "data/other/meta/storage",
      "id/meta/storage",
      ".append",
    ]);
  });

  it("superchunkDifference: every header field but last-chunk, then the metadata section", () => {
    const meta = '{"capacity": 4, "first_chunk": 0}       ';
    const file = (patch: (b: Buffer) => void = () => {}): Buffer => {
      const b = Buffer.alloc(32 + meta.length + 32);
      b.write("blpk", 0, "latin1");
      b.set([2, 3, 1, 4], 4);
      b.writeInt32LE(8, 8);
      b.writeInt32LE(4, 12);
      b.writeBigInt64LE(2n, 16);
      b.writeInt32LE(meta.length, 24);
      b.write(meta, 32, "latin1");
      patch(b);
      return b;
    };
    const real = file();
    expect(superchunkDifference(file(), real)).toBeUndefined();
    expect(superchunkDifference(file((b) => b.writeInt32LE(-1, 12)), real)).toBeUndefined(); // last-chunk is a hint
    expect(superchunkDifference(file((b) => b.fill(0xff, 32 + meta.length)), real)).toBeUndefined(); // offsets and chunks are not compared
    expect(superchunkDifference(file((b) => b.writeInt32LE(16, 8)), real)).toBe("header chunk-size 10000000 vs 08000000");
    expect(superchunkDifference(file((b) => b.set([1, 2], 5)), real)).toBe("header options 01 vs 03, checksum 02 vs 01");
    expect(superchunkDifference(file((b) => b.writeBigInt64LE(3n, 16)), real)).toMatch(/^header nchunks 03/);
    expect(superchunkDifference(file((b) => (b[31] = 1)), real)).toBe("header reserved 00000001 vs 00000000");
    expect(superchunkDifference(file((b) => b.write("1", 32 + meta.indexOf("0}"), "latin1")), real)).toBe('metadata section "{\\"capacity\\": 4, \\"first_chunk\\": 1}       " vs "{\\"capacity\\": 4, \\"first_chunk\\": 0}       "');
    expect(superchunkDifference(Buffer.from("blpk"), real)).toBe("only 4 bytes, no 32-byte header");
  });

  it("describeTreeChanges names added, removed and modified files", () => {
    const before = new Map([
      ["a", "1:0"],
      ["b", "2:0"],
    ]);
    expect(describeTreeChanges(before, new Map(before))).toBeUndefined();
    expect(describeTreeChanges(before, new Map([["a", "1:5"], ["c", "0:0"]]))).toBe("added c; removed b; modified a");
  });

  it("crashDetail picks the error line of a stack trace, or says what killed the adapter", () => {
    const stack = "file:///x/adapter.mjs:4\nthrow new TypeError('bad');\n^\n\nTypeError: bad\n    at file:///x/adapter.mjs:4:7\n";
    expect(crashDetail({ code: 1, signal: null, stdout: "", stderr: stack, timedOut: false })).toBe("exit 1: TypeError: bad");
    expect(crashDetail({ code: null, signal: "SIGSEGV", stdout: "", stderr: "", timedOut: false }, "write ")).toBe("write killed by SIGSEGV: no output");
    expect(crashDetail({ code: 2, signal: null, stdout: "half a line", stderr: "", timedOut: false })).toBe("exit 2: half a line");
  });
});

describe("parseCommandLine", () => {
  it("help and version win over everything else", () => {
    expect(parseCommandLine(["--help"]).kind).toBe("help");
    expect(parseCommandLine(["--version", "--adapter", "x"]).kind).toBe("version");
  });

  it("positional arguments and a --timeout of zero are refused", () => {
    expect(parseCommandLine(["adapter"])).toMatchObject({ kind: "error", message: expect.stringMatching(/Unexpected argument 'adapter'/) as unknown });
    expect(parseCommandLine(["--adapter", import.meta.filename, "--timeout", "0"])).toEqual({ kind: "error", message: '--timeout wants a positive integer, got "0"' });
  });

  it("defaults: table reporter, 2 jobs, 60 s, every format, the repository's corpus", () => {
    const parsed = parseCommandLine(["--adapter", import.meta.filename]);
    expect(parsed.kind).toBe("run");
    if (parsed.kind !== "run") return;
    expect(parsed.options).toMatchObject({ reporter: "table", jobs: 2, timeoutMs: 60_000, formats: undefined, filters: [], knownFailures: [] });
    expect(parsed.options.corpus).toMatch(/conformance\/corpus$/);
  });

  it("--only takes read, write or where (spec/conformance.md §4)", () => {
    const where = parseCommandLine(["--adapter", import.meta.filename, "--only", "where"]);
    expect(where.kind === "run" && where.options.only).toBe("where");
    expect(parseCommandLine(["--adapter", import.meta.filename, "--only", "query"])).toEqual({ kind: "error", message: '--only wants read, write or where, got "query"' });
  });
});
