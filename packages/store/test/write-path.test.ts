// The write path: typed arrays written without the element-by-element encoder give the same
// files as through it; chunks compressed on a worker pool give the same files as on this thread;
// an append that fails changes nothing; and durability happens at the commit points of spec §8.5.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "@fmt/fs-adapters";
import type { PutOptions } from "@fmt/fs-adapters";
import { compress, decompress } from "@fmt/blosc";
import type { ChunkCodecPool } from "@fmt/blosc";
import { createBloscPool } from "@fmt/blosc/pool";
import type { BloscPool } from "@fmt/blosc/pool";
import { createCarray, createCtable, openCarray } from "@fmt/store";
import type { ArrayInput } from "@fmt/store";
import { ChunkWrites } from "../src/chunk-writes.js";
import { equalBytes, rng } from "./helpers.js";

async function filesOf(store: MemoryStore): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const key of await store.list("")) if (!key.endsWith(".lock")) out.set(key, (await store.get(key))!);
  return out;
}

function sameFiles(a: Map<string, Uint8Array>, b: Map<string, Uint8Array>): string[] {
  const problems: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(key);
    const y = b.get(key);
    if (x === undefined || y === undefined || !equalBytes(x, y)) problems.push(key);
  }
  return problems;
}

function walk(n: number, seed: number): Float64Array {
  const next = rng(seed);
  const out = new Float64Array(n);
  let x = 0;
  for (let i = 0; i < n; i++) out[i] = x += next() - 0.5;
  return out;
}

describe("typed arrays without the element encoder", () => {
  // The element path (a plain array of numbers or bigints) is the reference: it converts and
  // checks value by value. Each case also runs through a chunk boundary and a leftover.
  const cases: [string, (n: number, next: () => number) => ArrayInput & ArrayLike<unknown>][] = [
    ["<f8", (n, next) => new Float64Array(n).map(() => (next() - 0.5) * 1e6)],
    ["<f4", (n, next) => new Float64Array(n).map(() => (next() - 0.5) * 1e6)],
    ["<f4", (n, next) => new Float32Array(n).map(() => (next() - 0.5) * 1e3)],
    ["<f8", (n, next) => new Int32Array(n).map(() => Math.floor((next() - 0.5) * 2 ** 32))],
    ["<i4", (n, next) => new Int32Array(n).map(() => Math.floor((next() - 0.5) * 2 ** 32))],
    ["<i4", (n, next) => new Int16Array(n).map(() => Math.floor((next() - 0.5) * 2 ** 16))],
    ["<u2", (n, next) => new Uint8Array(n).map(() => Math.floor(next() * 256))],
    ["|i1", (n, next) => new Int8Array(n).map(() => Math.floor((next() - 0.5) * 256))],
    ["<u4", (n, next) => new Uint32Array(n).map(() => Math.floor(next() * 2 ** 32))],
    ["<i8", (n, next) => new BigInt64Array(n).map(() => BigInt(Math.floor((next() - 0.5) * 2 ** 53)))],
    ["<M8[s]", (n, next) => new BigInt64Array(n).map(() => BigInt(Math.floor((next() - 0.5) * 2 ** 40)))],
    [">f8", (n, next) => new Float64Array(n).map(() => next())],
  ];
  it.each(cases.map(([dtype, make], i) => [`${dtype} from case ${i}`, dtype, make] as const))("%s gives the files of the element path", async (_name, dtype, make) => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 700 }), fc.integer({ min: 1, max: 2 ** 30 }), fc.constantFrom(0, 2), async (n, seed, quantize) => {
        const typed = make(n, rng(seed));
        const cparams = { quantize: dtype.includes("f") ? quantize : 0 };
        const fast = new MemoryStore();
        const slow = new MemoryStore();
        await (await createCarray(fast, "a", typed, { dtype, chunklen: 256, cparams })).close();
        await (await createCarray(slow, "a", Array.from(typed as ArrayLike<number | bigint>), { dtype, chunklen: 256, cparams })).close();
        expect(sameFiles(await filesOf(fast), await filesOf(slow))).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });

  it("a value out of range still fails, and a typed array changed after the append does not change what was written", async () => {
    const store = new MemoryStore();
    await expect(createCarray(store, "bad", new Int32Array([1, -1]), { dtype: "<u4" })).rejects.toMatchObject({ code: "OUT_OF_RANGE" });
    const data = walk(1000, 3);
    const kept = data.slice();
    const a = await createCarray(store, "a", data, { dtype: "<f8", chunklen: 256 });
    data.fill(7);
    await a.close();
    expect(equalBytes(await (await openCarray(store, "a")).readBytes(), new Uint8Array(kept.buffer))).toBe(true);
  });
});

