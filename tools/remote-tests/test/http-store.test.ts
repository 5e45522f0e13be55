// HttpStore against a plain static HTTP server on loopback, reading the real bcolz 1.2.1 corpus:
// values equal the corpus's expected bytes; 404/403/416, missing Content-Length, servers that
// ignore Range, listing from an index file, the concurrency limit; and what reading one element,
// one block and a whole column costs in requests and bytes, with and without the cache. Every
// test runs with each transport of the store (fetch, node:http).
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageError } from "@fmt/errors";
import { CachingStore, RangeCoalescingStore } from "@fmt/fs-adapters";
import { HttpStore } from "@fmt/fs-adapters/http";
import type { HttpStoreOptions } from "@fmt/fs-adapters/http";
import { open, openCarray, openCtable } from "@fmt/store";
import { startFaultProxy } from "../src/fault-proxy.js";
import type { Fault } from "../src/fault-proxy.js";
import { startStaticServer } from "../src/static-server.js";
import type { StaticServer, StaticServerOptions } from "../src/static-server.js";
import { HTTP_TRANSPORTS } from "../src/transports.js";

const CORPUS = new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url).pathname;
const F8 = "carray_f8_n6000_cl1600"; // 6000 rows of <f8, chunklen 1600: chunk files __0..__3
const expectedBytes = (name: string, file = "values.bin") => new Uint8Array(readFileSync(join(CORPUS, name, "expected", file)));
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

