// zstd encoder initialisation: a failed load must not stick (issue 7), an explicit encoder handle
// needs no shared state at all, and the direct libzstd glue writes the same frames as the
// package's public compress. (Vitest isolates test files: this one starts with no default encoder.)
import { describe, expect, it } from "vitest";
import { Zstd } from "@hpcc-js/wasm-zstd";
import { UsageError } from "@fmt/errors";
import { compress, decompress, initZstd, isZstdReady, loadZstdEncoder, type ZstdEncoder } from "../src/index.js";
import { libzstdEncoder } from "../src/zstd-libzstd.js";

const data = new Uint8Array(new Float64Array(20_000).map((_, i) => Math.round(Math.sin(i / 50) * 1000)).buffer);
const options = { typesize: 8, clevel: 5, shuffle: 1, cname: "zstd" } as const;

describe("zstd encoder initialisation", () => {
  it("an explicit encoder handle compresses without initZstd", async () => {
    const zstd = await loadZstdEncoder();
    expect(isZstdReady()).toBe(false);
    const chunk = compress(data, { ...options, zstd });
    expect(Buffer.from(decompress(chunk)).equals(Buffer.from(data))).toBe(true);
    expect(() => compress(data, options)).toThrow(UsageError);
  });

  it("a failed loadZstdEncoder leaves nothing behind: the next call with a working loader succeeds", async () => {
    let calls = 0;
    const failing = async (): Promise<ZstdEncoder> => {
      calls++;
      throw new Error("wasm fetch failed");
    };
    await expect(loadZstdEncoder(failing)).rejects.toThrow("wasm fetch failed");
    await expect(loadZstdEncoder(failing)).rejects.toThrow("wasm fetch failed");
    expect(calls).toBe(2);
    const zstd = await loadZstdEncoder();
    expect(decompress(compress(data, { ...options, zstd }))).toEqual(data);
  });

  it("a loader resolving to something without compress() is refused with INVALID_ARGUMENT", async () => {
    const broken = async (): Promise<ZstdEncoder> => JSON.parse("{}") as ZstdEncoder;
    await expect(loadZstdEncoder(broken)).rejects.toBeInstanceOf(UsageError);
  });

  it("initZstd: a failing loader rejects, concurrent callers share it, and a later call loads", async () => {
    let attempts = 0;
    const failing = async (): Promise<ZstdEncoder> => {
      attempts++;
      await Promise.resolve();
      throw new Error("no WebAssembly here");
    };
    const first = initZstd(failing);
    const second = initZstd(failing);
    await expect(first).rejects.toThrow("no WebAssembly here");
    await expect(second).rejects.toThrow("no WebAssembly here");
    expect(attempts).toBe(1);
    expect(isZstdReady()).toBe(false);
    expect(() => compress(data, options)).toThrow(UsageError);
    await initZstd();
    expect(isZstdReady()).toBe(true);
    expect(decompress(compress(data, options))).toEqual(data);
  });
});

describe("direct libzstd glue", () => {
  it("writes the same frames as @hpcc-js/wasm-zstd's own compress, for every Blosc level", async () => {
    const zstd = await Zstd.load();
    const encoder = libzstdEncoder(zstd);
    for (const level of [1, 3, 9, 17, 22]) {
      for (const size of [0, 1, 300, 40_000]) {
        const input = data.subarray(0, size);
        expect(encoder.compress(input, level)).toEqual(zstd.compress(input, level));
      }
    }
  });

  it("compressInto reports 0 when the frame does not fit the room, and fills dst exactly otherwise", async () => {
    const zstd = await Zstd.load();
    const encoder = libzstdEncoder(zstd);
    const expected = zstd.compress(data, 9);
    // libzstd may want a little more room than the frame it ends up writing (c-blosc's maxout
    // behaves the same way), so the room here has some slack
    const room = new Uint8Array(expected.length + 64);
    expect(encoder.compressInto(data, room, 9)).toBe(expected.length);
    expect(room.subarray(0, expected.length)).toEqual(expected);
    expect(encoder.compressInto(data, new Uint8Array(expected.length - 1), 9)).toBe(0);
    expect(encoder.compressInto(data, new Uint8Array(16), 9)).toBe(0);
  });

  it("falls back to the public compress when the package's internals change shape", async () => {
    const zstd = await Zstd.load();
    const publicOnly = { compress: (input: Uint8Array, level: number) => zstd.compress(input, level) };
    const encoder = libzstdEncoder(publicOnly);
    expect(encoder.compress(data, 3)).toEqual(zstd.compress(data, 3));
    expect(encoder.compressInto(data, new Uint8Array(10), 3)).toBe(0);
  });
});
