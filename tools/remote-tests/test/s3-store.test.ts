// S3Store against a real S3-protocol server (s3rver) on loopback: every Store operation, list
// pagination past 1,000 keys, multipart uploads, the lock's conditional create, typed errors, and
// bcolz datasets created, changed and reopened through @fmt/store. The reads run both through the
// AWS SDK and signed and sent by the store itself (the `transport` option).
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchTransport } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { S3Store } from "@fmt/fs-adapters/s3";
import { createCarray, createCtable, open, openCarray, openCtable } from "@fmt/store";
import { countingTransport } from "../src/counting-transport.js";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import type { S3Server } from "../src/s3-server.js";

let server: S3Server;
let client: S3Client;
let prefixCounter = 0;
const fresh = (options: Partial<ConstructorParameters<typeof S3Store>[0]> = {}) =>
  new S3Store({ client, bucket: TEST_BUCKET, prefix: `t${++prefixCounter}/`, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...options });
const bytes = (s: string) => new TextEncoder().encode(s);
// toEqual on megabytes of Uint8Array is very slow; this compares without building a diff.
const sameBytes = (a: Uint8Array | undefined, b: Uint8Array) => a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

beforeAll(async () => {
  server = await startS3Server();
  client = makeClient(server.endpoint);
});
afterAll(async () => {
  client?.destroy();
  await server?.stop();
});

/**
 * The store's two ways of reading. A direct store reads one missing key first: its direct reads
 * take their route from the SDK's first GET, so every read the test checks is a direct one.
 */
const READS = [
  { name: "through the SDK", store: async () => fresh() },
  { name: "direct, node sockets", store: async () => learned(countingTransport(nodeHttpTransport())) },
  { name: "direct, fetch", store: async () => learned(countingTransport(fetchTransport())) },
];
async function learned(transport: ReturnType<typeof countingTransport>): Promise<S3Store> {
  const store = fresh({ transport });
  expect(await store.get("not-there")).toBeUndefined();
  // The route is known: the next read goes through the transport.
  expect(await store.get("not-there-either")).toBeUndefined();
  expect(transport.sent).toHaveLength(1);
  return store;
}

describe.each(READS)("S3Store reads ($name)", ({ store: fresh }) => {
  it("get, put, delete, and missing keys as undefined", async () => {
    const store = await fresh();
    expect(await store.get("a/b")).toBeUndefined();
    await store.put("a/b", bytes("hello"));
    expect(await store.get("a/b")).toEqual(bytes("hello"));
    await store.put("a/b", bytes("bye"));
    expect(await store.get("a/b")).toEqual(bytes("bye"));
    await store.delete("a/b");
    await store.delete("a/b"); // missing: not an error
    expect(await store.get("a/b")).toBeUndefined();
    expect(await store.getRange("a/b", { offset: 0, length: 2 })).toBeUndefined();
  });

  it("ranges: plain, suffix, clipped, past the end, empty", async () => {
    const store = await fresh();
    await store.put("k", bytes("0123456789"));
    await store.put("empty", new Uint8Array(0));
    expect(await store.getRange("k", { offset: 2, length: 3 })).toEqual(bytes("234"));
    expect(await store.getRange("k", { suffixLength: 4 })).toEqual(bytes("6789"));
    expect(store.suffixRepairs).toBe(1); // s3rver reads bytes=-4 as bytes=0-4; one more request repairs it
    expect(await store.getRange("k", { suffixLength: 40 })).toEqual(bytes("0123456789"));
    expect(await store.getRange("k", { offset: 8, length: 100 })).toEqual(bytes("89"));
    expect(await store.getRange("k", { offset: 10, length: 5 })).toEqual(new Uint8Array(0));
    expect(await store.getRange("k", { offset: 3, length: 0 })).toEqual(new Uint8Array(0));
    // (A range of an empty object is not asked here: s3rver resets the connection on it. AWS S3
    // answers 416, which the store turns into an empty result; the HTTP tests cover that path.)
    expect(await store.get("empty")).toEqual(new Uint8Array(0));
    expect(await store.getRange("nope", { offset: 10, length: 5 })).toBeUndefined();
  });

  it("getInto reads a body that fits into the lent buffer (a view of it), a larger one into a new array; ranges and suffixes too", async () => {
    const store = await fresh();
    await store.put("k", bytes("0123456789"));
    const lent = new Uint8Array(64).fill(33);
    const whole = await store.getInto("k", lent);
    expect([whole?.buffer === lent.buffer, whole?.byteOffset, whole && new TextDecoder().decode(whole)]).toEqual([true, 0, "0123456789"]);
    const part = await store.getInto("k", lent, { offset: 7, length: 10 });
    expect([part?.buffer === lent.buffer, part && new TextDecoder().decode(part)]).toEqual([true, "789"]);
    // s3rver answers bytes=-4 from the start: the repair's answer lands in the buffer too.
    const suffix = await store.getInto("k", lent, { suffixLength: 4 });
    expect([suffix?.buffer === lent.buffer, suffix && new TextDecoder().decode(suffix)]).toEqual([true, "6789"]);
    const small = new Uint8Array(4);
    const overflow = await store.getInto("k", small);
    expect([overflow?.buffer === small.buffer, overflow && new TextDecoder().decode(overflow)]).toEqual([false, "0123456789"]);
    expect(await store.getInto("nope", lent)).toBeUndefined();
    expect(await store.getInto("nope", lent, { offset: 0, length: 4 })).toBeUndefined();
    expect(await store.getInto("k", lent, { offset: 3, length: 0 })).toEqual(new Uint8Array(0));
  });
});