let root: string;
const servers: StaticServer[] = [];
async function serve(options: StaticServerOptions = {}): Promise<StaticServer> {
  const server = await startStaticServer(root, options);
  servers.push(server);
  return server;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(() => {
  // A copy of three corpus datasets plus an index file listing every key (HTTP cannot list).
  root = mkdtempSync(join(tmpdir(), "http-store-"));
  for (const name of [F8, "blosc114_ctable_mixed", "carray_S7_n3000_cl800"]) cpSync(join(CORPUS, name, "data.bcolz"), join(root, name), { recursive: true });
  writeFileSync(join(root, "index.txt"), filesUnder(root).map((f) => `./${relative(root, f)}`).join("\n") + "\n");
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("the static server itself", () => {
  // Bodies are read into spare buffers at their file offset's place in a page (static-server.ts):
  // every place must give the file's bytes, also with many requests at once.
  it("answers ranges at any offset, and 100 requests at once, with the file's bytes", async () => {
    const server = await serve();
    const files = filesUnder(root).filter((f) => statSync(f).size > 0);
    const requests = Array.from({ length: 100 }, (_, i) => {
      const file = files[i % files.length]!;
      const size = statSync(file).size;
      const start = [0, 1, 15, 4095, 4096, 4097][i % 6]! % size;
      const end = i % 5 === 0 ? size : Math.min(size, start + 1 + ((i * 2749) % size));
      return { file, start, end };
    });
    const answers = await Promise.all(requests.map(async ({ file, start, end }) => {
      const response = await fetch(`${server.url}${relative(root, file)}`, { headers: { range: `bytes=${start}-${end - 1}` } });
      return { status: response.status, body: new Uint8Array(await response.arrayBuffer()) };
    }));
    answers.forEach(({ status, body }, i) => {
      const { file, start, end } = requests[i]!;
      expect(status, file).toBe(206);
      expect(sameBytes(body, new Uint8Array(readFileSync(file)).subarray(start, end)), `${file} ${start}-${end}`).toBe(true);
    });
  });

  it("answers an inverted range (last byte before the first) with 416", async () => {
    const server = await serve();
    const response = await fetch(`${server.url}${F8}/data/__0.blp`, { headers: { range: "bytes=100-50" } });
    expect(response.status).toBe(416);
    expect(response.headers.get("content-range")).toBe(`bytes */${statSync(join(root, F8, "data/__0.blp")).size}`);
    await response.arrayBuffer();
  });
});

describe.each(HTTP_TRANSPORTS)("HttpStore over $name", ({ options: transport }) => {
  const httpStore = (url: string, options: HttpStoreOptions = {}) => new HttpStore(url, { ...options, ...transport() });

  describe("reading the bcolz 1.2.1 corpus over HTTP", () => {
    it("a carray of f8 reads back the expected bytes", async () => {
      const server = await serve();
      const dataset = await open(httpStore(server.url), F8);
      expect(dataset.kind).toBe("carray");
      if (dataset.kind === "carray") expect(sameBytes(await dataset.readBytes(), expectedBytes(F8))).toBe(true);
    });

    it("a ctable's columns read back the expected bytes", async () => {
      const server = await serve();
      const table = await openCtable(httpStore(server.url), "blosc114_ctable_mixed");
      for (const name of table.names) {
        const column = table.column(name);
        if (column.kind !== "carray") throw new Error(`${name} is not a carray`);
        expect(sameBytes(await column.readBytes(), expectedBytes("blosc114_ctable_mixed", `${name}.bin`)), name).toBe(true);
      }
    });

    it("a server without Content-Length serves the same values", async () => {
      const server = await serve({ omitContentLength: true });
      const array = await openCarray(httpStore(server.url), "carray_S7_n3000_cl800");
      expect(sameBytes(await array.readBytes(), expectedBytes("carray_S7_n3000_cl800"))).toBe(true);
    });
  });

  describe("HTTP semantics", () => {
    it("404 is a missing key, 403 an IO_ERROR naming the key (not retried)", async () => {
      const server = await serve({ forbidden: [`/${F8}/meta/`] });
      const store = httpStore(server.url);
      expect(await store.get("nope/meta/sizes")).toBeUndefined();
      expect(await store.getRange("nope/x", { offset: 0, length: 4 })).toBeUndefined();
      const error = await store.get(`${F8}/meta/sizes`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({ code: "IO_ERROR", path: `${F8}/meta/sizes`, actual: 403 });
      expect(store.stats.retries).toBe(0);
    });

    it("ranges: plain, suffix, clipped, past the end (416 → one HEAD), empty", async () => {
      const server = await serve();
      const store = httpStore(server.url);
      const whole = new Uint8Array(readFileSync(join(root, F8, "data/__0.blp")));
      expect(await store.getRange(`${F8}/data/__0.blp`, { offset: 16, length: 16 })).toEqual(whole.slice(16, 32));
      expect(await store.getRange(`${F8}/data/__0.blp`, { suffixLength: 10 })).toEqual(whole.slice(-10));
      expect(await store.getRange(`${F8}/data/__0.blp`, { offset: whole.length - 3, length: 100 })).toEqual(whole.slice(-3));
      store.stats.reset();
      expect(await store.getRange(`${F8}/data/__0.blp`, { offset: whole.length + 5, length: 4 })).toEqual(new Uint8Array(0));
      expect(store.stats.requests).toBe(2);
      expect(await store.getRange(`${F8}/data/__0.blp`, { offset: 3, length: 0 })).toEqual(new Uint8Array(0));
    });

    it("a server that ignores Range: the whole answer is sliced, counted and reported once", async () => {
      const server = await serve({ ignoreRange: true });
      const notices: string[] = [];
      const store = httpStore(server.url, { onNotice: (m) => notices.push(m) });
      const whole = new Uint8Array(readFileSync(join(root, F8, "data/__1.blp")));
      expect(await store.getRange(`${F8}/data/__1.blp`, { offset: 100, length: 50 })).toEqual(whole.slice(100, 150));
      expect(store.rangeSupported).toBe(false);
      expect(await store.getRange(`${F8}/data/__1.blp`, { suffixLength: 7 })).toEqual(whole.slice(-7));
      expect(store.stats.rangeIgnored).toBe(1);
      expect(store.stats.requests).toBe(2); // one whole GET per call, never a second try of the same call
      expect(notices).toHaveLength(1);
      const array = await openCarray(new CachingStore(store), F8);
      expect(sameBytes(await array.readBytes(), expectedBytes(F8))).toBe(true);
    });

    it("list comes from the index file", async () => {
      const server = await serve();
      const store = httpStore(server.url, { indexKey: "index.txt" });
      const list = store.list!.bind(store);
      expect(await list(`${F8}/data/`)).toEqual([0, 1, 2, 3].map((i) => `${F8}/data/__${i}.blp`));
      expect(await list("")).toHaveLength(filesUnder(root).length - 1);
      expect(httpStore(server.url).list).toBeUndefined();
      await expect(httpStore(server.url, { indexKey: "missing.txt" }).list!("")).rejects.toMatchObject({ code: "IO_ERROR", path: "missing.txt" });
    });

    it("parallel reads respect the concurrency limit", async () => {
      const server = await serve();
      const store = httpStore(server.url, { concurrency: 3 });
      const keys = Array.from({ length: 12 }, (_, i) => `${F8}/data/__${i % 4}.blp`);
      const values = await Promise.all(keys.map((k) => store.getRange(k, { offset: 0, length: 16 })));
      expect(values.every((v) => v?.length === 16)).toBe(true);
      expect(store.limit.peak).toBe(3);
      expect(store.stats.requests).toBe(12);
    });
  });

  describe("faults between the HTTP store and the server", () => {
    it("a truncated body, a 503 and a dropped connection are retried; a lasting 500 is an IO_ERROR", async () => {
      const server = await serve();
      const proxy = await startFaultProxy(Number(new URL(server.url).port));
      try {
        const store = httpStore(proxy.endpoint, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
        const key = `${F8}/data/__0.blp`;
        const whole = new Uint8Array(readFileSync(join(root, key)));
        const faults: Fault[] = [{ kind: "truncate" }, { kind: "status", status: 503, code: "SlowDown" }, { kind: "drop" }];
        for (const fault of faults) {
          let used = false;
          proxy.setPlan(() => (used ? { kind: "pass" } : ((used = true), fault)));
          expect(sameBytes((await store.get(key))!, whole), fault.kind).toBe(true);
        }
        expect(store.stats.retries).toBe(3);
        proxy.setPlan(() => ({ kind: "status", status: 500, code: "InternalError" }));
        await expect(store.get(key)).rejects.toMatchObject({ code: "IO_ERROR", path: key });
        expect(store.stats.requests).toBe(6 + 3);
      } finally {
        await proxy.stop();
      }
    });
  });

  describe("what a read costs (requests and bytes)", () => {
    const chunkSizes = [0, 1, 2, 3].map((i) => statSync(join(CORPUS, F8, "data.bcolz/data", `__${i}.blp`)).size);

    it("open 4, one element 1, one block 1, the whole column 4 requests; the caches make repeats free", async () => {
      const server = await serve();
      const http = httpStore(server.url);
      const cache = new CachingStore(http);
      const array = await openCarray(cache, F8);
      // .journal (404), meta/storage, meta/sizes, __attrs__
      expect(http.stats.requests).toBe(4);
      http.stats.reset();
      expect(await array.get(2000)).toBe(new DataView(expectedBytes(F8).buffer).getFloat64(2000 * 8, true));
      // One range request for the chunk holding row 2000: the file is smaller than the array's
      // first-read window, so the whole file comes back at once.
      expect(http.stats.snapshot()).toMatchObject({ requests: 1, bytes: chunkSizes[1] });
      http.stats.reset();
      await array.read(1600, 3200); // the same chunk, exactly one block of chunklen rows
      // Served by the array's own cache of decoded chunks: neither the HTTP store nor the caching
      // store sees a request.
      expect(http.stats.snapshot()).toMatchObject({ requests: 0, bytes: 0 });
      expect(cache.saved).toEqual({ requests: 0, bytes: 0 });
      await array.read();
      expect(http.stats.snapshot()).toMatchObject({ requests: 3, bytes: chunkSizes[0]! + chunkSizes[2]! + chunkSizes[3]! });
      expect(server.counts.requests).toBe(4 + 1 + 3);
      http.stats.reset();
      await array.read(); // chunks 0, 2, 3 from the caching store, chunk 1 from the array's cache
      expect(http.stats.snapshot()).toMatchObject({ requests: 0, bytes: 0 });
      expect(cache.saved).toEqual({ requests: 3, bytes: chunkSizes[0]! + chunkSizes[2]! + chunkSizes[3]! });
    });

    it("without any cache each read fetches its chunks again", async () => {
      const server = await serve();
      const http = httpStore(server.url);
      const array = await openCarray(http, F8, { cacheBytes: 0 });
      http.stats.reset();
      await array.get(2000);
      await array.read(1600, 3200);
      await array.read();
      expect(http.stats.snapshot()).toMatchObject({ requests: 1 + 1 + 4, bytes: 2 * chunkSizes[1]! + chunkSizes.reduce((a, b) => a + b, 0) });
    });

    it("RangeCoalescingStore turns parallel ranges of one chunk file into one request", async () => {
      const server = await serve();
      const http = httpStore(server.url);
      const coalescing = new RangeCoalescingStore(http);
      const key = `${F8}/data/__2.blp`;
      const whole = new Uint8Array(readFileSync(join(root, key)));
      const pieces = Array.from({ length: 8 }, (_, i) => ({ offset: i * 1024, length: 1000 }));
      const got = await Promise.all(pieces.map((r) => coalescing.getRange(key, r)));
      got.forEach((bytes, i) => expect(bytes).toEqual(whole.slice(i * 1024, i * 1024 + 1000)));
      expect(http.stats.requests).toBe(1);
      expect(coalescing.saved).toEqual({ requests: 7, bytes: -7 * 24 });
    });
  });
});
