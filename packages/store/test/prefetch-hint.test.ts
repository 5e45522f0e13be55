// A store's `concurrency` hint sets how many fetches a reader keeps in flight (remote stores say
// 16; local ones say nothing and get the reader's default of 4 ahead); its `rangeRequestBytes`
// hint how many bytes a format-2 run of neighbouring slots may span.
import { describe, expect, it } from "vitest";
import { CachingStore, MemoryStore, RangeCoalescingStore } from "@fmt/fs-adapters";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";
import { HttpStore } from "@fmt/fs-adapters/http";
import { S3Store } from "@fmt/fs-adapters/s3";
import { createCarray, openCarray } from "@fmt/store";

/** Answers after a few milliseconds and records the most requests seen in flight at once. */
class SlowStore implements ReadableStore {
  peak = 0;
  #inFlight = 0;
  readonly concurrency?: number;
  readonly #inner: MemoryStore;

  constructor(inner: MemoryStore, concurrency: number | undefined) {
    this.#inner = inner;
    if (concurrency !== undefined) this.concurrency = concurrency;
  }

  async #slow<T>(work: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    this.peak = Math.max(this.peak, this.#inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 3));
      return await work();
    } finally {
      this.#inFlight--;
    }
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.#slow(() => this.#inner.get(key));
  }

  getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    return this.#slow(() => this.#inner.getRange(key, range));
  }
}

async function dataset(formatVersion: 1 | 2): Promise<{ store: MemoryStore; values: Float64Array }> {
  const store = new MemoryStore();
  const values = Float64Array.from({ length: 40 * 256 }, (_, i) => i * 0.25);
  const options = formatVersion === 1 ? { dtype: "float64", chunklen: 256 } : { dtype: "float64", chunklen: 256, formatVersion: 2 as const, superchunksize: 1 };
  await (await createCarray(store, "a", values, options)).close();
  return { store, values };
}

describe("the concurrency hint", () => {
  it.each([1, 2] as const)("format %i: a store that says 12 gets about 12 fetches at once, one that says nothing about 5", async (version) => {
    const { store, values } = await dataset(version);
    const remote = new SlowStore(store, 12);
    expect(await (await openCarray(remote, "a")).read()).toEqual(values);
    expect(remote.peak).toBeGreaterThanOrEqual(10);
    // Format 2 also loads the indexes of the next superchunks (half the hint ahead) meanwhile.
    expect(remote.peak).toBeLessThanOrEqual(version === 1 ? 13 : 19);
    const local = new SlowStore(store, undefined);
    expect(await (await openCarray(local, "a")).read()).toEqual(values);
    expect(local.peak).toBeLessThanOrEqual(5);
  });

  it("the prefetch option still wins over the hint", async () => {
    const { store } = await dataset(1);
    const remote = new SlowStore(store, 12);
    await (await openCarray(remote, "a", { prefetch: 1 })).read();
    expect(remote.peak).toBeLessThanOrEqual(3);
  });

  it("remote stores say 16 by default, wrappers pass the hint on, bad values are refused", () => {
    const http = new HttpStore("http://127.0.0.1:9/");
    expect(http.concurrency).toBe(16);
    expect(new HttpStore("http://127.0.0.1:9/", { concurrency: 3 }).concurrency).toBe(3);
    expect(new CachingStore(http).concurrency).toBe(16);
    expect(new CachingStore(new MemoryStore()).concurrency).toBeUndefined();
    expect(() => new HttpStore("http://127.0.0.1:9/", { concurrency: 0 })).toThrow(/concurrency must be/);
  });
});

/** Records the length of every range read of a chunk run (offset past a superchunk's table). */
class RecordingStore implements ReadableStore {
  readonly concurrency = 16;
  readonly rangeRequestBytes?: number;
  readonly runs: number[] = [];
  readonly #inner: MemoryStore;

  constructor(inner: MemoryStore, rangeRequestBytes: number | undefined) {
    this.#inner = inner;
    if (rangeRequestBytes !== undefined) this.rangeRequestBytes = rangeRequestBytes;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.#inner.get(key);
  }

  getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    if (key.includes("/data/") && "offset" in range && range.offset > 0) this.runs.push(range.length);
    return this.#inner.getRange(key, range);
  }
}

describe("the rangeRequestBytes hint", () => {
  // 64 chunks of 32 KiB that do not compress (each slot a little over 32 KiB), one superchunk file.
  const values = new Float64Array(64 * 4096);
  const words = new Uint32Array(values.buffer);
  for (let i = 0, x = 2463534242; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0; // xorshift32: random bits in every byte, so Blosc keeps each chunk as it is
  }
  const dataset = (async () => {
    const store = new MemoryStore();
    await (await createCarray(store, "a", values, { dtype: "float64", chunklen: 4096, formatVersion: 2, superchunksize: 64 })).close();
    return store;
  })();

  it("format 2: runs span at most the hinted bytes; without a hint a concurrent store gets runs of up to 4 MiB", async () => {
    const counts = new Map<number | undefined, number>();
    for (const hint of [undefined, 256 * 1024, 1]) {
      const store = new RecordingStore(await dataset, hint);
      const got = (await (await openCarray(store, "a")).read()) as Float64Array;
      expect(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(Buffer.from(values.buffer))).toBe(true);
      expect(store.runs.reduce((a, b) => a + b, 0)).toBeGreaterThan(values.byteLength);
      counts.set(hint, store.runs.length);
      if (hint === 256 * 1024) expect(Math.max(...store.runs)).toBeLessThanOrEqual(hint);
      // A hint below 64 KiB counts as 64 KiB: two slots exceed it, so every run is one slot.
      if (hint === 1) expect(Math.max(...store.runs)).toBeLessThan(64 * 1024);
    }
    expect(counts.get(undefined)).toBe(1); // 64 slots of ~32 KiB: one run of 2 MiB
    expect(counts.get(256 * 1024)).toBeGreaterThanOrEqual(9); // 7 slots of ~32 KiB fit 256 KiB
    expect(counts.get(256 * 1024)).toBeLessThanOrEqual(16);
    expect(counts.get(1)).toBe(64);
  });

  it("HTTP stores say 1 MiB and S3 stores 4 MiB by default, wrappers pass the hint on, bad values are refused", () => {
    const http = new HttpStore("http://127.0.0.1:9/");
    expect(http.rangeRequestBytes).toBe(1024 * 1024);
    expect(new HttpStore("http://127.0.0.1:9/", { rangeRequestBytes: 65536 }).rangeRequestBytes).toBe(65536);
    expect(new CachingStore(http).rangeRequestBytes).toBe(1024 * 1024);
    expect(new RangeCoalescingStore(http).rangeRequestBytes).toBe(1024 * 1024);
    expect(new CachingStore(new MemoryStore()).rangeRequestBytes).toBeUndefined();
    const s3 = (rangeRequestBytes?: number) => new S3Store({ bucket: "b", client: { region: "us-east-1" }, ...(rangeRequestBytes === undefined ? {} : { rangeRequestBytes }) });
    expect(s3().rangeRequestBytes).toBe(4 * 1024 * 1024);
    expect(s3(8 << 20).rangeRequestBytes).toBe(8 << 20);
    for (const bad of [65535, 1_500_000.5, 2 ** 24 + 1]) {
      expect(() => new HttpStore("http://127.0.0.1:9/", { rangeRequestBytes: bad })).toThrow(/rangeRequestBytes must be an integer from 65536/);
      expect(() => s3(bad)).toThrow(/rangeRequestBytes must be an integer from 65536/);
    }
  });
});
