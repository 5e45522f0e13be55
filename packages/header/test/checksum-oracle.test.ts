// CRC-32 (slicing-by-8) against zlib's own implementation, which Node ships (an oracle
// independent of this package): random lengths and contents, every alignment of the tail,
// and running values carried across pieces.
import { crc32 as zlibCrc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32 } from "../src/checksum.js";

describe("crc32 agrees with zlib", () => {
  it("crc32 of any bytes, whole and in two pieces", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        expect(crc32(bytes)).toBe(zlibCrc32(bytes));
        expect(crc32(bytes.subarray(at), crc32(bytes.subarray(0, at)))).toBe(zlibCrc32(bytes));
      }),
      { seed: 20261124, numRuns: 400 },
    );
  });

  it("crc32 of every length 0..40 (the 8-byte loop and the byte tail)", () => {
    const bytes = Uint8Array.from({ length: 40 }, (_, i) => (i * 197 + 31) & 0xff);
    for (let n = 0; n <= 40; n++) expect(crc32(bytes.subarray(0, n)), `length ${n}`).toBe(zlibCrc32(bytes.subarray(0, n)));
  });
});
