// The HTTP store and the S3 store against a misbehaving server on loopback in front of real
// datasets (real bcolz 1.2.1 datasets from the corpus, one uncompressed and one compressed, and
// a format-2 dataset written by createCarray): every fault either reads the right values or ends
// in a typed IO_ERROR naming the key and the ranges; nothing is read past what a request can
// return; Retry-After is honoured within the deadline; no configured header reaches another origin.
// The HTTP store runs with each of its transports (fetch, node:http); the S3 store through the
// AWS SDK and with its own signed reads (the `transport` option: node sockets, fetch).
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadableStore } from "@fmt/fs-adapters";
import { HttpStore, fetchTransport } from "@fmt/fs-adapters/http";
import type { HttpStoreOptions } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { S3Store } from "@fmt/fs-adapters/s3";
import type { S3StoreOptions } from "@fmt/fs-adapters/s3";
import { createCarray, openCarray } from "@fmt/store";
import { startMisbehavingServer } from "../src/misbehaving-server.js";
import type { MisbehavingServer, Misbehaviour, MisbehaviourPlan } from "../src/misbehaving-server.js";
import { countingTransport } from "../src/counting-transport.js";
import { TEST_BUCKET, makeClient } from "../src/s3-server.js";
import { HTTP_TRANSPORTS } from "../src/transports.js";
import type { HttpTransportCase } from "../src/transports.js";
import { storageRejection as rejection } from "../src/rejection.js";

const CORPUS = new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url).pathname;
const RETRY = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 3000 };
const SECRETS = { authorization: "Bearer secret-token", cookie: "session=secret", "x-api-key": "secret-key" };

interface Dataset {
  label: string;
  path: string;
  expected: () => Uint8Array;
}
const V2_DATA = Float64Array.from({ length: 3000 }, (_, i) => i * 1.5 - 7);
const DATASETS: Dataset[] = [
  // clevel 0: chunks stored uncompressed, so shifted bytes would decode as (wrong) values.
  { label: "v1 real, uncompressed", path: "codec_lz4_c0_s1_i4", expected: () => new Uint8Array(readFileSync(join(CORPUS, "codec_lz4_c0_s1_i4", "expected", "values.bin"))) },
  // 137 KB chunk files of several Blosc blocks: single elements are read as a header and one block.
  { label: "v1 real, multi-block", path: "multiblock_i4_lz4_cl131072", expected: () => new Uint8Array(readFileSync(join(CORPUS, "multiblock_i4_lz4_cl131072", "expected", "values.bin"))) },
  { label: "v2", path: "v2_f8", expected: () => new Uint8Array(V2_DATA.buffer.slice(0)) },
];

let root: string;
let bad: MisbehavingServer;
let foreign: MisbehavingServer;

/** The store under test: HTTP with one of its transports, or S3 (with `s3`: its direct reads' transport). */
type Kind = { name: string; transport?: HttpTransportCase; s3?: () => Partial<S3StoreOptions> };
const KINDS: Kind[] = [
  ...HTTP_TRANSPORTS.map((transport) => ({ name: `http (${transport.name})`, transport })),
  { name: "s3" },
  { name: "s3 (direct reads, node sockets)", s3: () => ({ transport: countingTransport(nodeHttpTransport()) }) },
  { name: "s3 (direct reads, fetch)", s3: () => ({ transport: countingTransport(fetchTransport()) }) },
];
/** The counting transport of each direct-reading S3 store made here. */
const directSent = new WeakMap<object, string[]>();
function makeStore(kind: Kind, extra: { http?: HttpStoreOptions; s3?: Partial<S3StoreOptions> } = {}): HttpStore | S3Store {
  if (kind.transport !== undefined) return new HttpStore(`${bad.origin}/`, { headers: { ...SECRETS }, retry: RETRY, ...extra.http, ...kind.transport.options() });
  const options = { ...kind.s3?.(), ...extra.s3 };
  const store = new S3Store({ client: makeClient(bad.origin), bucket: TEST_BUCKET, retry: RETRY, ...options });
  const transport = options.transport as { sent?: string[] } | undefined;
  if (transport?.sent !== undefined) directSent.set(store, transport.sent);
  return store;
}

/** For a direct-reading S3 store: that it sent requests itself (the faults met its direct path). */
function expectDirectReads(store: ReadableStore): void {
  const sent = directSent.get(store);
  if (sent !== undefined) expect(sent.length, "requests the store sent itself").toBeGreaterThan(0);
}

/**
 * {@link makeStore}, after one read without faults: an S3 store's direct reads take their route
 * from the SDK's first GET, so the faults that follow meet the direct path.
 */
