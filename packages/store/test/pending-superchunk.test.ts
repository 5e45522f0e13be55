// A format-2 writer's new superchunk laid out as chunks come (PendingSuperchunk): for any sequence
// of chunks set in order, new images of the last one, chunks out of order and drops, the file it
// builds is byte for byte the one @fmt/header's buildSuperchunk lays out for the same chunks (or
// both refuse it), and a chunk read back is the one set last at that index.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compress } from "@fmt/blosc";
import { buildSuperchunk, readSuperchunkChunk, readSuperchunkHeader } from "@fmt/header";
import { MemoryStore } from "@fmt/fs-adapters";
import type { WritableStore } from "@fmt/fs-adapters";
import { serializeSuperchunkMeta } from "@fmt/meta";
import { createCarray, openCarray } from "@fmt/store";
import { PendingSuperchunk } from "../src/pending-superchunk.js";

const CHUNK_SIZE = 512;

/** A Blosc chunk of `rows` float64 rows from `seed` (compressible or not, as the seed falls). */
function chunkOf(seed: number, rows: number): Uint8Array {
  const values = new Float64Array(rows);
  let x = seed;
  for (let i = 0; i < rows; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    values[i] = seed % 3 === 0 ? x : Math.floor(i / 4) + seed;
  }
  return compress(new Uint8Array(values.buffer), { typesize: 8, clevel: seed % 10, shuffle: 1, cname: "lz4" });
}

type Step =
  | { kind: "set"; i: number; seed: number; partial: boolean }
  | { kind: "next"; seed: number; partial: boolean }
  | { kind: "again"; seed: number; partial: boolean }
  | { kind: "drop"; from: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("next" as const), seed: fc.nat(1000), partial: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("set" as const), i: fc.nat(7), seed: fc.nat(1000), partial: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("again" as const), seed: fc.nat(1000), partial: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("drop" as const), from: fc.nat(7) }) },
);