it("an iterable that refills one typed array for every item gets each item's rows written, even through a pool that reads late", async () => {
  const buffer = new Float64Array(300);
  function* refilled(): Generator<Float64Array> {
    for (let round = 0; round < 5; round++) {
      buffer.fill(round);
      yield buffer;
    }
  }
  // A pool that reads its inputs only on a later turn, as the interface allows: the rows it is
  // given must not change until then.
  const lazy: ChunkCodecPool = {
    threads: 1,
    async compressMany(inputs, options) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      return inputs.map((data) => compress(data, options));
    },
    async decompressManyInto(chunks, out) {
      let at = 0;
      return chunks.map((chunk) => {
        const view = out.subarray(at, at + decompress(chunk).length);
        view.set(decompress(chunk));
        at += view.length;
        return view;
      });
    },
    async close() {},
  };
  const store = new MemoryStore();
  const a = await createCarray(store, "a", refilled(), { dtype: "<f8", chunklen: 128, workers: lazy });
  await a.close();
  const values = await (await openCarray(store, "a")).read();
  expect(Array.from(values as Float64Array, (v, i) => v === Math.floor(i / 300))).not.toContain(false);
});

describe("append is all or nothing", () => {
  it("a refused value after several chunks leaves the length, the rows and the files as they were", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "a", walk(300, 1), { dtype: "<i8", chunklen: 128 }).catch(() => undefined);
    expect(a).toBeUndefined(); // non-integral floats are refused for i8 even in a typed array
    const b = await createCarray(store, "b", new BigInt64Array(300).map((_, i) => BigInt(i)), { dtype: "<i8", chunklen: 128 });
    const before = await filesOf(store);
    const values: (number | string)[] = Array.from({ length: 1000 }, (_, i) => i);
    values[900] = "not a number";
    await expect(b.append(values)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(b.length).toBe(300);
    expect(Array.from(await b.read(0, 300), Number)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    await b.close();
    const after = await filesOf(store);
    // Chunk files beyond the committed rows may have been written, then removed by the flush.
    expect(sameFiles(before, after)).toEqual([]);
    const reopened = await openCarray(store, "b");
    expect(reopened.length).toBe(300);
  });
});

/**
 * A legal store that reads a put's value a moment later (the value must stay unchanged until put
 * settles). It replaces MemoryStore's put, so its putsAtOnce is false without saying so.
 */
class LaterStore extends MemoryStore {
  override async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return super.put(key, value, options);
  }
}

/** A store that takes put's bytes at once (says so), records the memory chunk files come from, and can fail a put. */
class WatchedStore extends MemoryStore {
  readonly chunkBuffers: ArrayBufferLike[] = [];
  failAfter = Infinity;
  override get putsAtOnce(): boolean {
    return true;
  }
  override put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    if (key.includes("/data/")) {
      this.chunkBuffers.push(value.buffer);
      if (this.chunkBuffers.length > this.failAfter) return Promise.reject(new Error("disk full (test)"));
    }
    return super.put(key, value, options);
  }
}

