// Hand-built chunks of format-facts 1.15 (A-D) and the hand-derived filter examples of 1.10/1.12.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { decompress, decompressRange, getitem } from "../src/index.js";
import { unshuffle, shuffle } from "../src/shuffle.js";
import { bitunshuffle, bitshuffle } from "../src/bitshuffle.js";
import { BACKENDS, useBackend } from "./backends.js";

const hex = (s: string): Uint8Array => Uint8Array.from(s.replace(/\s+/g, "").match(/../g)!.map((h) => parseInt(h, 16)));
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe.each(BACKENDS)("format-facts 1.15 worked examples (%s backend)", (backend) => {
  useBackend(backend);
  it("A: memcpyed chunk of int32 1..8 (not unshuffled)", () => {
    const chunk = hex(`02011304 20000000 20000000 30000000
      01000000 02000000 03000000 04000000 05000000 06000000 07000000 08000000`);
    expect(Array.from(new Int32Array(decompress(chunk).buffer))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Array.from(new Int32Array(getitem(chunk, 2, 3).buffer))).toEqual([3, 4, 5]);
  });
  it("B: empty chunk", () => {
    const chunk = hex("02011304 00000000 01000000 10000000");
    expect(decompress(chunk)).toEqual(new Uint8Array(0));
    expect(getitem(chunk, 0, 0)).toEqual(new Uint8Array(0));
  });
  it("C: split chunk with a raw stream and a BloscLZ stream, u16 0..255", () => {
    const plane0 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0")).join("");
    const chunk = hex(`02010102 00020000 00020000 23010000 14000000 00010000 ${plane0} 07000000 2000E0F5000000`);
    expect(chunk.length).toBe(0x123);
    const out = decompress(chunk);
    expect(Array.from(new Uint16Array(out.buffer))).toEqual(Array.from({ length: 256 }, (_, i) => i));
    expect(Array.from(decompressRange(chunk, 301, 305))).toEqual([0, 151, 0, 152]);
  });
  it("C with the streams real encoders wrote for split 1 (1.21.6 and 1.14.3)", () => {
    const plane0 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0")).join("");
    for (const s1 of ["0C000000 2300000000E0F00302000000", "0A000000 210000E0F20002000000"]) {
      const [size, bytes] = s1.split(" ");
      const body = hex(`14000000 00010000 ${plane0} ${size} ${bytes}`);
      const chunk = new Uint8Array(16 + body.length);
      chunk.set(hex("02010102 00020000 00020000"));
      new DataView(chunk.buffer).setInt32(12, chunk.length, true);
      chunk.set(body, 16);
      expect(Array.from(new Uint16Array(decompress(chunk).buffer))).toEqual(Array.from({ length: 256 }, (_, i) => i));
    }
  });
  it("D: LZ4 and Snappy single-stream chunks decode to abc x 8", () => {
    const lz4 = hex("02013001 18000000 18000000 24000000 14000000 0C000000 3C61626303005062636162 63");
    const snappy = hex("02015001 18000000 18000000 20000000 14000000 08000000 1808616263520300");
    expect(decompress(lz4)).toEqual(text("abc".repeat(8)));
    expect(decompress(snappy)).toEqual(text("abc".repeat(8)));
    expect(decompressRange(snappy, 4, 9)).toEqual(text("bcabc"));
  });
});

describe("filter kernels", () => {
  it("byte unshuffle example of 1.10 (typesize 4, 10-byte block)", () => {
    const out = new Uint8Array(10);
    unshuffle(hex("0105020603070408090A"), out, 4, 10);
    expect(out).toEqual(hex("0102030405060708090A"));
  });
  it("bit unshuffle examples of 1.12", () => {
    const out = new Uint8Array(16);
    bitunshuffle(hex("AACCF000000000000000000000000000"), out, 2, 16);
    expect(out).toEqual(hex("00000100020003000400050006000700"));
    bitunshuffle(hex("00000000000000000100000000000080"), out, 2, 16);
    expect(out).toEqual(hex("00010000000000000000000000000080"));
  });
  it("bit unshuffle leaves a block alone when its element count is not a multiple of 8", () => {
    const src = hex("0102030405060708090A0B0C0D0E");
    const out = new Uint8Array(14);
    bitunshuffle(src, out, 2, 14); // 7 elements
    expect(out).toEqual(src);
  });
  const sizes = fc.record({ typesize: fc.integer({ min: 1, max: 40 }), size: fc.integer({ min: 0, max: 3000 }), offset: fc.integer({ min: 0, max: 7 }) });
  it("unshuffle inverts the definition of 1.10 for every typesize, size and alignment (property)", () => {
    fc.assert(fc.property(sizes, fc.integer(), ({ typesize, size, offset }, seed) => {
      const plain = Uint8Array.from({ length: size }, (_, i) => (i * 131 + seed) & 255);
      // shuffled by the index formula of 1.10, written out independently of shuffle()
      const n = Math.floor(size / typesize);
      const shuffled = plain.slice();
      if (typesize > 1) for (let i = 0; i < n; i++) for (let j = 0; j < typesize; j++) shuffled[j * n + i] = plain[i * typesize + j]!;
      const out = new Uint8Array(size + offset).subarray(offset);
      unshuffle(shuffled, out, typesize, size);
      expect(out).toEqual(plain);
      const again = new Uint8Array(size);
      shuffle(plain, again, typesize, size);
      expect(again).toEqual(shuffled);
    }));
  });
  it("bitunshuffle inverts the bit-level definition of 1.12 (property)", () => {
    fc.assert(fc.property(sizes, fc.uint8Array({ minLength: 3000, maxLength: 3000 }), ({ typesize, size }, noise) => {
      const plain = noise.subarray(0, size);
      const shuffled = new Uint8Array(size);
      bitshuffle(plain, shuffled, typesize, size);
      const out = new Uint8Array(size);
      bitunshuffle(shuffled, out, typesize, size);
      expect(out).toEqual(plain);
    }));
  });
});
