// CRC-32 (the WebAssembly slicing-by-16 kernel and the JavaScript slicing-by-8 loop) against
// zlib's own implementation, which Node ships (an oracle independent of this package): random
// lengths and contents, every alignment of the tail, 64 KiB pieces, and running values carried
// across pieces.
import { crc32 as zlibCrc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32, crc32Js } from "../src/checksum.js";
import { crc32Wasm } from "../src/checksum-wasm.js";

describe("crc32 agrees with zlib", () => {
  it("crc32 of any bytes, whole and in two pieces", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000, size: "max" }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        const expected = zlibCrc32(bytes);
        expect(crc32(bytes)).toBe(expected);
        expect(crc32Js(bytes)).toBe(expected);
        expect(crc32Wasm(bytes, 0)).toBe(expected);
        expect(crc32(bytes.subarray(at), crc32(bytes.subarray(0, at)))).toBe(expected);
        expect(crc32Wasm(bytes.subarray(at), crc32Js(bytes.subarray(0, at)))).toBe(expected);
      }),
      { seed: 20261124, numRuns: 400 },
    );
  });

  it("crc32 of every length 0..40 (the 8-byte loop and the byte tail)", () => {
    const bytes = Uint8Array.from({ length: 40 }, (_, i) => (i * 197 + 31) & 0xff);
    for (let n = 0; n <= 40; n++) expect(crc32(bytes.subarray(0, n)), `length ${n}`).toBe(zlibCrc32(bytes.subarray(0, n)));
  });

  it("the WebAssembly kernel: every length 0..100 at alignments 0..15, and 64 KiB pieces", () => {
    expect(crc32Wasm(new TextEncoder().encode("123456789"), 0)).toBe(0xcbf43926);
    const bytes = Uint8Array.from({ length: 200_003 }, (_, i) => ((i * 2654435761) >>> 24) & 0xff);
    for (let offset = 0; offset < 16; offset++) {
      for (let n = 0; n <= 100; n++) {
        const piece = bytes.subarray(offset, offset + n);
        expect(crc32Wasm(piece, 0), `offset ${offset} length ${n}`).toBe(zlibCrc32(piece));
      }
    }
    for (const n of [65_535, 65_536, 65_537, 131_072, bytes.length]) expect(crc32Wasm(bytes.subarray(0, n), 0), `length ${n}`).toBe(zlibCrc32(bytes.subarray(0, n)));
  });
});
