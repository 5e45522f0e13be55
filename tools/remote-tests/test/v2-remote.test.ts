// Format-2 (superchunk) carrays read remotely, counted where it matters: at a counting proxy in
// front of the real S3-protocol server (s3rver) and in front of the static HTTP server, so every
// number below is what the server was asked, not what a store wrapper believes it sent.
//
// (a) One element on a fresh handle costs at most three range requests for chunk data
//     (spec/v2.md §9): the superchunk's header + metadata + offsets table in one request of
//     32 + 216 + 8·S bytes, then the chunk's slot; a third only when the metadata section is longer
//     than the reader's guess. The metadata files read at open time are counted apart.
// (b) Reading a whole carray fetches neighbouring slots of one superchunk with one range request
//     (groups of at most 64 chunks), far fewer requests than chunks, with at most `prefetch + 1`
//     requests in flight at once, and the values are right.
// The HTTP store runs with each of its transports (fetch, node:http).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpStore } from "@fmt/fs-adapters/http";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { S3Store } from "@fmt/fs-adapters/s3";
import type { ReadableStore, WritableStore } from "@fmt/fs-adapters";
import { createCarray, openCarray } from "@fmt/store";
import { HTTP_TRANSPORTS } from "../src/transports.js";
import { parseRange, startCountingProxy } from "../src/counting-proxy.js";
import type { CountingProxy, LoggedRequest } from "../src/counting-proxy.js";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import type { S3Server } from "../src/s3-server.js";
import { startStaticServer } from "../src/static-server.js";
import type { StaticServer } from "../src/static-server.js";

/** Bytes the reader's first request of a superchunk assumes for the metadata section. */
const METADATA_GUESS = 216;
const HEADER = 32;

// "single": 23,500 rows of <f8 in chunks of 1,000 (24 chunks, the last one partial), S = 8:
// three superchunk files of 8 chunks each.
const SINGLE = { rows: 23_500, chunklen: 1000, S: 8, checksum: "adler32" as const };
// "wide": 50,000 rows of <f8 in chunks of 50 (1,000 chunks), S = 256: four superchunk files
// (256, 256, 256, 232 chunks); a coalesced group holds at most 64 chunks, so 4 + 4 + 4 + 4 groups.
const WIDE = { rows: 50_000, chunklen: 50, S: 256, checksum: "crc32" as const };
const WIDE_GROUPS = 16;
const WIDE_FILES = 4;

const valuesOf = (n: number, seed: number) => Float64Array.from({ length: n }, (_, i) => Math.round(1000 * Math.sin(i * 0.013 + seed)) / 8 + (i % 97));
const singleData = valuesOf(SINGLE.rows, 1);
const wideData = valuesOf(WIDE.rows, 2);

const isData = (r: LoggedRequest) => /\/data\/__\d+__\.bin$/.test(r.path);
const fileOf = (r: LoggedRequest) => Number(/\/data\/__(\d+)__\.bin$/.exec(r.path)![1]);
const sameValues = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
};

/** The offsets of the live chunks of a superchunk file (its header's nchunks entries). */
function liveOffsets(file: Uint8Array): { offsets: number[]; metaSize: number } {
  const view = new DataView(file.buffer, file.byteOffset, file.length);
  const nchunks = Number(view.getBigInt64(16, true));
  const metaSize = view.getInt32(24, true);
  const offsets: number[] = [];
  for (let i = 0; i < nchunks; i++) offsets.push(Number(view.getBigInt64(HEADER + metaSize + 8 * i, true)));
  return { offsets, metaSize };
}

/**
 * The same superchunk with `extra` more bytes of spaces after its metadata JSON (spec/v2.md §5
 * allows any amount; `extra` a multiple of 8 keeps the table aligned): meta-size grows and every
 * offsets entry moves by `extra`. Checksums are bound to the chunk's index, not its position.
 */