async function readyStore(kind: Kind, dataset: Dataset): Promise<HttpStore | S3Store> {
  const store = makeStore(kind);
  bad.setPlan(() => ({ kind: "pass" }));
  await store.get(`${dataset.path}/meta/sizes`);
  const before = directSent.get(store)?.length ?? 0;
  await store.get(`${dataset.path}/meta/sizes`);
  // More requests, not exactly one more: a transient failure of the loopback servers under load
  // may be retried (one clean-clone CI run of 2026-12-02 saw two sends here). None would mean
  // the SDK read it. Stores that do not record (HTTP, S3 through the SDK) have nothing to check.
  const sent = directSent.get(store);
  if (sent !== undefined) expect(sent.length, "the second read went through the store's transport").toBeGreaterThan(before);
  store.stats.reset();
  return store;
}

/** Only GETs carrying a Range get `fault`; everything else passes. */
const onRanges = (fault: Misbehaviour): MisbehaviourPlan => ({ method, range }) => (method === "GET" && range !== undefined ? fault : { kind: "pass" });

/** Opens the dataset and reads single elements and then everything; compares with the expected bytes. */
async function readAndCompare(store: ReadableStore, dataset: Dataset): Promise<void> {
  const expected = dataset.expected();
  const a = await openCarray(store, dataset.path);
  const itemsize = expected.length / a.length;
  for (const i of [0, 1, Math.floor(a.length / 2), a.length - 1]) {
    const got = await a.getBytes(i);
    expect(Array.from(got), `element ${i}`).toEqual(Array.from(expected.subarray(i * itemsize, (i + 1) * itemsize)));
  }
  const all = await a.readBytes();
  expect(all.length).toBe(expected.length);
  expect(all.every((x, i) => x === expected[i])).toBe(true);
  expectDirectReads(store);
}

/** The largest file of a dataset, as a key and its bytes. */
function largestFile(dataset: Dataset): { key: string; bytes: Uint8Array } {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
  const files = walk(join(root, dataset.path)).sort((a, b) => statSync(b).size - statSync(a).size);
  const file = files[0]!;
  return { key: file.slice(root.length + 1), bytes: new Uint8Array(readFileSync(file)) };
}

/** `getRange` itself gives exactly the asked bytes (a middle range and a suffix of the largest file). */
async function rangesExact(store: ReadableStore, dataset: Dataset): Promise<void> {
  const { key, bytes } = largestFile(dataset);
  const mid = await store.getRange!(key, { offset: 100, length: 37 });
  expect(Array.from(mid ?? [])).toEqual(Array.from(bytes.subarray(100, 137)));
  const tail = await store.getRange!(key, { suffixLength: 50 });
  expect(Array.from(tail ?? [])).toEqual(Array.from(bytes.subarray(bytes.length - 50)));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "misbehaving-"));
  for (const d of DATASETS.slice(0, 2)) cpSync(join(CORPUS, d.path, "data.bcolz"), join(root, d.path), { recursive: true });
  await (await createCarray(new FileSystemStore(root), "v2_f8", V2_DATA, { dtype: "<f8", chunklen: 700, formatVersion: 2 })).close();
  bad = await startMisbehavingServer(root, { bucket: TEST_BUCKET });
  foreign = await startMisbehavingServer(root, { bucket: TEST_BUCKET });
});
afterAll(async () => {
  await bad?.stop();
  await foreign?.stop();
  rmSync(root, { recursive: true, force: true });
});