describe("S3Store operations", () => {

  it("list pages past 1,000 keys and returns them sorted, only under the prefix", async () => {
    const store = fresh();
    const keys = Array.from({ length: 1203 }, (_, i) => `data/__${i}.blp`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, bytes(k))));
    }
    await store.put("meta/sizes", bytes("{}"));
    store.stats.reset();
    const listed = await store.list("data/");
    expect(listed).toEqual([...keys].sort());
    expect(store.stats.requests).toBe(2); // 1,000 + 203
    expect(await store.list("")).toHaveLength(1204);
    expect(await store.list("data/__120")).toEqual(["data/__120.blp", "data/__1200.blp", "data/__1201.blp", "data/__1202.blp"]);
    expect(await store.list("nothing/")).toEqual([]);
  });

  it("puts a value above the threshold as a multipart upload", async () => {
    const store = fresh({ multipartThreshold: 6 * 1024 * 1024, partSize: 5 * 1024 * 1024 });
    const big = new Uint8Array(11 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i += 4096) big[i] = (i / 4096) & 255;
    store.stats.reset();
    await store.put("big.blp", big);
    expect(store.stats.requests).toBe(5); // create, 3 parts, complete
    expect(sameBytes(await store.get("big.blp"), big)).toBe(true);
    expect(sameBytes(await store.getRange("big.blp", { suffixLength: 5000 }), big.slice(-5000))).toBe(true);
  });

  it("an abort signal stops a request with the signal's reason", async () => {
    const controller = new AbortController();
    const store = fresh({ retry: { signal: controller.signal } });
    controller.abort(new Error("user gave up"));
    await expect(store.get("x")).rejects.toThrow("user gave up");
    expect(store.stats.requests).toBe(0);
  });

  it("a bucket that does not exist is an IO_ERROR", async () => {
    const store = new S3Store({ client, bucket: "no-such-bucket", retry: { maxAttempts: 1 } });
    await expect(store.put("k", bytes("v"))).rejects.toMatchObject({ code: "IO_ERROR", path: "k" });
  });
});

describe("the dataset lock on S3", () => {
  it("auto mode probes the server; s3rver ignores If-None-Match, so the lock is emulated", async () => {
    const store = fresh();
    expect(await store.conditionalCreateMode()).toBe("emulated");
    expect(await store.list("")).toEqual([]); // the probe key is gone
    expect(await store.putExclusive(".lock", bytes("a"))).toBe(true);
    expect(await store.putExclusive(".lock", bytes("b"))).toBe(false);
    expect(await store.get(".lock")).toEqual(bytes("a"));
  });

  it("a second writer gets LOCKED until the first closes", async () => {
    const store = fresh();
    const writer = await createCarray(store, "ds", [1, 2, 3], { dtype: "<i4" });
    await expect(openCarray(store, "ds", { mode: "a" })).rejects.toMatchObject({ code: "LOCKED" });
    await writer.close();
    const again = await openCarray(store, "ds", { mode: "a" });
    await again.close();
    expect(await store.get("ds/.lock")).toBeUndefined();
  });
});

describe("bcolz datasets on S3 through @fmt/store", () => {
  it("carray: create, read, append, modify in place, attrs, resize, trim, reopen", async () => {
    const store = fresh();
    const a = await createCarray(store, "prices.bcolz", Float64Array.from({ length: 25 }, (_, i) => i / 2), { dtype: "<f8", chunklen: 8 });
    await a.append([100, 101, 102]);
    await a.set(3, -1);
    await a.attrs.set("units", "EUR");
    await a.resize(30);
    await a.trim(2);
    await a.close();
    const keys = await store.list("prices.bcolz/");
    expect(keys).toContain("prices.bcolz/meta/sizes");
    expect(keys).toContain("prices.bcolz/data/__0.blp");
    const r = await open(store, "prices.bcolz");
    expect(r.kind).toBe("carray");
    const expected = Array.from({ length: 25 }, (_, i) => i / 2);
    expected.push(100, 101, 102, 0, 0);
    expected[3] = -1;
    expected.length = 28;
    if (r.kind === "carray") {
      expect(Array.from(await r.read() as Float64Array)).toEqual(expected);
      expect(r.attrs.get("units")).toBe("EUR");
    }
  });

  it("ctable: columns, append, addColumn, reopen", async () => {
    const store = fresh();
    const t = await createCtable(store, "t", [
      { name: "id", data: new BigInt64Array([1n, 2n]) },
      { name: "x", data: [0.5, 1.5] },
      { name: "u", data: ["é", "xyz"] },
    ]);
    await t.append({ id: [3n], x: [2.5], u: ["q"] });
    await t.addColumn("ok", [true, false, true]);
    await t.close();
    const r = await openCtable(store, "t");
    expect(r.names).toEqual(["id", "x", "u", "ok"]);
    expect(Array.from(await r.readColumn("id") as BigInt64Array)).toEqual([1n, 2n, 3n]);
    expect(Array.from(await r.readColumn("x") as Float64Array)).toEqual([0.5, 1.5, 2.5]);
    expect(await r.readColumn("u")).toEqual(["é", "xyz", "q"]);
  });
});