function padMetadata(file: Uint8Array, extra: number): Uint8Array {
  const view = new DataView(file.buffer, file.byteOffset, file.length);
  const metaSize = view.getInt32(24, true);
  const capacity = (JSON.parse(new TextDecoder().decode(file.subarray(HEADER, HEADER + metaSize))) as { capacity: number }).capacity;
  const out = new Uint8Array(file.length + extra);
  out.set(file.subarray(0, HEADER + metaSize));
  out.fill(0x20, HEADER + metaSize, HEADER + metaSize + extra);
  out.set(file.subarray(HEADER + metaSize), HEADER + metaSize + extra);
  const o = new DataView(out.buffer);
  o.setInt32(24, metaSize + extra, true);
  for (let i = 0; i < capacity; i++) {
    const at = HEADER + metaSize + extra + 8 * i;
    const entry = o.getBigInt64(at, true);
    if (entry >= 0n) o.setBigInt64(at, entry + BigInt(extra), true);
  }
  return out;
}

let s3: S3Server;
let s3Proxy: CountingProxy;
let root: string;
let http: StaticServer;
let httpProxy: CountingProxy;
const report: string[] = [];

const direct = () => new S3Store({ client: makeClient(s3.endpoint), bucket: TEST_BUCKET, prefix: "v2/" });
const viaS3Proxy = () => new S3Store({ client: makeClient(s3Proxy.endpoint), bucket: TEST_BUCKET, prefix: "v2/" });
const viaHttpProxy = (transport: (typeof HTTP_TRANSPORTS)[number]) => () => new HttpStore(`${httpProxy.endpoint}/`, transport.options());

async function createBoth(store: WritableStore, fs: WritableStore): Promise<void> {
  for (const target of [store, fs]) {
    await (await createCarray(target, "single", singleData, { dtype: "<f8", chunklen: SINGLE.chunklen, formatVersion: 2, superchunksize: SINGLE.S, checksum: SINGLE.checksum })).close();
    await (await createCarray(target, "wide", wideData, { dtype: "<f8", chunklen: WIDE.chunklen, formatVersion: 2, superchunksize: WIDE.S, checksum: WIDE.checksum })).close();
  }
  // "padded": "single" with a 1,000-byte metadata section in every superchunk (longer than the
  // reader's first-request guess), for the three-request case.
  for (const target of [store, fs]) {
    for (const key of ["meta/storage", "meta/shape", "__attrs__"]) await target.put(`padded/${key}`, (await target.get(`single/${key}`))!);
    for (let s = 1; s <= 3; s++) await target.put(`padded/data/__${s}__.bin`, padMetadata((await target.get(`single/data/__${s}__.bin`))!, 1000 - 40));
  }
}

beforeAll(async () => {
  s3 = await startS3Server();
  s3Proxy = await startCountingProxy(s3.port);
  root = mkdtempSync(join(tmpdir(), "v2-remote-"));
  // Written by the format-2 writer straight onto S3 (whole-object puts) and onto local files.
  await createBoth(direct(), new FileSystemStore(root));
  http = await startStaticServer(root);
  httpProxy = await startCountingProxy(Number(new URL(http.url).port));
}, 60_000);

afterAll(async () => {
  await httpProxy?.stop();
  await http?.stop();
  await s3Proxy?.stop();
  await s3?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  if (report.length > 0) console.log(`v2 remote reads, counted at the server:\n  ${report.join("\n  ")}`);
});

interface Remote {
  name: string;
  proxy: () => CountingProxy;
  store: () => ReadableStore;
  /** Superchunk file `s` of `dataset`, read directly (not through the proxy). */
  file: (dataset: string, s: number) => Promise<Uint8Array>;
  /** What the server's log calls the open-time metadata files. */
  openFiles: string[];
}

const remotes: Remote[] = [
  {
    name: "S3 (s3rver)",
    proxy: () => s3Proxy,
    store: viaS3Proxy,
    file: async (dataset, s) => (await direct().get(`${dataset}/data/__${s}__.bin`))!,
    openFiles: ["meta/storage", "meta/shape", "__attrs__", ".journal"],
  },
  ...HTTP_TRANSPORTS.map((transport): Remote => ({
    name: `HTTP (static server, ${transport.name})`,
    proxy: () => httpProxy,
    store: viaHttpProxy(transport),
    file: async (dataset, s) => new Uint8Array(readFileSync(join(root, dataset, "data", `__${s}__.bin`))),
    openFiles: ["meta/storage", "meta/shape", "__attrs__", ".journal"],
  })),
];

