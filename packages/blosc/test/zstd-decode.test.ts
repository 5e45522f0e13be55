// The zstd decoder against frames written by the real zstd (Debian's `zstd` command and libzstd
// 1.5.7 in WebAssembly): every frame must decode to its input, and damaged frames must fail with
// CORRUPT_STREAM instead of returning other bytes.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FormatError } from "@fmt/errors";
import { decodeZstd } from "../src/zstd.js";
import { loadZstdEncoder } from "../src/zstd-encode.js";
import { xxh64Low32 } from "../src/xxh64.js";

function zstdCli(data: Uint8Array, args: string[]): Uint8Array {
  return new Uint8Array(execFileSync("zstd", ["-c", "-q", `--stream-size=${data.length}`, ...args], { input: data, maxBuffer: 64 << 20 }));
}

/** Bytes with runs, repeats at many distances and noise, so every literal and sequence mode shows up. */
function mixed(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0 || 1;
  const rand = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  let i = 0;
  while (i < n) {
    const kind = rand();
    const len = 1 + Math.floor(rand() * (kind < 0.1 ? 3000 : 200));
    for (let k = 0; k < len && i < n; k++, i++) {
      if (kind < 0.3) out[i] = Math.floor(rand() * 256);
      else if (kind < 0.4) out[i] = 7;
      else if (kind < 0.7) out[i] = 65 + Math.floor(rand() * 6);
      else out[i] = i >= 1000 ? out[i - 1 - Math.floor(rand() * 999)]! : 0;
    }
  }
  return out;
}

function float64Walk(n: number): Uint8Array {
  const values = new Float64Array(n);
  for (let i = 1; i < n; i++) values[i] = values[i - 1]! + Math.sin(i * 12.9898) * 0.5;
  return new Uint8Array(values.buffer);
}

function expectDecodes(frame: Uint8Array, data: Uint8Array): void {
  const out = new Uint8Array(data.length);
  decodeZstd(frame, out);
  expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
}

describe("decodeZstd on frames from the zstd command", () => {
  const inputs: [string, Uint8Array][] = [
    ["mixed 300 KiB", mixed(300 * 1024, 7)],
    ["float64 walk 1 MiB", float64Walk(131072)],
    ["text-like 50 KB", mixed(50_000, 99).map((b) => 97 + (b % 20))],
    ["tiny", Uint8Array.of(1, 2, 3, 1, 2, 3, 1, 2, 3, 9)],
  ];
  for (const [name, data] of inputs) {
    for (const level of ["-1", "-3", "-9", "-19", "--ultra", "--fast=3"]) {
      it(`${name}, level ${level}, with and without checksum`, () => {
        const args = level === "--ultra" ? ["--ultra", "-22"] : [level];
        expectDecodes(zstdCli(data, [...args, "--no-check"]), data);
        expectDecodes(zstdCli(data, [...args, "--check"]), data);
      });
    }
  }

  it("concatenated frames decode to the concatenation", () => {
    const a = mixed(5000, 1);
    const b = mixed(7000, 2);
    const stream = new Uint8Array([...zstdCli(a, ["-3"]), ...zstdCli(b, ["-9"])]);
    expectDecodes(stream, new Uint8Array([...a, ...b]));
  });

  it("a flipped data bit under a checksum is refused", () => {
    const data = mixed(20_000, 5);
    const frame = zstdCli(data, ["-3", "--check"]);
    const bad = frame.slice();
    bad[bad.length - 2]! ^= 0x10; // inside the stored checksum
    expect(() => decodeZstd(bad, new Uint8Array(data.length))).toThrow(FormatError);
  });
});

describe("xxh64Low32", () => {
  it("equals the checksum the zstd command stores, for every tail length and several stripes", () => {
    const data = mixed(70_000, 11);
    for (const n of [...Array.from({ length: 70 }, (_, i) => i), 1000, 4099, 65_537]) {
      const frame = zstdCli(data.subarray(0, n), ["-1", "--check"]);
      const stored = new DataView(frame.buffer, frame.byteOffset + frame.length - 4, 4).getUint32(0, true);
      expect(xxh64Low32(data, 0, n)).toBe(stored);
    }
  });

  it("gives the published XXH64 of the empty input (0xef46db3751d8e999)", () => {
    expect(xxh64Low32(new Uint8Array(0), 0, 0)).toBe(0x51d8e999);
  });
});

describe("decodeZstd against libzstd 1.5.7 (WebAssembly encoder)", () => {
  it("decodes what libzstd encodes, for random data and levels", async () => {
    const encoder = await loadZstdEncoder();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200_000 }), fc.integer(), fc.integer({ min: -5, max: 19 }), (n, seed, level) => {
        const data = mixed(n, seed);
        expectDecodes(encoder.compress(data, level), data);
      }),
      { numRuns: 60 },
    );
  });

  it("every truncation and many single-byte changes fail with CORRUPT_STREAM or decode", async () => {
    const encoder = await loadZstdEncoder();
    const data = mixed(4000, 3);
    const frame = encoder.compress(data, 5);
    const outcomes = new Set<string>();
    const attempt = (bytes: Uint8Array): void => {
      try {
        decodeZstd(bytes, new Uint8Array(data.length));
        outcomes.add("ok");
      } catch (e) {
        if (!(e instanceof FormatError)) throw e;
        expect(e.code).toBe("CORRUPT_STREAM");
        outcomes.add(e.code);
      }
    };
    for (let n = 0; n < frame.length; n++) attempt(frame.subarray(0, n));
    for (let i = 0; i < frame.length; i++) {
      for (const x of [0x01, 0x80, 0xff]) {
        const bad = frame.slice();
        bad[i]! ^= x;
        attempt(bad);
      }
    }
    expect(outcomes.has("CORRUPT_STREAM")).toBe(true);
  });
});
