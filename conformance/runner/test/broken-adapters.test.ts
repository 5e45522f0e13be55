// The runner judged by adapters that are wrong on purpose (test/broken-adapters/): each kind of
// breakage must fail the run and name the case and the reason. A small corpus copied from the
// real one keeps the runs short and lets adapters that scribble on their input do so safely.
// The reference adapter passing the same small corpus shows the failures come from the breakage.
// Requires the build (`pnpm test` builds): the adapters wrap packages/cli's build output.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatJson, formatJunit, runSuite, totalsLine, type CaseResult, type SuiteOptions } from "../src/index.js";

const root = resolve(import.meta.dirname, "../../..");
const realCorpus = join(root, "conformance/corpus/v1");
const brokenDir = join(import.meta.dirname, "broken-adapters");
const referenceAdapter = join(root, "conformance/adapters/reference/adapter");
const cli = join(root, "conformance/runner/dist/cli.js");

/** The small corpus: a ctable and a carray (read and write), a malformed and an invalid case. */
const PICKED: Record<string, string[]> = {
  "bcolz-real": ["blosc114_ctable_mixed", "edge_f8_3chunks_plus_leftover"],
  "bcolz-broken": ["blpk_bad_magic", "storage_clevel_12"],
};
let corpus = "";

beforeAll(() => {
  corpus = mkdtempSync(join(tmpdir(), "conformance-mini-"));
  for (const [set, names] of Object.entries(PICKED)) {
    const manifest = JSON.parse(readFileSync(join(realCorpus, set, "manifest.json"), "utf8")) as { cases: { name: string }[] };
    mkdirSync(join(corpus, "v1", set), { recursive: true });
    manifest.cases = manifest.cases.filter((c) => names.includes(c.name));
    writeFileSync(join(corpus, "v1", set, "manifest.json"), JSON.stringify(manifest));
    for (const name of names) cpSync(join(realCorpus, set, name), join(corpus, "v1", set, name), { recursive: true });
  }
});
afterAll(() => rmSync(corpus, { recursive: true, force: true }));

function run(adapterFile: string, options: Partial<SuiteOptions> = {}) {
  const adapter = adapterFile.startsWith("/") ? adapterFile : join(brokenDir, adapterFile);
  return runSuite({ adapter, corpus, jobs: 2, timeoutMs: 30_000, ...options });
}

/** `operation set/case STATUS: detail` of every result that did not pass, sorted. */
function failures(results: CaseResult[]): string[] {
  return results
    .filter((r) => r.status === "FAIL" || r.status === "CRASH")
    .map((r) => `${r.operation ?? "read"} ${r.set}/${r.name} ${r.status}: ${r.detail}`)
    .sort();
}

describe("control", () => {
  it("the reference adapter passes the small corpus, reads and writes", async () => {
    const { results } = await run(referenceAdapter);
    expect(failures(results)).toEqual([]);
    expect(totalsLine(results)).toBe("6 passed, 0 failed");
  });
});