describe.each(remotes)("format 2 over $name", (remote) => {
  it("one element on a fresh handle: 2 range requests for chunk data (≤ 3), open-time metadata apart", async () => {
    const proxy = remote.proxy();
    proxy.setDelay(() => 0);
    const rows = [0, 999, 1000, 7_999, 8_000, 12_345, 16_000, 23_499];
    for (const row of rows) {
      proxy.reset();
      const array = await openCarray(remote.store(), "single");
      const opened = proxy.log.slice();
      // meta/storage, meta/shape, __attrs__, .journal (absent: 404), nothing else and no chunk data.
      expect(opened.map((r) => r.path.replace(/^.*\/single\//, "")).sort()).toEqual([...remote.openFiles].sort());
      expect(opened.find((r) => r.path.endsWith("/.journal"))?.status).toBe(404);
      proxy.reset();
      expect(await array.get(row)).toBe(singleData[row]);
      const log = proxy.log.slice();
      expect(log.every(isData)).toBe(true);
      expect(log.every((r) => r.method === "GET" && r.status === 206)).toBe(true);
      expect(log.length).toBeLessThanOrEqual(3);
      expect(log).toHaveLength(2);
      // Sequential by nature: the chunk's offset is known only once the table has arrived.
      const [first, second] = [...log].sort((a, b) => a.start - b.start) as [LoggedRequest, LoggedRequest];
      const s = Math.floor(Math.floor(row / SINGLE.chunklen) / SINGLE.S) + 1;
      expect(fileOf(first)).toBe(s);
      expect(fileOf(second)).toBe(s);
      expect(first.range).toBe(`bytes=0-${HEADER + METADATA_GUESS + 8 * SINGLE.S - 1}`);
      // The second is exactly the chunk's slot: from its offset, cut at the next live offset.
      const bytes = await remote.file("single", s);
      const { offsets } = liveOffsets(bytes);
      const i = Math.floor(row / SINGLE.chunklen) % SINGLE.S;
      const [start, end] = parseRange(second.range)!;
      expect(start).toBe(offsets[i]);
      const next = offsets.filter((o) => o > offsets[i]!).sort((a, b) => a - b)[0];
      if (next !== undefined) expect(end).toBe(next);
      else expect(end - start).toBeLessThanOrEqual(SINGLE.chunklen * 8 + 16 + 4);
      expect(second.start).toBeGreaterThanOrEqual(first.end - 1);
    }
    report.push(`${remote.name}: open = 4 requests (${remote.openFiles.join(", ")}); get(k) on a fresh handle = 2 range requests (table, slot), for ${rows.length} rows in 3 files`);
  });

  it("later elements on the same handle: same chunk 0 requests, same superchunk 1, next superchunk 2", async () => {
    const proxy = remote.proxy();
    proxy.setDelay(() => 0);
    const array = await openCarray(remote.store(), "single");
    const cost = async (row: number) => {
      proxy.reset();
      expect(await array.get(row)).toBe(singleData[row]);
      expect(proxy.log.every(isData)).toBe(true);
      return proxy.log.length;
    };
    expect(await cost(2500)).toBe(2); // table of file 1 + chunk 2
    expect(await cost(2501)).toBe(0); // decoded chunk cached
    expect(await cost(6100)).toBe(1); // chunk 6: the table of file 1 is kept
    expect(await cost(9000)).toBe(2); // file 2: its table, then chunk 9
    expect(await cost(7000)).toBe(1);
  });

  it("a slice across a superchunk boundary: per file its table and one group of neighbouring slots", async () => {
    const proxy = remote.proxy();
    proxy.setDelay(() => 0);
    const array = await openCarray(remote.store(), "single");
    proxy.reset();
    // Rows 7,500 … 12,499: chunk 7 (file 1), chunks 8 … 12 (file 2).
    expect(sameValues((await array.read(7_500, 12_500)) as Float64Array, singleData.subarray(7_500, 12_500))).toBe(true);
    // By file, then offset: the second file's index may load while the first file's slot is read.
    const log = [...proxy.log].sort((a, b) => fileOf(a) - fileOf(b) || a.start - b.start);
    expect(log.every(isData)).toBe(true);
    expect(log.map(fileOf)).toEqual([1, 1, 2, 2]);
    const second = liveOffsets(await remote.file("single", 2)).offsets;
    const [start, end] = parseRange(log[3]!.range)!;
    expect(start).toBe(second[0]);
    expect(second.filter((o) => o >= start && o < end)).toHaveLength(5);
  });

  it("a metadata section longer than the reader's guess: exactly 3 range requests", async () => {
    const proxy = remote.proxy();
    proxy.setDelay(() => 0);
    for (const row of [0, 12_345, 23_499]) {
      const array = await openCarray(remote.store(), "padded");
      proxy.reset();
      expect(await array.get(row)).toBe(singleData[row]);
      const log = [...proxy.log].sort((a, b) => a.start - b.start);
      expect(log.every(isData)).toBe(true);
      expect(log).toHaveLength(3);
      expect(log[0]!.range).toBe(`bytes=0-${HEADER + METADATA_GUESS + 8 * SINGLE.S - 1}`);
      // The second request reaches to the end of the table (the reader asks from byte 0 again).
      expect(parseRange(log[1]!.range)![1]).toBe(HEADER + 1000 + 8 * SINGLE.S);
    }
    report.push(`${remote.name}: get(k) with a 1,000-byte superchunk metadata section = 3 range requests`);
  });

  for (const prefetch of [4, 1]) {
    it(`reading the whole array (prefetch ${prefetch}): one request per group of neighbouring slots, at most ${prefetch + 1} data fetches and the next indexes in flight, right values`, async () => {
      const proxy = remote.proxy();
      // A delay per request makes overlap visible on loopback (answers otherwise return before the next request is sent).
      proxy.setDelay((r) => (/\/data\//.test(r.path) ? 25 : 0));
      try {
        const array = await openCarray(remote.store(), "wide", { prefetch });
        proxy.reset();
        const t0 = performance.now();
        const got = await array.read();
        const ms = performance.now() - t0;
        expect(sameValues(got as Float64Array, wideData)).toBe(true);
        const log = [...proxy.log].sort((a, b) => a.start - b.start);
        expect(log.every((r) => isData(r) && r.method === "GET" && r.status === 206)).toBe(true);
        const nchunks = WIDE.rows / WIDE.chunklen;
        // Per file: one request for header + metadata + table (the first of that file), then groups.
        const tables = log.filter((r) => r.range === `bytes=0-${HEADER + METADATA_GUESS + 8 * WIDE.S - 1}`);
        expect(tables.map(fileOf)).toEqual([1, 2, 3, 4]);
        const groups = log.filter((r) => !tables.includes(r));
        expect(log).toHaveLength(WIDE_FILES + WIDE_GROUPS);
        expect(groups).toHaveLength(WIDE_GROUPS);
        // Every chunk is in exactly one group, each group is a run of consecutive slots of one file
        // starting at a slot's offset, and the groups of a file tile its slots without overlap.
        let covered = 0;
        for (let s = 1; s <= WIDE_FILES; s++) {
          const { offsets } = liveOffsets(await remote.file("wide", s));
          const mine = groups.filter((g) => fileOf(g) === s).map((g) => parseRange(g.range)!).sort((a, b) => a[0] - b[0]);
          for (const [k, [start, end]] of mine.entries()) {
            expect(offsets).toContain(start);
            if (k > 0) expect(start).toBe(mine[k - 1]![1]);
            const members = offsets.filter((o) => o >= start && o < end).length;
            expect(members).toBeGreaterThan(0);
            expect(members).toBeLessThanOrEqual(64);
            covered += members;
          }
          expect(mine[0]![0]).toBe(Math.min(...offsets));
        }
        expect(covered).toBe(nchunks);
        // Bounded concurrency, as the server saw it, and real overlap: the prefetch + 1 data
        // fetches plus the indexes of the next superchunks (half the prefetch, at least one).
        expect(proxy.peak).toBeLessThanOrEqual(prefetch + 1 + Math.max(1, Math.ceil(prefetch / 2)));
        expect(proxy.peak).toBeGreaterThanOrEqual(Math.min(2, prefetch + 1));
        const overlapping = log.filter((r) => r.inFlightAtStart > 1).length;
        report.push(
          `${remote.name}: read-all of 1,000 chunks in 4 files, prefetch ${prefetch}: ${log.length} range requests (${tables.length} tables + ${groups.length} groups of ≤ 64 slots), ` +
            `peak ${proxy.peak} in flight, ${overlapping} requests started while another was in flight, ${ms.toFixed(0)} ms with 25 ms per request`,
        );
      } finally {
        proxy.setDelay(() => 0);
      }
    });
  }
});
