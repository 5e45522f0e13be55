// Adler-32 computed where the bytes lie, in a kernels instance's own memory (format-2 chunks read
// into the decoder's memory or encoded there): the same sums as zlib's, for any length, alignment
// and running value, in ordinary and shared memory; @fmt/header's adler32 takes that path for
// bytes in such memory and its own module for any other bytes, with the same sums.
import { deflateSync } from "node:zlib";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { adler32 } from "@fmt/header";
import { loadSharedWasmKernels, loadWasmKernels } from "../src/wasm/index.js";
import type { WasmKernels } from "../src/wasm/index.js";

/** zlib's Adler-32 of `bytes`: the big-endian trailer of a zlib stream (RFC 1950). */
function zlibAdler32(bytes: Uint8Array): number {
  const stream = deflateSync(bytes, { level: 0 });
  return new DataView(stream.buffer, stream.byteOffset + stream.length - 4, 4).getUint32(0, false);
}

/** RFC 1950's Adler-32 byte loop started from the sums in `previous` instead of 1 (all reduced here). */
function continued(bytes: Uint8Array, previous: number): number {
  let a = previous & 0xffff;
  let b = previous >>> 16;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function kernels(shared: boolean): WasmKernels {
  const k = shared ? loadSharedWasmKernels() : loadWasmKernels();
  if (k === undefined) throw new Error("the kernels need WebAssembly SIMD, which Node has");
  return k;
}

afterEach(() => vi.restoreAllMocks());

describe("Adler-32 in a kernels instance's memory", () => {
  it.each([false, true])("agrees with zlib for any bytes, alignment and running value (shared memory: %s)", (shared) => {
    const k = kernels(shared);
    const inputs = k.reserveInputs(200_000, 1 << 20);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 150_000, size: "max" }), fc.nat(31), fc.constantFrom(1, 0, 0x12345678, 0xfff0fff0), (bytes, offset, previous) => {
        const view = inputs.subarray(offset, offset + bytes.length);
        view.set(bytes);
        const expected = previous === 1 ? zlibAdler32(bytes) : continued(bytes, previous);
        expect(k.adler32Here(view, previous)).toBe(expected);
        // Through @fmt/header: the same sum, from the bytes where they lie once long enough.
        const here = vi.spyOn(k, "adler32Here");
        expect(adler32(view, previous)).toBe(expected);
        expect(here.mock.calls.length).toBe(bytes.length >= 128 ? 1 : 0);
        here.mockRestore();
      }),
      { seed: 20261129, numRuns: 120 },
    );
  });

  it("agrees with zlib on all-0xff bytes across run boundaries, from any running value", () => {
    // The largest column sums, `before` lanes and weighted totals the kernel can meet.
    const k = kernels(false);
    const inputs = k.reserveInputs(200_003, 1 << 20);
    for (const length of [5535, 5536, 5537, 11_071, 11_072, 11_073, 200_003]) {
      const view = inputs.subarray(3, 3 + length);
      view.fill(0xff);
      expect(k.adler32Here(view, 1), `${length} bytes`).toBe(zlibAdler32(view));
      for (const previous of [0xfff0fff0, 0xffffffff]) {
        // An unreduced running value continues as its reduced sums would.
        const reduced = (((previous >>> 16) % 65521) << 16 | ((previous & 0xffff) % 65521)) >>> 0;
        expect(k.adler32Here(view, previous), `${length} bytes from ${previous.toString(16)}`).toBe(continued(view, reduced));
      }
    }
  });

  it("answers nothing for bytes outside its memory, and @fmt/header then sums them itself", () => {
    const k = kernels(false);
    k.reserveInputs(1 << 16, 1 << 20);
    const elsewhere = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 2654435761) >>> 24);
    expect(k.adler32Here(elsewhere, 1)).toBeUndefined();
    expect(adler32(elsewhere)).toBe(zlibAdler32(elsewhere));
  });

  it("follows its memory when it grows (the old buffer is detached), for views taken after", () => {
    const k = kernels(false);
    const small = k.reserveInputs(1 << 16, 1 << 16);
    small.fill(7);
    const before = adler32(small);
    const large = k.reserveInputs(8 << 20, 1 << 20); // grows the memory
    expect(small.length).toBe(0); // detached with the old buffer
    large.subarray(0, 1 << 16).fill(7);
    const here = vi.spyOn(k, "adler32Here");
    expect(adler32(large.subarray(0, 1 << 16))).toBe(before);
    expect(here).toHaveBeenCalledTimes(1);
  });

  it("keeps a provider installed before it for bytes it does not hold", async () => {
    // A fresh module graph: this @fmt/header has no provider until the application's, then
    // @fmt/blosc's first kernels install theirs in front of it.
    vi.resetModules();
    const header = await import("@fmt/header");
    const wasm = await import("../src/wasm/index.js");
    const seen: number[] = [];
    expect(header.useInPlaceChecksums((name, bytes) => (seen.push(bytes.length), 12345))).toBeUndefined();
    const k = wasm.loadWasmKernels()!;
    const inputs = k.reserveInputs(1 << 16, 1 << 20);
    inputs.fill(9, 0, 4096);
    expect(header.adler32(inputs.subarray(0, 4096))).toBe(zlibAdler32(new Uint8Array(4096).fill(9)));
    expect(header.adler32(new Uint8Array(5000))).toBe(12345);
    expect(seen).toEqual([5000]);
    header.useInPlaceChecksums(undefined);
    vi.resetModules();
  });
});
