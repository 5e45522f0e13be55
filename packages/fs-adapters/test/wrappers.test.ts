import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CachingStore, MemoryStore, RangeCoalescingStore } from "@fmt/fs-adapters";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";

/** Wraps a store and records every call that reaches it. */
function counting(inner: MemoryStore, withRange = true): { store: ReadableStore; calls: string[] } {
  const calls: string[] = [];
  const store: ReadableStore = {
    get: async (key) => {
      calls.push(`get ${key}`);
      return inner.get(key);
    },
    list: async (prefix) => {
      calls.push(`list ${prefix}`);
      return inner.list(prefix);
    },
  };
  if (withRange) {
    store.getRange = async (key: string, range: ByteRange) => {
      calls.push(`getRange ${key} ${JSON.stringify(range)}`);
      return inner.getRange(key, range);
    };
  }
  return { store, calls };
}

const seq = (n: number, from = 0) => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);

describe("CachingStore", () => {
  it("serves repeated gets from memory without copying the cached bytes", async () => {
    const inner = new MemoryStore([["k", seq(10)]]);
    const { store, calls } = counting(inner);
    const cache = new CachingStore(store, { maxBytes: 100 });
    const a = (await cache.get("k"))!;
    expect(a).toEqual(seq(10));
    expect(await cache.get("k")).toBe(a);
    const part = (await cache.getRange("k", { offset: 2, length: 3 }))!;
    expect(part).toEqual(seq(3, 2));
    expect(part.buffer).toBe(a.buffer);
    expect(calls).toEqual(["get k"]);
    expect(cache.cachedBytes).toBe(10);
  });

  it("shares one fetch between concurrent gets", async () => {
    const { store, calls } = counting(new MemoryStore([["k", seq(4)]]));
    const cache = new CachingStore(store);
    const results = await Promise.all([cache.get("k"), cache.get("k"), cache.get("k")]);
    expect(results).toEqual([seq(4), seq(4), seq(4)]);
    expect(calls).toEqual(["get k"]);
  });

  it("evicts the least recently used values to stay under maxBytes", async () => {
    const inner = new MemoryStore([["a", seq(40)], ["b", seq(40)], ["c", seq(40)]]);
    const { store, calls } = counting(inner);
    const cache = new CachingStore(store, { maxBytes: 100 });
    await cache.get("a");
    await cache.get("b");
    await cache.get("a"); // a is now the most recently used
    await cache.get("c"); // evicts b
    expect(cache.cachedBytes).toBe(80);
    calls.length = 0;
    await cache.get("a");
    await cache.get("c");
    expect(calls).toEqual([]);
    await cache.get("b");
    expect(calls).toEqual(["get b"]);
  });

  it("does not cache values larger than maxBytes nor missing keys", async () => {
    const { store, calls } = counting(new MemoryStore([["big", seq(50)]]));
    const cache = new CachingStore(store, { maxBytes: 10 });
    expect(await cache.get("big")).toEqual(seq(50));
    expect(await cache.get("big")).toEqual(seq(50));
    expect(await cache.get("nope")).toBeUndefined();
    expect(await cache.get("nope")).toBeUndefined();
    expect(calls).toEqual(["get big", "get big", "get nope", "get nope"]);
    expect(cache.cachedBytes).toBe(0);
  });

  it("serves getRange from a cached value, else forwards it", async () => {
    const { store, calls } = counting(new MemoryStore([["k", seq(10)]]));
    const cache = new CachingStore(store);
    expect(await cache.getRange("k", { offset: 2, length: 3 })).toEqual(seq(3, 2));
    await cache.get("k");
    expect(await cache.getRange("k", { suffixLength: 2 })).toEqual(seq(2, 8));
    expect(calls).toEqual(['getRange k {"offset":2,"length":3}', "get k"]);
  });

  it("invalidate and clear force a re-read; list is forwarded", async () => {
    const inner = new MemoryStore([["k", seq(3)]]);
    const { store, calls } = counting(inner);
    const cache = new CachingStore(store);
    await cache.get("k");
    await inner.put("k", seq(3, 100));
    expect(await cache.get("k")).toEqual(seq(3));
    cache.invalidate("k");
    expect(await cache.get("k")).toEqual(seq(3, 100));
    cache.clear();
    expect(cache.cachedBytes).toBe(0);
    expect(await cache.list!("")).toEqual(["k"]);
    expect(calls).toEqual(["get k", "get k", "list "]);
  });

  it("has no list when the inner store has none", () => {
    expect(new CachingStore({ get: async () => undefined }).list).toBeUndefined();
  });

  it("always returns what the inner store holds (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d"), fc.boolean(), fc.nat(12), fc.nat(12)), { maxLength: 30 }),
        fc.nat(40),
        async (reads, maxBytes) => {
          const inner = new MemoryStore([["a", seq(10)], ["b", seq(20, 50)], ["c", seq(5, 9)]]);
          const cache = new CachingStore(inner, { maxBytes });
          for (const [key, ranged, offset, length] of reads) {
            if (ranged) expect(await cache.getRange(key, { offset, length })).toEqual(await inner.getRange(key, { offset, length }));
            else expect(await cache.get(key)).toEqual(await inner.get(key));
            expect(cache.cachedBytes).toBeLessThanOrEqual(maxBytes);
          }
        },
      ),
    );
  });
});

