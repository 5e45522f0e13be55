// Adler-32, through the WebAssembly kernel and through the JavaScript loop, against zlib's own:
// a zlib stream (RFC 1950) ends with the big-endian Adler-32 of its uncompressed bytes, so
// node:zlib's deflate is an oracle independent of this package. Lengths cover the kernel's
// 32-byte steps, its 5,536-byte runs and its 64 KiB pieces; running values are carried across
// pieces, and every byte 0xff checks the bounds of the sums.
import { crc32 as zlibCrc32, deflateSync } from "node:zlib";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { adler32, adler32Js } from "../src/checksum.js";
import { adler32Wasm } from "../src/checksum-wasm.js";
import { CHECKSUMS_WASM_BASE64 } from "../src/wasm/checksums.generated.js";

function zlibAdler32(bytes: Uint8Array): number {
  const stream = deflateSync(bytes, { level: 0 });
  return new DataView(stream.buffer, stream.byteOffset + stream.length - 4, 4).getUint32(0, false);
}

describe("adler32 agrees with zlib", () => {
  it("the WebAssembly kernel is available under Node, in a module a browser's main thread compiles synchronously", () => {
    expect(adler32Wasm(new TextEncoder().encode("abc"), 1)).toBe(0x024d0127);
    // Browsers refuse synchronous compiles above 4 KiB on their main thread (older Chromium,
    // WebViews): the module would silently fall back to the JavaScript loops there.
    expect(atob(CHECKSUMS_WASM_BASE64).length).toBeLessThan(4096);
  });

  it("adler32 of any bytes, whole and in two pieces, on both paths", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20_000, size: "max" }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % (bytes.length + 1);
        const expected = zlibAdler32(bytes);
        expect(adler32(bytes)).toBe(expected);
        expect(adler32Js(bytes)).toBe(expected);
        expect(adler32Wasm(bytes, 1)).toBe(expected);
        expect(adler32(bytes.subarray(at), adler32(bytes.subarray(0, at)))).toBe(expected);
        expect(adler32Wasm(bytes.subarray(at), adler32Js(bytes.subarray(0, at)))).toBe(expected);
      }),
      { seed: 20261129, numRuns: 300 },
    );
  });

  it("long inputs: several runs and 64 KiB pieces, with every byte 0xff and with random bytes", () => {
    const random = new Uint8Array(300_001);
    let state = 2026;
    for (let i = 0; i < random.length; i++) {
      state = (state * 1103515245 + 12345) >>> 0;
      random[i] = state >>> 24;
    }
    for (const bytes of [new Uint8Array(200_003).fill(0xff), random]) {
      for (const n of [31, 32, 33, 5535, 5536, 5537, 5552, 11_072, 65_535, 65_536, 65_537, bytes.length]) {
        expect(adler32Wasm(bytes.subarray(0, n), 1), `length ${n}`).toBe(zlibAdler32(bytes.subarray(0, n)));
      }
    }
  });

  it("every length 0..200 at every alignment 0..15 (the 32-byte steps and the byte tail)", () => {
    const bytes = Uint8Array.from({ length: 216 }, (_, i) => (i * 197 + 31) & 0xff);
    for (let offset = 0; offset < 16; offset++) {
      for (let n = 0; n <= 200; n++) {
        const piece = bytes.subarray(offset, offset + n);
        expect(adler32(piece), `offset ${offset} length ${n}`).toBe(zlibAdler32(piece));
      }
    }
  });

  it("a running value that is not reduced yet continues as the JavaScript loop does", () => {
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 0xff);
    const ones = new Uint8Array(200_003).fill(0xff);
    for (const previous of [0, 0xfff0fff0, 0xffffffff, 0x12345678]) {
      expect(adler32Wasm(bytes, previous), `previous ${previous}`).toBe(adler32Js(bytes, previous));
      expect(adler32Wasm(ones, previous), `0xff bytes, previous ${previous}`).toBe(adler32Js(ones, previous));
      expect(adler32Wasm(bytes.subarray(0, 0), previous)).toBe(adler32Js(bytes.subarray(0, 0), previous));
    }
  });
});

describe("without WebAssembly SIMD", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it("adler32 and crc32 fall back to the JavaScript loops, with the same values", async () => {
    vi.resetModules();
    const validate = vi.spyOn(WebAssembly, "validate").mockReturnValue(false);
    const fresh = await import("../src/checksum.js");
    const wasm = await import("../src/checksum-wasm.js");
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 2654435761) >>> 24);
    expect(wasm.adler32Wasm(bytes, 1)).toBeUndefined();
    expect(wasm.crc32Wasm(bytes, 0)).toBeUndefined();
    expect(fresh.adler32(bytes)).toBe(zlibAdler32(bytes));
    expect(fresh.crc32(bytes)).toBe(zlibCrc32(bytes));
    expect(validate).toHaveBeenCalled();
  });
});
