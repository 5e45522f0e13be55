import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { bitshuffle as referenceBitshuffle, bitunshuffle } from "./bitshuffle.js";
import { shuffle as referenceShuffle, unshuffle } from "./shuffle.js";
import { bitshuffleBlock, shuffleBlock } from "./shuffle-forward.js";
import { loadWasmKernels } from "./wasm/index.js";

const blockArb = fc.record({
  bytes: fc.uint8Array({ maxLength: 5000 }),
  typesize: fc.oneof(fc.constantFrom(1, 2, 4, 8, 16), fc.integer({ min: 1, max: 300 })),
  offset: fc.integer({ min: 0, max: 7 }),
});

/** The block at an arbitrary byte offset of a larger buffer (unaligned views). */
function placed(bytes: Uint8Array, offset: number): Uint8Array {
  const buf = new Uint8Array(bytes.length + offset);
  buf.set(bytes, offset);
  return buf.subarray(offset);
}

describe("forward byte shuffle", () => {
  it("matches format-facts 1.10's example (typesize 4, two stray bytes)", () => {
    const out = new Uint8Array(10);
    shuffleBlock(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), out, 4);
    expect(Array.from(out)).toEqual([1, 5, 2, 6, 3, 7, 4, 8, 9, 10]);
  });

  it("equals the element-by-element definition and inverts unshuffle (property)", () => {
    const kernels = loadWasmKernels();
    fc.assert(
      fc.property(blockArb, ({ bytes, typesize, offset }) => {
        const src = placed(bytes, offset);
        const ours = new Uint8Array(src.length);
        shuffleBlock(src, ours, typesize);
        const reference = new Uint8Array(src.length);
        referenceShuffle(src, reference, typesize, src.length);
        expect(ours).toEqual(reference);
        const back = new Uint8Array(src.length);
        unshuffle(ours, back, typesize, src.length);
        expect(back).toEqual(src);
        if (kernels !== undefined && typesize <= 255) expect(kernels.shuffle(src, typesize)).toEqual(ours);
      }),
      { numRuns: 500 },
    );
  });
});

describe("forward bit shuffle", () => {
  it("matches format-facts 1.12's examples", () => {
    const out = new Uint8Array(16);
    bitshuffleBlock(Uint8Array.of(0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0), out, 2);
    expect(Array.from(out)).toEqual([0xaa, 0xcc, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    bitshuffleBlock(Uint8Array.of(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80), out, 2);
    expect(Array.from(out)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x80]);
  });

  it("leaves blocks whose element count is not a multiple of 8 untouched", () => {
    const src = Uint8Array.from({ length: 7 * 4 + 3 }, (_, i) => i * 37);
    const out = new Uint8Array(src.length);
    bitshuffleBlock(src, out, 4);
    expect(out).toEqual(src);
  });

  it("equals the bit-by-bit definition and inverts bitunshuffle (property)", () => {
    const kernels = loadWasmKernels();
    fc.assert(
      fc.property(blockArb, ({ bytes, typesize, offset }) => {
        const src = placed(bytes, offset);
        const ours = new Uint8Array(src.length);
        bitshuffleBlock(src, ours, typesize);
        const reference = new Uint8Array(src.length);
        referenceBitshuffle(src, reference, typesize, src.length);
        expect(ours).toEqual(reference);
        const back = new Uint8Array(src.length);
        bitunshuffle(ours, back, typesize, src.length);
        expect(back).toEqual(src);
        if (kernels !== undefined && typesize <= 255) expect(kernels.bitshuffle(src, typesize)).toEqual(ours);
      }),
      { numRuns: 500 },
    );
  });

  it("transposes whole 8-element groups for multiples of 8 (property over sizes)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 20 }), fc.integer(), (groups, typesize, seed) => {
        const n = groups * 8;
        const src = Uint8Array.from({ length: n * typesize + (seed & 3) }, (_, i) => (Math.imul(i + seed, 2654435761) >>> 24) & 0xff);
        const ours = new Uint8Array(src.length);
        bitshuffleBlock(src, ours, typesize);
        const reference = new Uint8Array(src.length);
        referenceBitshuffle(src, reference, typesize, src.length);
        expect(ours).toEqual(reference);
      }),
      { numRuns: 200 },
    );
  });
});
