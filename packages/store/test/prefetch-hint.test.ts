// A store's `concurrency` hint sets how many fetches a reader keeps in flight (remote stores say
// 16; local ones say nothing and get the reader's default of 4 ahead).
import { describe, expect, it } from "vitest";
import { CachingStore, MemoryStore } from "@fmt/fs-adapters";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";
import { HttpStore } from "@fmt/fs-adapters/http";
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