describe("broken adapters are caught", () => {
  it("off-by-one values: every valid read and every write read-back fails on the value digest", async () => {
    const { results } = await run("off-by-one.mjs");
    const failed = failures(results);
    expect(failed).toContainEqual(expect.stringMatching(/^read bcolz-real\/edge_f8_3chunks_plus_leftover FAIL: values\.bin: .*sha256 differs/));
    expect(failed).toContainEqual(expect.stringMatching(/^read bcolz-real\/blosc114_ctable_mixed FAIL: col-0\.bin .*sha256 differs/));
    expect(failed).toContainEqual(expect.stringMatching(/^write bcolz-real\/edge_f8_3chunks_plus_leftover FAIL: values read back differ/));
    expect(totalsLine(results)).toBe("2 passed, 4 failed");
  });

  it("wrong dtype string: named with the expected spelling", async () => {
    const { results } = await run("wrong-dtype.mjs", { only: "read" });
    expect(failures(results)).toEqual([
      expect.stringMatching(/^read bcolz-real\/blosc114_ctable_mixed FAIL: dtype: got \[\[/),
      expect.stringMatching(/^read bcolz-real\/edge_f8_3chunks_plus_leftover FAIL: dtype: got "f8", expected "<f8"/),
    ]);
  });

  it("accepting an invalid case (exit 0 where an error code is expected)", async () => {
    const { results } = await run("accept-invalid.mjs", { only: "read" });
    expect(failures(results)).toEqual([
      "read bcolz-broken/blpk_bad_magic FAIL: accepted a dataset that must fail with BAD_MAGIC",
      "read bcolz-broken/storage_clevel_12 FAIL: accepted a dataset that must fail with BAD_METADATA",
    ]);
  });

  it("wrong error code", async () => {
    const { results } = await run("wrong-code.mjs", { only: "read" });
    expect(failures(results)).toEqual([
      "read bcolz-broken/blpk_bad_magic FAIL: error code BAD_HEADER, expected BAD_MAGIC",
      "read bcolz-broken/storage_clevel_12 FAIL: error code BAD_HEADER, expected BAD_METADATA",
    ]);
  });

  it("crashing: a CRASH naming the exit status and the exception, on every case", async () => {
    const { results } = await run("crash.mjs");
    const failed = failures(results);
    expect(failed).toHaveLength(6);
    for (const line of failed) expect(line).toMatch(/ CRASH: (write )?exit 1: TypeError: cannot read properties of undefined/);
  });

  it("hanging: killed at the timeout (with its child process) and named as a hang", async () => {
    const { results } = await run("hang.sh", { timeoutMs: 1500, only: "read", filters: ["bcolz-real/edge*", "*bad_magic"] });
    expect(failures(results)).toEqual([
      "read bcolz-broken/blpk_bad_magic CRASH: timed out after 1500 ms (hang)",
      "read bcolz-real/edge_f8_3chunks_plus_leftover CRASH: timed out after 1500 ms (hang)",
    ]);
  });

  it("writing into the dataset it was asked to read", async () => {
    const { results } = await run("dirty-read.mjs", { only: "read", filters: ["bcolz-real/*"] });
    expect(failures(results)).toEqual([
      "read bcolz-real/blosc114_ctable_mixed FAIL: wrote into the dataset directory it was asked to read: added .lock",
      "read bcolz-real/edge_f8_3chunks_plus_leftover FAIL: wrote into the dataset directory it was asked to read: added .lock",
    ]);
    // Leave the copied corpus as it was for the tests after this one.
    for (const name of PICKED["bcolz-real"]!) rmSync(join(corpus, "v1/bcolz-real", name, "data.bcolz/.lock"), { force: true });
  });

  it("output files the protocol does not define", async () => {
    const { results } = await run("extra-output.mjs", { only: "read" });
    expect(failures(results)).toEqual([
      "read bcolz-real/blosc114_ctable_mixed FAIL: output files the protocol does not define: trace.log",
      "read bcolz-real/edge_f8_3chunks_plus_leftover FAIL: output files the protocol does not define: trace.log",
    ]);
  });

  it("a written dataset with a lock and a journal left behind", async () => {
    const { results } = await run("stray-lock.mjs", { only: "write" });
    const failed = failures(results);
    expect(failed).toHaveLength(2);
    for (const line of failed) expect(line).toMatch(/^write bcolz-real\/\S+ FAIL: .*files a bcolz reader does not expect \(v1\.md §14\): \.journal, \.lock/);
  });

  it("a written dataset that does not read back", async () => {
    const { results } = await run("bad-readback.mjs", { only: "write" });
    const failed = failures(results);
    expect(failed).toHaveLength(2);
    for (const line of failed) expect(line).toMatch(/^write bcolz-real\/\S+ FAIL: the written dataset does not read back \(adapter read, exit 3\): \{"code":"/);
  });
});

describe("capabilities, known failures, reporters", () => {
  it("write cases of a read-only adapter are skipped, not passed", async () => {
    const { results } = await run("read-only.mjs");
    expect(results.filter((r) => r.status === "SKIP").map((r) => `${r.operation} ${r.name}: ${r.detail}`)).toEqual([
      "write blosc114_ctable_mixed: adapter info does not list the write operation",
      "write edge_f8_3chunks_plus_leftover: adapter info does not list the write operation",
    ]);
    expect(totalsLine(results)).toBe("4 passed, 0 failed, 2 skipped");
  });

  it("listed failures are KNOWN and do not fail the run; a listed case that passes fails it", async () => {
    const known = [
      { operation: "read" as const, id: "bcolz-real/edge_f8_3chunks_plus_leftover" },
      { operation: "read" as const, id: "bcolz-real/blosc114_ctable_mixed" },
      { operation: "read" as const, id: "bcolz-broken/blpk_bad_magic" },
    ];
    const { results, unmatchedKnown } = await run("off-by-one.mjs", { only: "read", knownFailures: known });
    expect(results.map((r) => `${r.name} ${r.status}`)).toEqual([
      "blpk_bad_magic FAIL",
      "storage_clevel_12 PASS",
      "blosc114_ctable_mixed KNOWN",
      "edge_f8_3chunks_plus_leftover KNOWN",
    ]);
    expect(results[0]!.detail).toMatch(/known-failures file lists it: remove it/);
    expect(unmatchedKnown).toEqual([]);
    expect(totalsLine(results)).toBe("1 passed, 1 failed");
  });

  it("json and junit reports carry every case with its status and reason", async () => {
    const { info, results } = await run("wrong-code.mjs", { only: "read" });
    const json = JSON.parse(formatJson(info, results)) as { totals: { failed: number }; results: { id: string; status: string; detail: string }[] };
    expect(json.totals.failed).toBe(2);
    expect(json.results.find((r) => r.id === "bcolz-broken/blpk_bad_magic")).toMatchObject({ status: "FAIL", detail: "error code BAD_HEADER, expected BAD_MAGIC" });
    const xml = formatJunit(info, results);
    expect(xml).toContain('<testsuite name="read" tests="4" failures="2" errors="0" skipped="0"');
    expect(xml).toContain('<testcase classname="read.bcolz-broken" name="blpk_bad_magic"');
    expect(xml).toContain('<failure message="error code BAD_HEADER, expected BAD_MAGIC" type="FAIL">');
  });
});

describe("the fmt-conformance command (built)", () => {
  const fmt = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  const lastLine = (text: string) => text.trimEnd().split("\n").pop();

  it("--help prints the usage and exits 0", () => {
    const r = fmt("--help");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: fmt-conformance --adapter CMD/);
    expect(r.stdout).toContain("--known-failures FILE");
  });

  it.each([
    [["--bogus"], /Unknown option '--bogus'/],
    [[], /--adapter CMD is required/],
    [["--adapter", "/no/such/adapter"], /--adapter: no such file/],
    [["--adapter", referenceAdapter, "--jobs", "two"], /--jobs wants a positive integer, got "two"/],
    [["--adapter", referenceAdapter, "--format", "3"], /--format wants 1 or 2/],
    [["--adapter", referenceAdapter, "--reporter", "xml"], /--reporter wants one of table, json, junit/],
    [["--adapter", referenceAdapter, "--known-failures", "/no/such/file"], /--known-failures: .*no such file/],
    [["--adapter", referenceAdapter, "--corpus", import.meta.dirname], /--corpus: .* holds no format folder/],
  ])("bad arguments %j: a clear message and exit 2, no stack trace", (args, message) => {
    const r = fmt(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a crashing adapter: exit 1, the case and the reason in the table, the totals line last", () => {
    const r = fmt("--adapter", join(brokenDir, "crash.mjs"), "--corpus", corpus, "--only", "read", "--filter", "*bad_magic");
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/\| bcolz-broken\/blpk_bad_magic \| malformed \| CRASH .* exit 1: TypeError: cannot read properties/);
    expect(lastLine(r.stdout)).toBe("0 passed, 1 failed");
  });

  it("a run in which no case matched fails instead of passing on nothing", () => {
    const r = fmt("--adapter", referenceAdapter, "--corpus", corpus, "--filter", "no-such-set/*");
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("no case matched the filters no-such-set/*: nothing was checked");
    expect(lastLine(r.stdout)).toBe("0 passed, 0 failed");
  });

  it("json on stdout stays parseable; the totals line goes to stderr", () => {
    const r = fmt("--adapter", referenceAdapter, "--corpus", corpus, "--only", "read", "--filter", "bcolz-broken/*", "--reporter", "json");
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { totals: { passed: number } }).totals.passed).toBe(2);
    expect(lastLine(r.stderr)).toBe("2 passed, 0 failed");
  });

  it("a known-failures file turns a failing run into a passing one", () => {
    const dir = mkdtempSync(join(tmpdir(), "known-"));
    const file = join(dir, "known.txt");
    writeFileSync(file, "# off by one on purpose\nbcolz-real/edge_f8_3chunks_plus_leftover\n");
    const r = fmt("--adapter", join(brokenDir, "off-by-one.mjs"), "--corpus", corpus, "--only", "read", "--filter", "*edge*", "--known-failures", file);
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("| KNOWN ");
    expect(lastLine(r.stdout)).toBe("0 passed, 0 failed");
  });
});

describe("serve (spec/conformance.md §1.5)", () => {
  const serveFaults = join(brokenDir, "serve-faults.mjs");
  async function withFault(fault: string, options: Partial<SuiteOptions> = {}) {
    process.env.SERVE_FAULT = fault;
    try {
      return await run(serveFaults, { only: "read", ...options });
    } finally {
      delete process.env.SERVE_FAULT;
    }
  }
  const verdicts = (results: CaseResult[]) => results.map((r) => `${r.operation ?? "read"} ${r.set}/${r.name} ${r.status}`);

  it("the reference adapter gives the same verdicts through serve as with one process per call", async () => {
    const served = await run(referenceAdapter);
    const isolated = await run(referenceAdapter, { isolated: true });
    expect(verdicts(served.results)).toEqual(verdicts(isolated.results));
    expect(totalsLine(served.results)).toBe("6 passed, 0 failed");
    // The small corpus spoiled the same way for both: a wrong answer is caught through serve too.
    const broken = await run(join(brokenDir, "off-by-one.mjs"));
    expect(totalsLine(broken.results)).toBe("2 passed, 4 failed");
  });

  it("a correct serve adapter passes", async () => {
    const { results } = await withFault("");
    expect(failures(results)).toEqual([]);
    expect(totalsLine(results)).toBe("4 passed, 0 failed");
  });

  it("a request never answered is a hang; the next requests go to a fresh process", async () => {
    const { results } = await withFault("hang", { timeoutMs: 2_000 });
    expect(failures(results)).toEqual([expect.stringMatching(/^read bcolz-broken\/blpk_bad_magic CRASH: timed out after 2000 ms \(hang\)/)]);
    expect(totalsLine(results)).toBe("3 passed, 1 failed");
  });

  it("a process that ends mid-request crashes that call only", async () => {
    const { results } = await withFault("exit");
    expect(failures(results)).toEqual([expect.stringMatching(/^read bcolz-broken\/blpk_bad_magic CRASH: .*serve process ended while answering/)]);
    expect(totalsLine(results)).toBe("3 passed, 1 failed");
  });

  it("a line that is not an answer, or an answer to another request, is a crash", async () => {
    for (const fault of ["garbage", "wrong-id"]) {
      const { results } = await withFault(fault);
      expect(failures(results), fault).toEqual([expect.stringMatching(/^read bcolz-broken\/blpk_bad_magic CRASH: .*serve protocol error/)]);
      expect(totalsLine(results), fault).toBe("3 passed, 1 failed");
    }
  });

  it("the Python adapter answers through serve with the verdicts of one process per call", async () => {
    const python = join(root, "conformance/adapters/python/adapter");
    const served = await run(python, { only: "read" });
    const isolated = await run(python, { only: "read", isolated: true });
    expect(verdicts(served.results)).toEqual(verdicts(isolated.results));
    expect(totalsLine(served.results)).toBe("4 passed, 0 failed");
  });
});