describe("RangeCoalescingStore", () => {
  it("merges ranges of one key requested in the same tick", async () => {
    const { store, calls } = counting(new MemoryStore([["k", seq(100)], ["j", seq(10)]]));
    const co = new RangeCoalescingStore(store, { maxGap: 10 });
    const results = await Promise.all([
      co.getRange("k", { offset: 20, length: 5 }),
      co.getRange("k", { offset: 0, length: 4 }),
      co.getRange("k", { offset: 8, length: 4 }),
      co.getRange("k", { offset: 90, length: 40 }),
      co.getRange("j", { offset: 1, length: 1 }),
    ]);
    expect(results).toEqual([seq(5, 20), seq(4, 0), seq(4, 8), seq(10, 90), seq(1, 1)]);
    expect(calls.sort()).toEqual([
      'getRange j {"offset":1,"length":1}',
      'getRange k {"offset":0,"length":25}',
      'getRange k {"offset":90,"length":40}',
    ]);
  });

  it("respects maxRequestBytes and passes suffix ranges and missing keys through", async () => {
    const { store, calls } = counting(new MemoryStore([["k", seq(100)]]));
    const co = new RangeCoalescingStore(store, { maxGap: 100, maxRequestBytes: 30 });
    const results = await Promise.all([
      co.getRange("k", { offset: 0, length: 20 }),
      co.getRange("k", { offset: 20, length: 20 }),
      co.getRange("k", { suffixLength: 3 }),
      co.getRange("missing", { offset: 0, length: 3 }),
    ]);
    expect(results).toEqual([seq(20, 0), seq(20, 20), seq(3, 97), undefined]);
    expect(calls.filter((c) => c.startsWith("getRange k {\"offset")).length).toBe(2);
  });

  it("works over stores without getRange", async () => {
    const { store, calls } = counting(new MemoryStore([["k", seq(50)]]), false);
    const co = new RangeCoalescingStore(store);
    expect(await Promise.all([co.getRange("k", { offset: 1, length: 2 }), co.getRange("k", { offset: 40, length: 2 })])).toEqual([seq(2, 1), seq(2, 40)]);
    expect(calls).toEqual(["get k"]);
  });

  it("propagates inner errors to every merged caller", async () => {
    const failing: ReadableStore = {
      get: async () => undefined,
      getRange: async () => {
        throw new Error("network down");
      },
    };
    const co = new RangeCoalescingStore(failing);
    const settled = await Promise.allSettled([co.getRange("k", { offset: 0, length: 1 }), co.getRange("k", { offset: 1, length: 1 })]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
  });

  it("gives every caller exactly its own clipped bytes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(120), fc.nat(30)), { minLength: 1, maxLength: 12 }), fc.nat(20), async (ranges, maxGap) => {
        const inner = new MemoryStore([["k", seq(100, 3)]]);
        const co = new RangeCoalescingStore(inner, { maxGap, maxRequestBytes: 50 });
        const got = await Promise.all(ranges.map(([offset, length]) => co.getRange("k", { offset, length })));
        ranges.forEach(([offset, length], i) => expect(got[i]).toEqual(seq(100, 3).slice(offset, offset + length)));
      }),
    );
  });
});