describe("chunks stored straight from the codec's memory", () => {
  it.each(["lz4", "blosclz", "lz4hc", "zstd"] as const)("only where put takes the bytes at once: a store that reads them later gets the same files (%s)", async (cname) => {
    const data = walk(6 * 8192 + 999, 21);
    const more = walk(2 * 8192 + 5, 22);
    const results: Map<string, Uint8Array>[] = [];
    for (const store of [new MemoryStore(), new LaterStore()]) {
      const a = await createCarray(store, "a", data, { dtype: "<f8", chunklen: 8192, cparams: { cname } });
      await a.append(more);
      await a.set({ start: 10, stop: 9000 }, new Float64Array(8990).fill(-2.25));
      await a.close();
      results.push(await filesOf(store));
      const back = (await (await openCarray(store, "a")).read()) as Float64Array;
      const expected = Float64Array.from([...data, ...more]).fill(-2.25, 10, 9000);
      expect(equalBytes(new Uint8Array(back.buffer, back.byteOffset, back.byteLength), new Uint8Array(expected.buffer))).toBe(true);
    }
    expect(results[0]!.size).toBeGreaterThan(8);
    expect(sameFiles(results[0]!, results[1]!)).toEqual([]);
    expect(new LaterStore().putsAtOnce).toBe(false);
  });

  it("chunks do come from the codec's memory (one WebAssembly memory for every chunk file), and a failed put leaves the array as it was", async () => {
    const store = new WatchedStore();
    const data = walk(6 * 8192 + 999, 31);
    const a = await createCarray(store, "a", data, { dtype: "<f8", chunklen: 8192, cparams: { cname: "lz4" } });
    await a.close();
    const full = store.chunkBuffers.slice(0, 6);
    // A WebAssembly memory is whole 64 KiB pages; the copy path's buffers are chunk-sized rooms.
    expect(new Set(full).size).toBe(1);
    expect(full[0]!.byteLength % 65536).toBe(0);
    const before = await filesOf(store);
    store.failAfter = store.chunkBuffers.length + 2;
    const b = await openCarray(store, "a", { mode: "a" });
    await expect(b.append(walk(5 * 8192, 32))).rejects.toThrow(/disk full/);
    await b.close().catch(() => undefined);
    store.failAfter = Infinity;
    const again = await openCarray(store, "a");
    expect(again.length).toBe(data.length);
    const back = (await again.read()) as Float64Array;
    expect(equalBytes(new Uint8Array(back.buffer, back.byteOffset, back.byteLength), new Uint8Array(data.buffer))).toBe(true);
    expect((await filesOf(store)).get("a/meta/sizes")).toEqual(before.get("a/meta/sizes"));
  });
});

