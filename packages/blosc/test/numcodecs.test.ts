// In-process oracle: c-blosc compiled to WebAssembly inside the numcodecs package (its encoder
// always writes typesize 4). Random data encoded there must decode to the same bytes here.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Blosc } from "./numcodecs-blosc.js";
import { readChunkHeader } from "@fmt/header";
import { decompress, getitem } from "../src/index.js";
import { BACKENDS, useBackend } from "./backends.js";

const CNAMES = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"] as const;

const dataArb = fc.oneof(
  fc.uint8Array({ maxLength: 70_000 }),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 200_000 })).map(([pat, n]) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = pat[i % pat.length]!;
    return out;
  }),
  fc.tuple(fc.integer({ min: 0, max: 50_000 }), fc.integer()).map(([n, seed]) => {
    // int32 random walk: compressible after shuffle
    const v = new Int32Array(n);
    let x = seed | 0;
    let s = seed >>> 0;
    for (let i = 0; i < n; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      x += (s >>> 29) - 4;
      v[i] = x;
    }
    return new Uint8Array(v.buffer);
  }),
);

describe.each(BACKENDS)("decoding chunks from numcodecs' WebAssembly c-blosc (%s backend)", (backend) => {
  useBackend(backend);
  it("round-trips random data for every codec, filter and level (property)", async () => {
    let seenTypesize4 = 0;
    await fc.assert(
      fc.asyncProperty(
        dataArb,
        fc.constantFrom(...CNAMES),
        fc.constantFrom(0, 1, 2),
        fc.integer({ min: 0, max: 9 }),
        fc.constantFrom(0, 0, 0, 256, 1000, 4096, 65536),
        async (data, cname, shuffle, clevel, blocksize) => {
          const chunk = await new Blosc(clevel, cname, shuffle, blocksize).encode(data);
          const header = readChunkHeader(chunk);
          if (header.typesize === 4) seenTypesize4++;
          const out = decompress(chunk);
          expect(out.length).toBe(data.length);
          expect(Buffer.compare(Buffer.from(out), Buffer.from(data))).toBe(0);
          const items = Math.floor(data.length / header.typesize);
          if (items > 2) {
            const got = getitem(chunk, 1, items - 2);
            expect(Buffer.compare(Buffer.from(got), Buffer.from(data.subarray(header.typesize, (items - 1) * header.typesize)))).toBe(0);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(seenTypesize4).toBeGreaterThan(0);
  });
});
