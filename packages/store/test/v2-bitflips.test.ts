// spec/v2.md §6.1: no single flipped bit anywhere in a format-2 data file yields silently
// different values. Small datasets (random dtype, codec, geometry, checksum other than none, some
// with a relocated chunk and dead space) are written, then every bit of every superchunk file is
// flipped in turn: reading the whole array must either fail with a typed FormatError or return
// exactly the original values. Never a crash, never other values.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, openCarray } from "@fmt/store";

const SEED = 20261124;

async function readAllOrError(store: MemoryStore): Promise<Uint8Array | BcolzError> {
  try {
    const a = await openCarray(store, "ds", { cacheBytes: 0 });
    return await a.readBytes();
  } catch (error) {
    if (error instanceof BcolzError) return error;
    throw error; // an untyped error is a failure of the test
  }
}

describe("format 2: every single-bit flip of a data file is detected or harmless (§6.1)", () => {
  it("an offsets entry flipped onto another chunk's slot is caught by the bound checksum", async () => {
    // |u1, clevel 0, chunklen 12: memcpyed chunks of 28 bytes + adler32 = 32-byte slots from
    // 104 (32 + 40 metadata + 4 entries): offsets 104, 136, 168, 200. 136 and 168 differ in bit 5,
    // so that one flip points chunk 1 at chunk 2, whose own checksum is intact.
    const store = new MemoryStore();
    const values = Array.from({ length: 48 }, (_, i) => i);
    const a = await createCarray(store, "ds", values, { dtype: "|u1", chunklen: 12, formatVersion: 2, superchunksize: 4, checksum: "adler32", spare: 0, cparams: { clevel: 0 } });
    await a.close();
    const file = (await store.get("ds/data/__1__.bin"))!;
    const entry1 = 32 + 40 + 8;
    expect(new DataView(file.buffer).getBigInt64(entry1, true)).toBe(136n);
    const flipped = file.slice();
    flipped[entry1]! ^= 1 << 5;
    expect(new DataView(flipped.buffer).getBigInt64(entry1, true)).toBe(168n);
    await store.put("ds/data/__1__.bin", flipped);
    const got = await readAllOrError(store);
    expect(got).toBeInstanceOf(BcolzError);
    expect((got as BcolzError).code).toBe("CHECKSUM_MISMATCH");
    expect((got as BcolzError).path).toBe("ds/data/__1__.bin");
  });

  it("for random small datasets, every bit of every superchunk", async () => {
    let detected = 0;
    let harmless = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          dtype: fc.constantFrom("<i4", "<f8", "|u1", ">i2"),
          rows: fc.integer({ min: 1, max: 40 }),
          chunklen: fc.integer({ min: 1, max: 9 }),
          superchunksize: fc.integer({ min: 1, max: 4 }),
          checksum: fc.constantFrom("adler32", "crc32", "md5", "sha256") as fc.Arbitrary<"adler32">,
          cname: fc.constantFrom("lz4", "blosclz", "zlib", "zstd") as fc.Arbitrary<"lz4">,
          clevel: fc.constantFrom(0, 5),
          spare: fc.constantFrom(0, 50),
          relocate: fc.boolean(),
          seed: fc.integer({ min: 0, max: 1000 }),
        }),
        async (p) => {
          const store = new MemoryStore();
          const values = Array.from({ length: p.rows }, (_, i) => (i * 37 + p.seed) % 100);
          const a = await createCarray(store, "ds", values, { dtype: p.dtype, chunklen: p.chunklen, formatVersion: 2, superchunksize: p.superchunksize, checksum: p.checksum, spare: p.spare, cparams: { cname: p.cname, clevel: p.clevel } });
          if (p.relocate) {
            // A change that grows a chunk past its slot: relocation, dead space, a zeroed old header.
            await a.set(0, 99);
            await a.append([1, 2, 3]);
          }
          await a.close();
          const original = await readAllOrError(store);
          expect(original).toBeInstanceOf(Uint8Array);
          const files = (await store.list("ds/data/")).filter((k) => k.endsWith("__.bin"));
          for (const key of files) {
            const file = (await store.get(key))!;
            for (let bit = 0; bit < file.length * 8; bit++) {
              const flipped = file.slice();
              flipped[bit >> 3]! ^= 1 << (bit & 7);
              await store.put(key, flipped);
              const got = await readAllOrError(store);
              if (got instanceof BcolzError) detected++;
              else {
                expect(got, `${key} bit ${bit} changed the values silently`).toEqual(original);
                harmless++;
              }
            }
            await store.put(key, file);
          }
        },
      ),
      { seed: SEED, numRuns: 12 },
    );
    expect(detected).toBeGreaterThan(0);
    expect(harmless).toBeGreaterThan(0);
  }, 120_000);
});