describe("chunks compressed on a worker pool", () => {
  let pool: BloscPool;
  beforeAll(() => {
    // Workers run the built JavaScript of @fmt/blosc.
    execFileSync("pnpm", ["exec", "tsc", "-b"], { cwd: fileURLToPath(new URL("../../blosc", import.meta.url)), stdio: "pipe" });
    pool = createBloscPool({ threads: 2 });
  });
  afterAll(async () => {
    await pool.close();
  });

  // The pool as a third party's would be: only the ChunkCodecPool methods, no compressLent.
  const plainPool = (): ChunkCodecPool => ({
    threads: pool.threads,
    compressMany: (inputs, options) => pool.compressMany(inputs, options),
    decompressManyInto: (chunks, out, options) => pool.decompressManyInto(chunks, out, options),
    close: () => Promise.resolve(),
  });

  it.each((["lz4", "blosclz", "zstd", "zlib"] as const).flatMap((cname) => [1, 2].map((version) => [cname, version] as const)))("create and append give the same files as on this thread (%s, format %i), with and without compressLent", async (cname, version) => {
    const data = walk(5 * 8192 + 1234, 11);
    const more = walk(3 * 8192 + 17, 12);
    const results: Map<string, Uint8Array>[] = [];
    const format = version === 2 ? { formatVersion: 2 as const, checksum: "crc32" as const } : {};
    for (const workers of [undefined, pool, plainPool()]) {
      const store = new MemoryStore();
      const a = await createCarray(store, "a", data, { dtype: "<f8", chunklen: 8192, cparams: { cname }, ...format, ...(workers === undefined ? {} : { workers }) });
      await a.close();
      const b = await openCarray(store, "a", { mode: "a", ...(workers === undefined ? {} : { workers }) });
      await b.append(more);
      await b.set({ start: 100, stop: 20000 }, new Float64Array(19900).fill(1.5));
      await b.close();
      results.push(await filesOf(store));
    }
    expect(results[0]!.size).toBeGreaterThan(version === 2 ? 3 : 5);
    expect([sameFiles(results[0]!, results[1]!), sameFiles(results[0]!, results[2]!)]).toEqual([[], []]);
  });

  it("a create with workers sends its chunks to the pool's compressLent, and releases each once stored", async () => {
    let lent = 0;
    let released = 0;
    const lentBuffers = new Set<ArrayBufferLike>();
    const counting: ChunkCodecPool = {
      ...plainPool(),
      compressMany: () => Promise.reject(new Error("compressMany is not used when compressLent is there")),
      compressLent: async (input, options, headroom) => {
        lent++;
        const chunk = await pool.compressLent(input, options, headroom);
        lentBuffers.add(chunk.chunk.buffer);
        return { chunk: chunk.chunk, release: () => { released++; chunk.release(); } };
      },
    };
    const data = walk(6 * 8192, 13);
    const store = new WatchedStore();
    const a = await createCarray(store, "a", data, { dtype: "<f8", chunklen: 8192, workers: counting });
    await a.close();
    expect(lent).toBe(6);
    expect(released).toBe(6);
    // Format 1 frames each chunk in the lent buffer's headroom: every file is put from the pool's
    // memory, not from a copy the layout made.
    expect(store.chunkBuffers).toHaveLength(6);
    expect(store.chunkBuffers.every((b) => lentBuffers.has(b))).toBe(true);
  });

  it("a store that takes the bytes after an await gets the same files from a pool, over more chunks than are in flight", async () => {
    const data = walk(40 * 8192 + 77, 31);
    const results: Map<string, Uint8Array>[] = [];
    for (const [store, workers] of [[new MemoryStore(), undefined], [new LaterStore(), pool]] as const) {
      const a = await createCarray(store, "a", data, { dtype: "<f8", chunklen: 8192, ...(workers === undefined ? {} : { workers }) });
      await a.close();
      results.push(await filesOf(store));
    }
    expect(results[0]!.size).toBeGreaterThan(40);
    expect(sameFiles(results[0]!, results[1]!)).toEqual([]);
  });

  /** A pool that answers each chunk after its delay (compressed on this thread), failing chunk `fails`. */
  const shuffling = (delays: readonly number[], fails: number): ChunkCodecPool => {
    let k = 0;
    return {
      ...plainPool(),
      compressLent: async (input, options, headroom) => {
        const mine = k++;
        await new Promise((resolve) => setTimeout(resolve, delays[mine] ?? 0));
        if (mine === fails) throw new Error(`chunk ${fails} fails (test)`);
        const chunk = compress(input, options);
        const room = new Uint8Array(headroom + chunk.length);
        room.set(chunk, headroom);
        return { chunk: room.subarray(headroom), release: () => undefined };
      },
    };
  };
  /** A store that lists the chunk files put, in order, and the most puts of chunk files in flight at once. */
  class OrderStore extends MemoryStore {
    readonly order: number[] = [];
    inFlight = 0;
    mostInFlight = 0;
    override async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
      if (!key.includes("/data/")) return super.put(key, value, options);
      this.order.push(Number(/__(\d+)\.blp$/.exec(key)![1]));
      this.inFlight++;
      this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return await super.put(key, value, options);
      } finally {
        this.inFlight--;
      }
    }
  }

  it("hands chunks to the layout in the order they were added, whatever order the pool answers in, and their stores overlap", async () => {
    const store = new OrderStore();
    const a = await createCarray(store, "a", walk(6 * 8192, 14), { dtype: "<f8", chunklen: 8192, workers: shuffling([40, 0, 0, 25, 0, 0], -1) });
    await a.close();
    expect(store.order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(store.mostInFlight).toBeGreaterThan(1);
  });

  it("after a pool chunk fails, the chunks added before it are stored and those after it are not", async () => {
    const store = new OrderStore();
    await expect(createCarray(store, "a", walk(6 * 8192, 14), { dtype: "<f8", chunklen: 8192, workers: shuffling([40, 0, 0, 25, 0, 0], 2) })).rejects.toThrow("chunk 2 fails (test)");
    expect(store.order).toEqual([0, 1]);
  });

  it("chunks refused after a pool failure fail too: a drain after the first error was thrown still throws", async () => {
    const stored: number[] = [];
    const writes = new ChunkWrites(async (g) => {
      stored.push(g);
    }, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, shuffling([50, 0, 0, 0], 1));
    const rows = new Uint8Array(walk(8192, 16).buffer);
    for (let g = 0; g < 4; g++) await writes.add(g, rows, false, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 15));
    // Chunk 1 has failed: the next add throws its error (and forgets it), chunks 2 and 3 still wait for chunk 0's turn.
    await expect(writes.add(4, rows, false, () => undefined)).rejects.toThrow("chunk 1 fails (test)");
    await expect(writes.drain()).rejects.toThrow("chunk 1 fails (test)");
    expect(stored).toEqual([0]);
    // Once drained, the next writes go through.
    await writes.add(5, rows, false, () => undefined);
    await writes.drain();
    expect(stored).toEqual([0, 5]);
  });

  it("a pool that lends less room than asked before the chunk gets it copied, with the same files", async () => {
    const tight: ChunkCodecPool = {
      ...plainPool(),
      compressLent: async (input, options) => {
        const chunk = compress(input, options);
        return { chunk, release: () => undefined };
      },
    };
    const data = walk(3 * 8192 + 5, 15);
    const results: Map<string, Uint8Array>[] = [];
    for (const workers of [undefined, tight]) {
      const store = new MemoryStore();
      const a = await createCarray(store, "a", data, { dtype: "<f8", chunklen: 8192, ...(workers === undefined ? {} : { workers }) });
      await a.close();
      results.push(await filesOf(store));
    }
    expect(sameFiles(results[0]!, results[1]!)).toEqual([]);
  });

  it("refuses a pool whose compressLent is not a function", async () => {
    await expect(createCarray(new MemoryStore(), "a", [1], { dtype: "<f8", workers: { ...plainPool(), compressLent: 5 } as unknown as ChunkCodecPool })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "workers" });
  });

  it("a ctable created with workers has the files of one created without", async () => {
    const results: Map<string, Uint8Array>[] = [];
    for (const workers of [undefined, pool]) {
      const store = new MemoryStore();
      const columns = [
        { name: "f", data: walk(20000, 21) },
        { name: "i", data: new Int32Array(20000).map((_, k) => k * 7) },
      ];
      const t = await createCtable(store, "t", columns, { chunklen: 4096, ...(workers === undefined ? {} : { workers }) });
      await t.append({ f: walk(5000, 22), i: new Int32Array(5000).fill(3) });
      await t.close();
      results.push(await filesOf(store));
    }
    expect([...results[0]!.keys()].filter((k) => k.includes("/data/")).length).toBeGreaterThan(8);
    expect(sameFiles(results[0]!, results[1]!)).toEqual([]);
  });

  it("refuses something that is not a pool", async () => {
    await expect(createCarray(new MemoryStore(), "a", [1], { dtype: "<f8", workers: {} as unknown as BloscPool })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "workers" });
  });
});

