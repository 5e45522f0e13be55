// The decode-backend switch: WebAssembly and TypeScript paths selectable, and equal on real chunks.
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "@fmt/errors";
import { decompress, decompressRange, getDecodeBackend, initBlosc, setDecodeBackend } from "../src/index.js";
import { getKernels, setKernels } from "../src/decompress.js";
import { runOracle } from "./cblosc.js";
import type { OracleCase } from "./cblosc.js";

const cases: OracleCase[] = (["lz4", "blosclz", "snappy", "zlib", "zstd"] as const).flatMap((cname, i) =>
  ([0, 1, 2] as const).map((shuffle) => ({
    id: 3 * i + shuffle, seed: 7 + i, size: 70_001, typesize: 8, data: "walk_f8" as const, cname, shuffle, clevel: 5, blocksize: 8192, nthreads: 1,
  })),
);
const { results } = runOracle(cases);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

describe("setDecodeBackend / getDecodeBackend / initBlosc", () => {
  afterEach(() => {
    setDecodeBackend("auto");
    setKernels();
  });

  it("auto resolves to wasm in Node 20 (SIMD available), and initBlosc reports it", async () => {
    expect(await initBlosc()).toBe(true);
    expect(getDecodeBackend()).toBe("wasm");
  });

  it("each backend decodes every codec and filter to the c-blosc input, whole and by range", () => {
    for (const backend of ["wasm", "js"] as const) {
      setDecodeBackend(backend);
      expect(getDecodeBackend()).toBe(backend);
      for (const r of results) {
        if (!sameBytes(decompress(r.chunk), r.data)) expect.fail(`${backend}: ${JSON.stringify(r.case)}`);
        if (!sameBytes(decompressRange(r.chunk, 8191, 30_001), r.data.subarray(8191, 30_001))) expect.fail(`${backend} range: ${JSON.stringify(r.case)}`);
      }
    }
  });

  it("custom kernels from setKernels take precedence over WebAssembly", () => {
    const base = getKernels();
    let calls = 0;
    setKernels({ ...base, unshuffle: (src, dst, typesize, size) => { calls++; base.unshuffle(src, dst, typesize, size); } });
    expect(getDecodeBackend()).toBe("js");
    const r = results.find((x) => x.case.shuffle === 1 && x.case.cname === "lz4")!;
    expect(sameBytes(decompress(r.chunk), r.data)).toBe(true);
    expect(calls).toBeGreaterThan(0);
  });

  it("rejects an unknown backend name with UsageError INVALID_ARGUMENT", () => {
    expect(() => setDecodeBackend("gpu" as never)).toThrow(UsageError);
    expect(getDecodeBackend()).toBe("wasm");
  });
});
