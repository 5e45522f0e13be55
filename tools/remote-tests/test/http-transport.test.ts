// The HTTP store's transports at the connection level, against real servers on loopback that
// count their connections: a body running past its cap stops being read and its connection is
// closed, an abort mid-body closes the connection at once, kept-alive connections are reused (for
// every transport); and what only `nodeHttpTransport` (`@fmt/fs-adapters/http-node`) does, over its
// own sockets and over node:http alike: 404s and HEADs keep their connection, it refuses
// content-encoded answers, redirects of its own and other schemes, refused connections are
// retried, close() ends its connections.
import { cpSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageError, UsageError } from "@fmt/errors";
import { HttpStore } from "@fmt/fs-adapters/http";
import { httpStoreForNode, nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { openCarray } from "@fmt/store";
import { startMisbehavingServer } from "../src/misbehaving-server.js";
import type { MisbehavingServer } from "../src/misbehaving-server.js";
import { startStaticServer } from "../src/static-server.js";
import type { StaticServer } from "../src/static-server.js";
import { HTTP_TRANSPORTS } from "../src/transports.js";
import { rejection } from "../src/rejection.js";

const CORPUS = new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url).pathname;
const F8 = "carray_f8_n6000_cl1600"; // 6000 rows of <f8, chunklen 1600: chunk files __0..__3
const KEY = "value.bin";
const MiB = 1024 * 1024;
// Longer than the 16 MiB a transport allocates on the strength of a Content-Length alone.
const BIG_KEY = "big.bin";
const BIG = 16 * MiB + 12_345;

let root: string;
let bad: MisbehavingServer;
let files: StaticServer;