type Op = { op: "put"; key: string; durable: boolean } | { op: "sync" } | { op: "delete"; key: string };

/** A MemoryStore that records every put (with its durability), sync and delete. */
class RecordingStore extends MemoryStore {
  readonly ops: Op[] = [];
  // put calls MemoryStore's put first, before any await: it takes the bytes at once.
  override get putsAtOnce(): boolean {
    return true;
  }
  override async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    await super.put(key, value, options);
    this.ops.push({ op: "put", key, durable: options?.durable !== false });
  }
  override async sync(): Promise<void> {
    this.ops.push({ op: "sync" });
  }
  override async delete(key: string): Promise<void> {
    await super.delete(key);
    this.ops.push({ op: "delete", key });
  }
}

/**
 * The commit-point rule, checked on a recorded sequence: when `meta/sizes` or `.journal` is
 * written, or a `.next` file or the journal is deleted, every non-durable put before it has been
 * covered by a sync; commit writes themselves are durable.
 */
function commitProblems(ops: readonly Op[]): string[] {
  const problems: string[] = [];
  const unsynced = new Set<string>();
  ops.forEach((o, i) => {
    if (o.op === "sync") return unsynced.clear();
    const commit = o.op === "put" ? o.key.endsWith("meta/sizes") || o.key.endsWith(".journal") : o.key.endsWith(".next") || o.key.endsWith(".journal");
    if (commit && unsynced.size > 0) problems.push(`#${i} ${o.op} ${o.key} with unsynced ${[...unsynced].join(", ")}`);
    if (o.op === "put" && commit && !o.durable) problems.push(`#${i} commit ${o.key} is not durable`);
    if (o.op === "put" && !o.durable) unsynced.add(o.key);
  });
  return problems;
}