describe("PendingSuperchunk", () => {
  it("builds what buildSuperchunk builds from the same chunks (property)", () => {
    fc.assert(
      // `spare`: the image of an earlier file (releaseImage), full of its old bytes, given to this one.
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 24 }), fc.constantFrom(0, 1, 2, 5), fc.constantFrom(0, 10, 50), fc.nat(3), fc.option(fc.integer({ min: 1, max: 20_000 })), (steps, checksumId, sparePercent, file, spare) => {
        const capacity = 8;
        const firstChunk = file * capacity;
        const pending = new PendingSuperchunk({ capacity, firstChunk, checksumId, typesize: 8, chunkSize: CHUNK_SIZE, sparePercent }, spare === null ? undefined : new Uint8Array(spare).fill(0xa5));
        const model = new Map<number, Uint8Array>();
        for (const step of steps) {
          if (step.kind === "drop") {
            pending.dropFrom(step.from);
            for (const i of [...model.keys()]) if (i >= step.from) model.delete(i);
            continue;
          }
          let i = step.kind === "set" ? step.i : 0;
          if (step.kind === "next") while (model.has(i)) i++;
          // A new image of the highest chunk set (a partial last chunk growing, as appends do).
          if (step.kind === "again") i = Math.max(0, ...model.keys());
          if (i >= capacity) continue;
          const chunk = chunkOf(step.seed, step.partial ? 1 + (step.seed % 63) : CHUNK_SIZE / 8);
          // The caller's memory is reused after set: scribble over it to prove nothing kept it.
          const given = new Uint8Array(chunk.length + 8);
          given.set(chunk);
          pending.set(i, given.subarray(0, chunk.length));
          given.fill(0xee);
          model.set(i, chunk);
        }
        expect(pending.size).toBe(model.size);
        for (const [i, chunk] of model) expect(pending.get(i)).toEqual(chunk);
        let prefix = 0;
        while (model.has(prefix)) prefix++;
        // Every length a commit may ask for, fewer chunks than are set included.
        for (let count = 1; count <= prefix; count++) {
          const chunks = Array.from({ length: count }, (_, i) => model.get(i)!);
          const options = { chunks, checksumId, typesize: 8, chunkSize: CHUNK_SIZE, metadata: serializeSuperchunkMeta({ capacity, firstChunk }), capacity, sparePercent, firstChunk };
          let expected: Uint8Array | Error;
          try {
            expected = buildSuperchunk(options);
          } catch (error) {
            expected = error as Error;
          }
          if (expected instanceof Error) {
            expect(() => pending.build(count)).toThrow(expected.message);
            continue;
          }
          const built = pending.build(count);
          expect(Buffer.compare(built, expected)).toBe(0);
          expect(readSuperchunkHeader(built, "f").nchunks).toBe(count);
        }
      }),
      { seed: 20261127, numRuns: 400 },
    );
  });

  it("a chunk placed in order is read back verified from the built file", () => {
    const pending = new PendingSuperchunk({ capacity: 4, firstChunk: 8, checksumId: 2, typesize: 8, chunkSize: CHUNK_SIZE, sparePercent: 10 });
    const chunks = [chunkOf(3, 64), chunkOf(4, 64), chunkOf(5, 10)];
    chunks.forEach((c, i) => pending.set(i, c));
    pending.set(2, chunkOf(6, 20)); // a new image of the last chunk
    const built = pending.build(3);
    const header = readSuperchunkHeader(built, "f");
    const offsets = new DataView(built.buffer, built.byteOffset + 32 + header.metaSize, 24);
    const third = Number(offsets.getBigInt64(16, true));
    const { chunk } = readSuperchunkChunk(built.subarray(third), header, 2, { path: "f", firstChunk: 8 });
    expect(chunk).toEqual(chunkOf(6, 20));
  });

  it("gives up its image once, for the next file, and holds nothing after", () => {
    const settings = { capacity: 4, firstChunk: 0, checksumId: 2, typesize: 8, chunkSize: CHUNK_SIZE, sparePercent: 10 };
    const first = new PendingSuperchunk(settings);
    expect(first.releaseImage()).toBeUndefined(); // nothing laid out yet
    first.set(0, chunkOf(3, CHUNK_SIZE / 8));
    const built = first.build(1);
    const image = first.releaseImage()!;
    expect(image.buffer).toBe(built.buffer);
    expect(first.size).toBe(0);
    expect(first.get(0)).toBeUndefined();
    const second = new PendingSuperchunk({ ...settings, firstChunk: 4 }, image);
    const chunk = chunkOf(4, CHUNK_SIZE / 8);
    second.set(0, chunk);
    const file = second.build(1);
    expect(file.buffer).toBe(image.buffer); // laid out in the given image
    const header = readSuperchunkHeader(file, "f");
    const at = Number(new DataView(file.buffer, file.byteOffset + 32 + header.metaSize, 8).getBigInt64(0, true));
    expect(readSuperchunkChunk(file.subarray(at), header, 0, { path: "f", verify: true, firstChunk: 4 }).chunk).toEqual(chunk);
  });

  it("a writer lays out each new superchunk in the image of the one it stored before: the same files", async () => {
    // MemoryStore has writeAt (the writer recycles images); the wrapper has not (it keeps each).
    const recycling = new MemoryStore();
    const inner = new MemoryStore();
    const keeping: WritableStore = {
      get: (k) => inner.get(k), list: (p) => inner.list(p), delete: (k) => inner.delete(k),
      // Reads the value after an await, as a store may until its promise settles.
      put: async (k, v, o) => { await new Promise((r) => setTimeout(r, 1)); await inner.put(k, v.slice(), o); },
    };
    const values = new Float64Array(9 * 100 + 37).map((_, i) => (i % 7 === 0 ? i * 1.5 : Math.floor(i / 3)));
    const options = { dtype: "<f8", chunklen: 100, formatVersion: 2, superchunksize: 2, checksum: "crc32", spare: 20 } as const;
    await (await createCarray(recycling, "a", values, options)).close();
    await (await createCarray(keeping, "a", values, options)).close();
    const keys = await inner.list("a/data/");
    expect(keys.length).toBe(5);
    expect(await recycling.list("a/data/")).toEqual(keys);
    for (const key of keys) expect(await recycling.get(key)).toEqual(await inner.get(key));
    expect([...((await (await openCarray(recycling, "a")).read()) as Float64Array)]).toEqual([...values]);
  });

  it("a chunk never set is a writer's bug, said as such", () => {
    const pending = new PendingSuperchunk({ capacity: 4, firstChunk: 0, checksumId: 1, typesize: 8, chunkSize: CHUNK_SIZE, sparePercent: 0 });
    pending.set(1, chunkOf(1, 64));
    expect(() => pending.build(2)).toThrow(/chunk 0 of a new superchunk was never written/);
  });
});