/** Waits (up to 3 s) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !condition(); ) {
    if (Date.now() - started > 3000) throw new Error(`still not ${what} after 3 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "http-transport-"));
  writeFileSync(join(root, KEY), new Uint8Array(1000).fill(7));
  writeFileSync(join(root, BIG_KEY), new Uint8Array(BIG).map((_, i) => i % 251));
  cpSync(join(CORPUS, F8, "data.bcolz"), join(root, F8), { recursive: true });
  bad = await startMisbehavingServer(root);
  files = await startStaticServer(root);
});
afterAll(async () => {
  await bad?.stop();
  await files?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe.each(HTTP_TRANSPORTS)("connections of the $name transport", ({ name, options }) => {
  it("an endless body without Content-Length stops being read past its cap, and its connection is closed", async () => {
    bad.setPlan(({ method }) => (method === "GET" ? { kind: "huge" } : { kind: "pass" }));
    bad.hugeBytesSent = 0;
    const { opened, closed } = bad.connections;
    const store = new HttpStore(`${bad.origin}/`, { limits: { maxBodyBytes: MiB }, retry: { maxAttempts: 1 }, ...options() });
    const error = await rejection(store.get(KEY));
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: "IO_ERROR", path: KEY, field: "Content-Range", expected: "the whole value" });
    expect((error as StorageError).message).toContain(`runs past the ${MiB} bytes`);
    expect(bad.connections.opened).toBe(opened + 1);
    // (fetch may open a spare connection afterwards.)
    await until(() => bad.connections.closed > closed, "closed");
    // The cap plus what the socket buffers held when reading stopped; the server would go on to 1 GiB.
    const sent = bad.hugeBytesSent;
    expect(sent).toBeGreaterThan(MiB);
    expect(sent).toBeLessThan(8 * MiB);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bad.hugeBytesSent).toBe(sent);
  });

  it("an abort mid-body rejects with the signal's reason and closes the connection", async () => {
    bad.setPlan(({ method }) => (method === "GET" ? { kind: "huge" } : { kind: "pass" }));
    bad.hugeBytesSent = 0;
    const { closed } = bad.connections;
    const controller = new AbortController();
    const store = new HttpStore(`${bad.origin}/`, { retry: { signal: controller.signal }, ...options() });
    const reading = rejection(store.get(KEY));
    await until(() => bad.hugeBytesSent > MiB, "1 MiB into the body");
    const reason = new Error("the reader went away");
    controller.abort(reason);
    const started = Date.now();
    expect(await reading).toBe(reason);
    expect(Date.now() - started).toBeLessThan(500);
    await until(() => bad.connections.closed > closed, "closed");
    const sent = bad.hugeBytesSent;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bad.hugeBytesSent).toBe(sent);
  });

  it("getInto reads a body that fits into the lent buffer (a view of it), a larger one into a new array, ranges too", async () => {
    const store = new HttpStore(files.url, options());
    const lent = new Uint8Array(4096).fill(1);
    const whole = await store.getInto(KEY, lent);
    expect(whole?.buffer).toBe(lent.buffer);
    expect([whole?.byteOffset, whole?.length]).toEqual([0, 1000]);
    expect(whole?.every((b) => b === 7)).toBe(true);
    const part = await store.getInto(KEY, lent, { offset: 990, length: 50 });
    expect([part?.buffer === lent.buffer, part?.length]).toEqual([true, 10]);
    // A value longer than the buffer: a new array with every byte, the buffer's bytes past what
    // fitted untouched by the overflow.
    const small = new Uint8Array(100);
    const overflow = await store.getInto(KEY, small);
    expect([overflow?.buffer === small.buffer, overflow?.length, overflow?.every((b) => b === 7)]).toEqual([false, 1000, true]);
    expect(await store.getInto("missing.bin", lent)).toBeUndefined();
    // A chunk file read into a reused buffer decodes like one read by get.
    const chunkKey = `${F8}/data/__2.blp`;
    const chunk = await store.getInto(chunkKey, lent.length >= 20000 ? lent : new Uint8Array(1 << 20));
    expect(chunk).toEqual(await store.get(chunkKey));
  });

  it("getInto reads a body past 16 MiB into the lent buffer when it fits there (nothing allocated for it), else into a new array", async () => {
    const store = new HttpStore(files.url, options());
    const lent = new Uint8Array(BIG + 100).fill(0xee);
    const whole = await store.getInto(BIG_KEY, lent);
    expect([whole?.buffer === lent.buffer, whole?.byteOffset, whole?.length]).toEqual([true, 0, BIG]);
    expect(whole?.every((b, i) => b === i % 251)).toBe(true);
    expect(lent.subarray(BIG).every((b) => b === 0xee)).toBe(true);
    const small = new Uint8Array(BIG - 1);
    const overflow = await store.getInto(BIG_KEY, small);
    expect([overflow?.buffer === small.buffer, overflow?.length]).toEqual([false, BIG]);
    expect(overflow?.every((b, i) => b === i % 251)).toBe(true);
    // The Node transport leaves a buffer that does not hold the body alone; fetch fills it as far
    // as it holds, then copies into a new array.
    if (name !== "fetch") expect(small.every((b) => b === 0)).toBe(true);
  });

  it("kept-alive connections are reused: the Node transport opens no more connections than requests in flight, fetch at most twice as many", async () => {
    const before = { ...files.counts };
    const store = new HttpStore(files.url, { concurrency: 4, ...options() });
    const array = await openCarray(store, F8, { cacheBytes: 0 });
    await array.read();
    const chunk = `${F8}/data/__1.blp`;
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.getRange(chunk, { offset: i * 8, length: 8 })));
    for (let i = 0; i < 20; i++) await store.get(`${F8}/meta/sizes`);
    expect(files.counts.requests - before.requests).toBeGreaterThanOrEqual(4 + 4 + 40 + 20);
    // Observed: fetch (undici) opened 8 connections here for 4 requests in flight.
    expect(files.counts.connections - before.connections).toBeLessThanOrEqual(name === "fetch" ? 8 : 4);
    expect(store.limit.peak).toBe(4);
  });
});

const NODE_MODES = [{ plainHttp: "sockets" as const }, { plainHttp: "node:http" as const }];

describe.each(NODE_MODES)("the Node transport, http: over $plainHttp", ({ plainHttp }) => {
  it("404s, 416s and HEADs leave their connection open for the next request", async () => {
    const before = files.counts.connections;
    const store = new HttpStore(files.url, { concurrency: 1, transport: nodeHttpTransport({ plainHttp }) });
    const size = statSync(join(root, KEY)).size;
    for (let i = 0; i < 10; i++) {
      expect(await store.get(`missing/${i}`)).toBeUndefined();
      expect(await store.getRange(KEY, { offset: 0, length: 0 })).toEqual(new Uint8Array(0)); // HEAD
      expect(await store.getRange(KEY, { offset: size + 10, length: 4 })).toEqual(new Uint8Array(0)); // 416, then HEAD
      expect((await store.get(KEY))?.length).toBe(size);
    }
    expect(store.stats.requests).toBe(10 * 5);
    expect(files.counts.connections - before).toBe(1);
  });

  it("a 404 whose short body stalls ends with the attempt's timeout instead of hanging", async () => {
    const server = createServer((req, res) => {
      res.writeHead(404, { "content-length": 100 });
      res.write("only ten b"); // and never the rest
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const store = new HttpStore(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { transport: nodeHttpTransport({ plainHttp }), retry: { maxAttempts: 1, timeoutMs: 200 } });
      const started = Date.now();
      expect(await store.get(KEY)).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("bodies are plain Uint8Arrays of their own, whether Content-Length is known or not", async () => {
    const chunked = await startStaticServer(root, { omitContentLength: true });
    try {
      for (const url of [files.url, chunked.url]) {
        const store = new HttpStore(url, { transport: nodeHttpTransport({ plainHttp }) });
        const whole = await store.get(`${F8}/data/__0.blp`);
        const part = await store.getRange(`${F8}/data/__0.blp`, { offset: 10, length: 20 });
        for (const bytes of [whole!, part!]) {
          expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
          expect(bytes.byteOffset).toBe(0);
          expect(bytes.buffer.byteLength).toBe(bytes.length);
        }
        expect(part).toEqual(whole!.slice(10, 30));
      }
    } finally {
      await chunked.stop();
    }
  });

  it("a content-encoded answer is refused (no Accept-Encoding is sent and nothing is decoded)", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers["accept-encoding"]);
      const body = gzipSync(Buffer.from("not what was stored"));
      res.writeHead(200, { "content-encoding": "gzip", "content-length": body.length }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const store = new HttpStore(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { transport: nodeHttpTransport({ plainHttp }), retry: { maxAttempts: 3, baseDelayMs: 1 } });
      const error = await rejection(store.get(KEY));
      expect(error).toBeInstanceOf(StorageError);
      expect(error).toMatchObject({ code: "IO_ERROR", path: KEY });
      expect((error as StorageError).message).toContain("gzip-encoded");
      expect(seen).toEqual([undefined]); // not retried
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a refused connection is retried, then ends in IO_ERROR", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const store = new HttpStore(`http://127.0.0.1:${port}/`, { transport: nodeHttpTransport({ plainHttp }), retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } });
    const error = await rejection(store.get(KEY));
    expect(error).toMatchObject({ code: "IO_ERROR", path: KEY });
    expect(((error as StorageError).cause as { code?: string }).code).toBe("ECONNREFUSED");
    expect(store.stats.retries).toBe(2);
  });

  it("refuses to follow redirects itself and speaks only http: and https:", async () => {
    const transport = nodeHttpTransport({ plainHttp });
    const signal = new AbortController().signal;
    await expect(transport({ url: files.url, method: "GET", headers: {}, signal, redirect: "follow" })).rejects.toBeInstanceOf(UsageError);
    await expect(transport({ url: "ftp://127.0.0.1/x", method: "GET", headers: {}, signal, redirect: "manual" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "url" });
    expect(() => nodeHttpTransport({ plainHttp, maxSockets: 0 })).toThrow(UsageError);
    expect(() => new HttpStore(files.url, { fetch: globalThis.fetch, transport })).toThrow(UsageError);
  });

  it("close() ends its kept-alive connections", async () => {
    const transport = nodeHttpTransport({ plainHttp });
    const store = new HttpStore(`${bad.origin}/`, { transport });
    bad.setPlan(() => ({ kind: "pass" }));
    const { opened, closed } = bad.connections;
    await Promise.all([0, 1, 2].map(() => store.get(KEY)));
    const ours = bad.connections.opened - opened;
    expect(ours).toBeGreaterThan(0);
    expect(bad.connections.closed).toBe(closed);
    transport.close();
    await until(() => bad.connections.closed - closed === ours, "closed");
  });

  it("httpStoreForNode reads the dataset with at most `concurrency` connections", async () => {
    const before = files.counts.connections;
    const store = httpStoreForNode(files.url, { concurrency: 2 });
    const array = await openCarray(store, F8, { cacheBytes: 0 });
    expect((await array.read()).length).toBe(6000);
    await Promise.all(Array.from({ length: 10 }, () => store.get(`${F8}/meta/sizes`)));
    expect(files.counts.connections - before).toBeLessThanOrEqual(2);
  });
});