describe("durability at the commit points", () => {
  it("create, append, multi-chunk set, grow and shrink: non-durable chunk files are synced before each commit", async () => {
    const store = new RecordingStore();
    const a = await createCarray(store, "a", walk(10 * 100 + 37, 5), { dtype: "<f8", chunklen: 100 });
    await a.append(walk(450, 6));
    await a.flush();
    await a.set({ start: 50, stop: 420 }, new Float64Array(370).fill(2));
    await a.set(1480, 3);
    await a.resize(2500);
    await a.resize(1234);
    await a.close();
    expect(commitProblems(store.ops)).toEqual([]);
    // The bulk writes really are deferred: most chunk files were written without their own flush.
    const chunkPuts = store.ops.filter((o): o is Extract<Op, { op: "put" }> => o.op === "put" && o.key.includes("/data/"));
    expect(chunkPuts.filter((o) => !o.durable).length).toBeGreaterThan(chunkPuts.length / 2);
    expect(store.ops.filter((o) => o.op === "sync").length).toBeLessThan(12);
    // The multi-chunk set went through the journal.
    expect(store.ops.some((o) => o.op === "put" && o.key === "a/.journal")).toBe(true);
    const reopened = await openCarray(store, "a");
    expect(reopened.length).toBe(1234);
  });

  it("the rule itself catches a commit written before the sync", () => {
    expect(commitProblems([{ op: "put", key: "a/data/__0.blp", durable: false }, { op: "put", key: "a/meta/sizes", durable: true }, { op: "sync" }])).toHaveLength(1);
  });

  it("a chunk that holds committed rows is replaced durably (no later commit covers it)", async () => {
    const store = new RecordingStore();
    const a = await createCarray(store, "a", walk(150, 7), { dtype: "<f8", chunklen: 100 });
    store.ops.length = 0;
    await a.set(120, 9); // one chunk, the committed leftover: no journal
    await a.append(walk(80, 8)); // fills the committed leftover chunk
    await a.close();
    const leftoverPuts = store.ops.filter((o) => o.op === "put" && o.key === "a/data/__1.blp");
    expect(leftoverPuts.length).toBeGreaterThanOrEqual(2);
    expect(leftoverPuts.every((o) => o.op === "put" && o.durable)).toBe(true);
  });
});
