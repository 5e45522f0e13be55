// The wasm byte/bit shuffle kernels against straightforward references written from the index
// formulas of format-facts 1.10 (byte shuffle) and 1.12 (bit shuffle).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { loadWasmKernels } from "./index.js";

const kernels = loadWasmKernels()!;

/** Byte comparison that stays fast on 100 kB arrays and reports the first differing index. */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  let first = -1;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) {
      first = i;
      break;
    }
  }
  expect(first).toBe(-1);
}

function randomBytes(length: number, seed: number): Uint8Array {
  let s = seed >>> 0 || 0x9e3779b9;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = s & 0xff;
  }
  return out;
}

/** 1.10: output index j*n + i <- input index i*typesize + j; trailing bytes copied. */
function refShuffle(src: Uint8Array, typesize: number): Uint8Array {
  const out = Uint8Array.from(src);
  const n = Math.floor(src.length / typesize);
  if (typesize <= 1) return out;
  for (let j = 0; j < typesize; j++) for (let i = 0; i < n; i++) out[j * n + i] = src[i * typesize + j]!;
  return out;
}

function refUnshuffle(src: Uint8Array, typesize: number): Uint8Array {
  const out = Uint8Array.from(src);
  const n = Math.floor(src.length / typesize);
  if (typesize <= 1) return out;
  for (let j = 0; j < typesize; j++) for (let i = 0; i < n; i++) out[i * typesize + j] = src[j * n + i]!;
  return out;
}

/** 1.12: output byte (8j+b)*(n/8) + floor(i/8), bit i%8 = bit b of input byte i*typesize + j. */
function refBitshuffle(src: Uint8Array, typesize: number): Uint8Array {
  const out = Uint8Array.from(src);
  const n = Math.floor(src.length / typesize);
  if (n % 8 !== 0) return out;
  const row = n / 8;
  out.fill(0, 0, n * typesize);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < typesize; j++) {
      const byte = src[i * typesize + j]!;
      for (let b = 0; b < 8; b++) if ((byte >> b) & 1) out[(8 * j + b) * row + (i >> 3)]! |= 1 << (i & 7);
    }
  }
  return out;
}

function refBitunshuffle(src: Uint8Array, typesize: number): Uint8Array {
  const out = Uint8Array.from(src);
  const n = Math.floor(src.length / typesize);
  if (n % 8 !== 0) return out;
  const row = n / 8;
  out.fill(0, 0, n * typesize);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < typesize; j++) {
      let v = 0;
      for (let b = 0; b < 8; b++) v |= ((src[(8 * j + b) * row + (i >> 3)]! >> (i & 7)) & 1) << b;
      out[i * typesize + j] = v;
    }
  }
  return out;
}

// SIMD paths exist for 2, 4, 8 and 16; weigh them up next to arbitrary sizes.
const typesizeArb = fc.oneof(fc.constantFrom(1, 2, 4, 8, 16), fc.integer({ min: 1, max: 64 }));
const sizeArb = fc.oneof(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 100_000 }));

describe("wasm byte shuffle", () => {
  it("matches the example of format-facts 1.10", () => {
    const input = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect([...kernels.shuffle(input, 4)]).toEqual([1, 5, 2, 6, 3, 7, 4, 8, 9, 10]);
    expect([...kernels.unshuffle(new Uint8Array([1, 5, 2, 6, 3, 7, 4, 8, 9, 10]), 4)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("shuffle and unshuffle agree with the index formula for random typesizes and sizes", () => {
    fc.assert(
      fc.property(typesizeArb, sizeArb, fc.integer(), (typesize, size, seed) => {
        const src = randomBytes(size, seed);
        expectSameBytes(kernels.shuffle(src, typesize), refShuffle(src, typesize));
        expectSameBytes(kernels.unshuffle(src, typesize), refUnshuffle(src, typesize));
      }),
      { numRuns: 150 },
    );
  });

  it("covers every typesize 1..64 at sizes around the 16-element SIMD group", () => {
    for (let typesize = 1; typesize <= 64; typesize++) {
      for (const n of [0, 1, 15, 16, 17, 31, 32, 33, 130]) {
        for (const extra of [0, typesize > 1 ? typesize - 1 : 0]) {
          const src = randomBytes(n * typesize + extra, typesize * 1000 + n);
          expectSameBytes(kernels.shuffle(src, typesize), refShuffle(src, typesize));
          expectSameBytes(kernels.unshuffle(src, typesize), refUnshuffle(src, typesize));
        }
      }
    }
  });

  it("writes into a caller buffer", () => {
    const src = randomBytes(1000, 7);
    const out = new Uint8Array(1200);
    const got = kernels.shuffle(src, 8, out);
    expect(got.length).toBe(1000);
    expectSameBytes(got, refShuffle(src, 8));
  });
});

describe("wasm bit shuffle", () => {
  it("matches the two examples of format-facts 1.12", () => {
    const a = new Uint8Array([0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0]);
    expect([...kernels.bitshuffle(a, 2)]).toEqual([0xaa, 0xcc, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const b = new Uint8Array(16);
    b[1] = 1;
    b[15] = 0x80;
    expect([...kernels.bitshuffle(b, 2)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x80]);
    expect(kernels.bitunshuffle(kernels.bitshuffle(b, 2), 2)).toEqual(b);
  });

  it("bitshuffle and bitunshuffle agree with the index formula for random typesizes and sizes", () => {
    fc.assert(
      fc.property(typesizeArb, sizeArb, fc.integer(), fc.boolean(), (typesize, size, seed, multipleOf8) => {
        // Half of the cases round the element count to a multiple of 8 so the transpose runs.
        let length = size;
        if (multipleOf8) length = Math.floor(size / (8 * typesize)) * 8 * typesize + (size % typesize);
        const src = randomBytes(length, seed);
        expectSameBytes(kernels.bitshuffle(src, typesize), refBitshuffle(src, typesize));
        expectSameBytes(kernels.bitunshuffle(src, typesize), refBitunshuffle(src, typesize));
      }),
      { numRuns: 120 },
    );
  });

  it("covers every typesize 1..64 around the 128-element SIMD group", () => {
    for (let typesize = 1; typesize <= 64; typesize++) {
      for (const n of [0, 8, 16, 120, 128, 136, 256, 264, 7, 9]) {
        for (const extra of [0, typesize > 1 ? typesize - 1 : 0]) {
          const src = randomBytes(n * typesize + extra, typesize * 7 + n);
          expectSameBytes(kernels.bitshuffle(src, typesize), refBitshuffle(src, typesize));
          expectSameBytes(kernels.bitunshuffle(src, typesize), refBitunshuffle(src, typesize));
        }
      }
    }
  });

  it("rejects a typesize outside 1..255", () => {
    expect(() => kernels.bitshuffle(new Uint8Array(8), 0)).toThrow(/typesize/);
    expect(() => kernels.shuffle(new Uint8Array(8), 256)).toThrow(/typesize/);
  });
});
