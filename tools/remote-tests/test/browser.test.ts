// The browser demo bundled with esbuild, served by the loopback static server with a corpus
// dataset, and driven in headless Chromium (Debian's chromium via playwright-core): the page must
// show the dataset's real values. Also checks that the bundle of the core packages pulls in no
// Node built-in and no polyfill. A screenshot goes to tools/remote-tests/artifacts/ (git-ignored).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray } from "@fmt/store";
import { bundleDemo } from "../src/bundle.js";
import type { DemoBundle } from "../src/bundle.js";
import { startStaticServer } from "../src/static-server.js";
import type { StaticServer } from "../src/static-server.js";

const CORPUS = new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url).pathname;
const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
const F8 = "carray_f8_n6000_cl1600";
// A format-2 carray written here: 100,000 rows of <f8 in chunks of 1,000, 32 chunks per
// superchunk file (4 files: 32, 32, 32 and 4 chunks).
const V2 = "v2_f8_n100000";
const v2Values = Float64Array.from({ length: 100_000 }, (_, i) => Math.round(100 * Math.cos(i / 777)) / 4 + (i % 13));

interface DemoResult {
  kind: string;
  length: number;
  columns: { name: string; dtype: string; first: string[]; nan: number; min: number | null; max: number | null; mean: number | null }[];
  requests: number;
  error?: string;
}

let bundle: DemoBundle;
let root: string;
let server: StaticServer;

beforeAll(async () => {
  bundle = await bundleDemo();
  root = mkdtempSync(join(tmpdir(), "browser-demo-"));
  writeFileSync(join(root, "demo.js"), bundle.code);
  cpSync(new URL("../browser/index.html", import.meta.url).pathname, join(root, "index.html"));
  for (const name of [F8, "blosc114_ctable_mixed"]) cpSync(join(CORPUS, name, "data.bcolz"), join(root, "data", name), { recursive: true });
  await (await createCarray(new FileSystemStore(join(root, "data")), V2, v2Values, { dtype: "<f8", chunklen: 1000, formatVersion: 2, superchunksize: 32, checksum: "adler32" })).close();
  server = await startStaticServer(root);
});
afterAll(async () => {
  await server?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("the browser bundle", () => {
  it("contains no Node built-in and no polyfill: every input is workspace source or a declared dependency", () => {
    expect(bundle.externals).toEqual([]);
    // The npm packages the core packages declare themselves (codecs, hashes); anything else in
    // the bundle (buffer, process, events, a *-browserify) would be a polyfill pulled in.
    const declared = new Set(
      ["errors", "header", "blosc", "meta", "expr", "fs-adapters", "store"].flatMap((name) =>
        Object.keys((JSON.parse(readFileSync(new URL(`../../../packages/${name}/package.json`, import.meta.url), "utf8")) as { dependencies?: object }).dependencies ?? {}),
      ),
    );
    const packageOf = (file: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file)?.[1];
    const outside = bundle.inputs.filter((file) => {
      if (/^(packages\/(errors|header|blosc|meta|expr|fs-adapters|store)\/src\/|tools\/remote-tests\/browser\/)/.test(file)) return false;
      const name = packageOf(file);
      return name === undefined || !declared.has(name);
    });
    expect(outside).toEqual([]);
    expect(bundle.inputs.some((f) => f.startsWith("packages/store/src/"))).toBe(true);
    expect(bundle.inputs.some((f) => f.startsWith("packages/blosc/src/wasm/"))).toBe(true);
  });
});

describe("the demo page in headless Chromium", () => {
  async function runPage(query: string, screenshot: string): Promise<DemoResult> {
    const profile = mkdtempSync(join(tmpdir(), "chromium-profile-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const consoleErrors: string[] = [];
      page.on("pageerror", (e) => consoleErrors.push(String(e)));
      await page.goto(`${server.url}index.html?${query}`);
      await page.waitForSelector("body[data-state=done], body[data-state=error]", { timeout: 60_000 });
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, screenshot), fullPage: true });
      const result = await page.evaluate<DemoResult>("window.bcolzDemo");
      expect(consoleErrors).toEqual([]);
      expect(result.error).toBeUndefined();
      expect(await page.textContent("#summary")).toContain(`${result.length} rows`);
      return result;
    } finally {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }

  it("shows the values and summary of a bcolz 1.2.1 f8 carray", async () => {
    const result = await runPage(`base=/data/&dataset=${F8}`, "carray-f8.png");
    const raw = readFileSync(join(CORPUS, F8, "expected", "values.bin"));
    const expected = Array.from(new Float64Array(raw.buffer, raw.byteOffset, raw.length / 8));
    expect(result.kind).toBe("carray");
    expect(result.length).toBe(6000);
    const column = result.columns[0]!;
    expect(column.dtype).toBe("<f8");
    expect(column.first).toEqual(expected.slice(0, 10).map(String));
    const numbers = expected.filter((v) => !Number.isNaN(v));
    expect(column.nan).toBe(expected.length - numbers.length);
    expect(column.min).toBe(numbers.reduce((a, b) => Math.min(a, b), Infinity));
    expect(column.max).toBe(numbers.reduce((a, b) => Math.max(a, b), -Infinity));
    expect(column.mean).toBe(numbers.reduce((a, b) => a + b, 0) / numbers.length);
    // open(): __rootdirs__ (404: not a ctable), .journal (404), storage, sizes, attrs; then 4 chunks
    expect(result.requests).toBe(5 + 4);
  });

  it("reads a format-2 carray: one range request per superchunk table and one per run of neighbouring slots", async () => {
    const before = { ...server.counts };
    const result = await runPage(`base=/data/&dataset=${V2}`, "carray-v2-f8.png");
    expect(result.kind).toBe("carray");
    expect(result.length).toBe(v2Values.length);
    const column = result.columns[0]!;
    expect(column.dtype).toBe("<f8");
    expect(column.first).toEqual(Array.from(v2Values.slice(0, 10), String));
    expect(column.min).toBe(v2Values.reduce((a, b) => Math.min(a, b), Infinity));
    expect(column.max).toBe(v2Values.reduce((a, b) => Math.max(a, b), -Infinity));
    expect(column.mean).toBe(v2Values.reduce((a, b) => a + b, 0) / v2Values.length);
    // open(): __rootdirs__ (404), meta/storage, meta/shape, __attrs__, .journal (404); then per
    // superchunk file its table and one group of its (≤ 64) slots: 4 + 4 range requests for 100 chunks.
    expect(result.requests).toBe(5 + 4 + 4);
    // As the server saw it: only chunk data is read with Range.
    expect(server.counts.rangeRequests - before.rangeRequests).toBe(4 + 4);
  });

  it("shows the columns of a ctable", async () => {
    const result = await runPage("base=/data/&dataset=blosc114_ctable_mixed", "ctable-mixed.png");
    expect(result.kind).toBe("ctable");
    expect(result.columns.map((c) => c.name)).toEqual(["i", "f", "s"]);
    expect(result.length).toBe(2500);
    expect(result.columns.map((c) => c.dtype)).toEqual(["<i4", "<f8", "|S5"]);
    const raw = readFileSync(join(CORPUS, "blosc114_ctable_mixed", "expected", "i.bin"));
    const ints = Array.from(new Int32Array(raw.buffer, raw.byteOffset, raw.length / 4));
    expect(result.columns[0]!.first).toEqual(ints.slice(0, 10).map(String));
    expect(result.columns[0]!.max).toBe(Math.max(...ints));
  });
});
