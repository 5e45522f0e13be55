// Property tests of conversion and verification (spec/v2.md §14, §15) against a plain model:
// random arrays written in either version by random appends and sets, converted to the other
// version and back, read exactly as the model says; then one random chunk of the format-2 copy is
// damaged and verify() names exactly that chunk (file and local index), nothing else.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { convert, createCarray, openCarray, verify } from "@fmt/store";

const SEED = 20261124;

describe("convert and verify follow a model (fast-check)", () => {
  it("any carray converted 1 → 2 → 1 (or 2 → 1 → 2) keeps its values, chunks and metadata; a damaged chunk is named", async () => {
    let damaged = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          from: fc.constantFrom(1 as const, 2 as const),
          dtype: fc.constantFrom("<i4", "<f8", ">i2", "|u1"),
          chunklen: fc.integer({ min: 1, max: 12 }),
          superchunksize: fc.integer({ min: 1, max: 5 }),
          checksum: fc.constantFrom("adler32", "crc32", "sha1") as fc.Arbitrary<"adler32">,
          parts: fc.array(fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 30 }), { minLength: 1, maxLength: 4 }),
          sets: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 120 })), { maxLength: 5 }),
          damage: fc.nat(),
        }),
        async (p) => {
          const store = new MemoryStore();
          const model: number[] = [];
          const format = p.from === 1 ? {} : { formatVersion: 2 as const, superchunksize: p.superchunksize, checksum: p.checksum };
          const a = await createCarray(store, "src", [], { dtype: p.dtype, chunklen: p.chunklen, ...format });
          for (const part of p.parts) {
            await a.append(part);
            model.push(...part);
            await a.flush();
          }
          for (const [at, v] of p.sets) {
            if (model.length === 0) break;
            await a.set(at % model.length, v);
            model[at % model.length] = v;
          }
          await a.close();
          const other = p.from === 1 ? 2 : 1;
          const there = await convert(store, "src", store, "mid", { formatVersion: other, superchunksize: p.superchunksize, checksum: p.checksum });
          await convert(store, "mid", store, "back", { formatVersion: p.from, superchunksize: p.superchunksize, checksum: p.checksum });
          for (const path of ["src", "mid", "back"]) {
            const r = await openCarray(store, path);
            expect(Array.from(await r.read() as ArrayLike<number>), path).toEqual(model);
            expect([r.dtype.str, r.chunklen, r.formatVersion]).toEqual([p.dtype, p.chunklen, path === "mid" ? other : p.from]);
            expect((await verify(store, path)).problems, path).toEqual([]);
          }
          expect(there.copied + there.recompressed).toBe(Math.ceil(model.length / p.chunklen));
          // Chunks come back byte for byte (none of these sources holds an over-long leftover).
          const src = await openCarray(store, "src");
          const back = await openCarray(store, "back");
          for (let i = 0; i < src.chunkCount; i++) expect((await back.storedChunk(i)).chunk).toEqual((await src.storedChunk(i)).chunk);

          // Damage one chunk of the format-2 copy: verify names it and only it.
          const v2 = p.from === 2 ? "src" : "mid";
          const arr = await openCarray(store, v2);
          if (arr.chunkCount === 0) return;
          const g = p.damage % arr.chunkCount;
          const key = arr.chunkKey(g);
          const file = (await store.get(key))!;
          const local = g % p.superchunksize;
          const offset = Number(new DataView(file.buffer, file.byteOffset).getBigInt64(32 + file[24]! + 8 * local, true));
          const cbytes = new DataView(file.buffer, file.byteOffset).getUint32(offset + 12, true);
          file[offset + 16 + (p.damage % Math.max(1, cbytes - 16))]! ^= 0x20; // a payload byte
          await store.put(key, file);
          const report = await verify(store, v2);
          expect(report.problems.map((q) => [q.path, q.chunk, q.local])).toEqual([[key, g, local]]);
          expect(report.problems[0]!.code).toMatch(/^(CHECKSUM_MISMATCH|CORRUPT_STREAM)$/);
          damaged++;
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
    expect(damaged).toBeGreaterThan(40); // most runs reach the damage step
  }, 120_000);
});