for (const kind of KINDS) {
  describe(`${kind.name} store`, () => {
    for (const dataset of DATASETS) {
      describe(dataset.label, () => {
        it("a 206 whose Content-Range names another range of the same length ends in IO_ERROR naming both ranges", async () => {
          bad.setPlan(onRanges({ kind: "shift", delta: 1000 }));
          const store = makeStore(kind);
          const error = await rejection(readAndCompare(store, dataset));
          expectDirectReads(store);
          expect(error.code).toBe("IO_ERROR");
          expect(error.path).toMatch(new RegExp(`^${dataset.path}/`));
          expect(String(error.expected)).toMatch(/^bytes=\d*-\d+$/);
          expect(String(error.actual)).toMatch(/^206 bytes \d+-\d+\/\d+/);
          expect(error.message).toContain(kind.transport !== undefined ? bad.origin : `s3://${TEST_BUCKET}/`);
        });

        it("a 206 for a 4 KiB-aligned superset reads the right values", async () => {
          bad.setPlan(onRanges({ kind: "align", align: 4096 }));
          const store = makeStore(kind);
          await rangesExact(store, dataset);
          await readAndCompare(store, dataset);
        });

        it("a 206 whose body runs past the asked length reads the right values", async () => {
          bad.setPlan(onRanges({ kind: "overlong", extra: 100 }));
          const store = makeStore(kind);
          await rangesExact(store, dataset);
          await readAndCompare(store, dataset);
        });

        it("a 200 with the whole value to a range request reads the right values", async () => {
          bad.setPlan(onRanges({ kind: "ignore-range" }));
          const store = makeStore(kind);
          await rangesExact(store, dataset);
          await readAndCompare(store, dataset);
        });

        it("a redirect to another path of the same server is followed", async () => {
          bad.setPlan(({ index }) => (index % 2 === 0 ? { kind: "redirect", status: 307, location: (p) => `/moved${p}` } : { kind: "pass" }));
          const store = makeStore(kind);
          await rangesExact(store, dataset);
          await readAndCompare(store, dataset);
        });

        it("stray bytes after a body on a kept-alive connection are retried on a fresh connection", async () => {
          bad.setPlan(({ method }) => (method === "GET" ? { kind: "stray", bytes: "garbage!\r\n" } : { kind: "pass" }));
          const store = makeStore(kind);
          await rangesExact(store, dataset);
          await readAndCompare(store, dataset);
        });

        it("a 10 GB Content-Length for a small metadata key is refused before its body is read", async () => {
          // The first key read (a small metadata file) announces 10 GB, every time it is asked.
          // (A direct-reading S3 store has read once before, so its direct path meets the fault.)
          const store = kind.s3 !== undefined ? await readyStore(kind, dataset) : makeStore(kind);
          let first: string | undefined;
          bad.setPlan(({ method, key }) => {
            if (method === "GET") first ??= key;
            return key === first ? { kind: "huge", announced: 10 * 1024 ** 3 } : { kind: "pass" };
          });
          bad.hugeBytesSent = 0;
          const started = Date.now();
          const error = await rejection(readAndCompare(store, dataset));
          expectDirectReads(store);
          expect(error.code).toBe("IO_ERROR");
          expect(first).toMatch(new RegExp(`^${dataset.path}/`));
          expect(error.path).toBe(first);
          expect(Date.now() - started).toBeLessThan(2000);
          expect(bad.hugeBytesSent).toBeLessThan(32 * 1024 * 1024);
        });

        it("a redirect to another origin is refused by default, and nothing reaches that origin", async () => {
          const store = kind.s3 !== undefined ? await readyStore(kind, dataset) : makeStore(kind);
          bad.setPlan(() => ({ kind: "redirect", location: (p) => `${foreign.origin}${p}` }));
          foreign.seen.length = 0;
          const error = await rejection(readAndCompare(store, dataset));
          expectDirectReads(store);
          expect(error.code).toBe("IO_ERROR");
          expect(error.message).toMatch(/another (origin|endpoint)/);
          expect(String(error.actual)).toContain(foreign.origin);
          expect(foreign.seen).toHaveLength(0);
        });
      });
    }

    it("429 with Retry-After: 1 (seconds) waits a second, then reads", async () => {
      const store = await readyStore(kind, DATASETS[0]!);
      let first = true;
      bad.setPlan(() => {
        if (!first) return { kind: "pass" };
        first = false;
        return { kind: "retry-after", value: "1" };
      });
      const started = Date.now();
      await readAndCompare(store, DATASETS[0]!);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(store.stats.retries).toBe(1);
    });

    it("429 with Retry-After as an HTTP-date waits until then, then reads", async () => {
      const store = await readyStore(kind, DATASETS[2]!);
      let first = true;
      bad.setPlan(() => {
        if (!first) return { kind: "pass" };
        first = false;
        return { kind: "retry-after", value: new Date(Date.now() + 2000).toUTCString() };
      });
      const started = Date.now();
      await readAndCompare(store, DATASETS[2]!);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(store.stats.retries).toBe(1);
    });

    it("a Retry-After past the overall deadline ends the request at once with IO_ERROR", async () => {
      const store = await readyStore(kind, DATASETS[0]!);
      bad.setPlan(() => ({ kind: "retry-after", value: "3600" }));
      const before = bad.seen.length;
      const started = Date.now();
      const error = await rejection(openCarray(store, DATASETS[0]!.path));
      expect(error.code).toBe("IO_ERROR");
      expect(Date.now() - started).toBeLessThan(1000);
      expect(bad.seen.length - before).toBe(1);
    });
  });
}

describe.each(HTTP_TRANSPORTS)("cross-origin redirects with the user's consent (http store, $name)", (transport) => {
  const kind: Kind = { name: "http", transport };
  it("are followed without any configured header unless it is named", async () => {
    bad.setPlan(() => ({ kind: "redirect", location: (p) => `${foreign.origin}${p}` }));
    foreign.seen.length = 0;
    await readAndCompare(makeStore(kind, { http: { redirects: { allowCrossOrigin: true } } }), DATASETS[0]!);
    expect(foreign.seen.length).toBeGreaterThan(0);
    for (const request of foreign.seen) for (const name of Object.keys(SECRETS)) expect(request.headers[name], name).toBeUndefined();

    foreign.seen.length = 0;
    await readAndCompare(makeStore(kind, { http: { redirects: { allowCrossOrigin: true, forwardHeaders: ["X-Api-Key"] } } }), DATASETS[2]!);
    expect(foreign.seen.length).toBeGreaterThan(0);
    for (const request of foreign.seen) {
      expect(request.headers["x-api-key"]).toBe(SECRETS["x-api-key"]);
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers.cookie).toBeUndefined();
    }
  });
});
