import { describe, expect, it } from "vitest";
import fc from "fast-check";

/** Raise with CODEC_FUZZ_RUNS for a long fuzzing session; the default keeps CI quick. */
const FUZZ_RUNS = Number(process.env.CODEC_FUZZ_RUNS ?? 1000);
import { FormatError, UsageError } from "@fmt/errors";
import { decodeBlosclz, encodeBlosclz } from "./blosclz.js";

const hex = (s: string): Uint8Array => Uint8Array.from(s.trim().split(/\s+/).map((b) => parseInt(b, 16)));

function expectCorrupt(fn: () => unknown, field?: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).code).toBe("CORRUPT_STREAM");
    if (field !== undefined) expect((e as FormatError).field).toBe(field);
    return;
  }
  throw new Error("expected a FormatError");
}

describe("decodeBlosclz: hand-built vectors (format-facts 2.4, 1.15 C)", () => {
  it("decodes the 2.4 worked example to 256 zero bytes", () => {
    const out = new Uint8Array(256).fill(0xaa);
    expect(decodeBlosclz(hex("20 00 E0 F5 00 00 00"), out)).toBe(256);
    expect(out).toEqual(new Uint8Array(256));
  });

  it("decodes the real 1.21.6 and 1.14.3 encodings of 256 zeros (1.15 C)", () => {
    for (const s of ["23 00 00 00 00 E0 F0 03 02 00 00 00", "21 00 00 E0 F2 00 02 00 00 00"]) {
      const out = new Uint8Array(256).fill(1);
      decodeBlosclz(hex(s), out);
      expect(out).toEqual(new Uint8Array(256));
    }
  });

  // Streams that start with `runs` 32-byte literal runs holding bytes 0,1,2,..., then a token, then
  // a 1-byte final literal 0xEE. Expected output is built here by the grammar's definition.
  function withPrefix(prefixLen: number, token: number[], length: number, distance: number): [Uint8Array, Uint8Array] {
    const stream: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < prefixLen; i += 32) {
      stream.push(31 | (i === 0 ? 0x20 : 0));
      for (let j = 0; j < 32; j++) {
        const v = (i + j) * 7 % 251;
        stream.push(v);
        plain.push(v);
      }
    }
    stream.push(...token, 0x00, 0xee);
    for (let k = 0; k < length; k++) plain.push(plain[plain.length - distance]!);
    plain.push(0xee);
    return [Uint8Array.from(stream), Uint8Array.from(plain)];
  }

  it("61 2B: length 5, near distance 300", () => {
    const [s, p] = withPrefix(320, [0x61, 0x2b], 5, 300);
    const out = new Uint8Array(p.length);
    decodeBlosclz(s, out);
    expect(out).toEqual(p);
  });

  it("9F FF 03 28: length 6, far distance 9000", () => {
    const [s, p] = withPrefix(9024, [0x9f, 0xff, 0x03, 0x28], 6, 9000);
    const out = new Uint8Array(p.length);
    decodeBlosclz(s, out);
    expect(out).toEqual(p);
  });

  it("FF 0B FF 07 10: length 20, far distance 10000", () => {
    const [s, p] = withPrefix(10016, [0xff, 0x0b, 0xff, 0x07, 0x10], 20, 10000);
    const out = new Uint8Array(p.length);
    decodeBlosclz(s, out);
    expect(out).toEqual(p);
  });

  it("long-match extension bytes: FF 00 means length 264, FF 01 length 265", () => {
    for (const [ext, len] of [[[0xff, 0x00], 264], [[0xff, 0x01], 265], [[0xfe], 263]] as const) {
      const s = Uint8Array.from([0x20, 0x41, 0xe0, ...ext, 0x00, 0x00, 0x42]);
      const out = new Uint8Array(1 + len + 1);
      decodeBlosclz(s, out);
      expect(out[0]).toBe(0x41);
      expect(out.subarray(1, 1 + len).every((b) => b === 0x41)).toBe(true);
      expect(out[len + 1]).toBe(0x42);
    }
  });

  it("ignores the marker bits of byte 0 (any top 3 bits)", () => {
    for (const top of [0x00, 0x20, 0x40, 0xe0]) {
      const out = new Uint8Array(2);
      decodeBlosclz(Uint8Array.of(top | 1, 5, 6), out);
      expect([...out]).toEqual([5, 6]);
    }
  });

  it("executes a trailing match (c-blosc <= 1.18 leniency)", () => {
    const out = new Uint8Array(256).fill(9);
    decodeBlosclz(hex("20 00 E0 F6 00"), out);
    expect(out).toEqual(new Uint8Array(256));
  });
});

describe("decodeBlosclz: rejects malformed streams", () => {
  it("empty stream", () => expectCorrupt(() => decodeBlosclz(new Uint8Array(0), new Uint8Array(0)), "blosclz.stream"));
  it("output shorter than expected", () => expectCorrupt(() => decodeBlosclz(hex("20 00"), new Uint8Array(2)), "blosclz.end"));
  it("literal run longer than expected output", () => expectCorrupt(() => decodeBlosclz(hex("21 00 00"), new Uint8Array(1)), "blosclz.literal"));
  it("literal run past end of input", () => expectCorrupt(() => decodeBlosclz(hex("23 00 00"), new Uint8Array(4)), "blosclz.literal"));
  it("match distance before output start", () => expectCorrupt(() => decodeBlosclz(hex("20 00 20 01 00 00"), new Uint8Array(5)), "blosclz.distance"));
  it("far match before output start", () => expectCorrupt(() => decodeBlosclz(hex("20 00 3F FF 00 00 00 00"), new Uint8Array(5)), "blosclz.distance"));
  it("match past expected output", () => expectCorrupt(() => decodeBlosclz(hex("20 00 E0 F5 00 00 00"), new Uint8Array(200)), "blosclz.length"));
  it("stream ends before the distance byte", () => expectCorrupt(() => decodeBlosclz(hex("20 00 20"), new Uint8Array(4)), "blosclz.distance"));
  it("stream ends inside extension bytes", () => expectCorrupt(() => decodeBlosclz(hex("20 00 E0 FF FF"), new Uint8Array(600)), "blosclz.length"));
  it("stream ends inside a far distance", () => expectCorrupt(() => decodeBlosclz(hex("20 00 3F FF 01"), new Uint8Array(9000)), "blosclz.distance"));
  it("output longer than expected by a literal", () => expectCorrupt(() => decodeBlosclz(hex("20 00 00 01"), new Uint8Array(1))));
});

describe("decodeBlosclz: properties", () => {
  it("garbage, for any expected size, only ever throws FormatError CORRUPT_STREAM", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 5000 }), (src, n) => {
        const out = new Uint8Array(n);
        try {
          expect(decodeBlosclz(src, out)).toBe(n);
        } catch (e) {
          expect(e).toBeInstanceOf(FormatError);
          expect((e as FormatError).code).toBe("CORRUPT_STREAM");
        }
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });
});

describe("encodeBlosclz: arguments", () => {
  it("rejects clevels outside 0..9 with UsageError INVALID_ARGUMENT", () => {
    for (const bad of [-1, 10, 2.5, Number.NaN]) {
      let error: unknown;
      try {
        encodeBlosclz(new Uint8Array(100), new Uint8Array(100), bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).code).toBe("INVALID_ARGUMENT");
    }
  });
  it("clevel 0 and empty input mean 'store raw' (0)", () => {
    expect(encodeBlosclz(new Uint8Array(1000), new Uint8Array(1000), 0)).toBe(0);
    expect(encodeBlosclz(new Uint8Array(0), new Uint8Array(10), 5)).toBe(0);
  });
  it("compresses 256 zeros into a stream that starts with a 0x20-marked literal and ends with a literal", () => {
    const dst = new Uint8Array(256);
    const n = encodeBlosclz(new Uint8Array(256), dst, 9);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(16);
    expect(dst[0]! & 0xe0).toBe(0x20);
    // Walk the tokens by hand: the last instruction must be a literal run.
    let ip = 1 + (dst[0]! & 31) + 1;
    let lastWasLiteral = true;
    while (ip < n) {
      const c = dst[ip++]!;
      if (c < 32) {
        ip += c + 1;
        lastWasLiteral = true;
        continue;
      }
      if (c >> 5 === 7) while (dst[ip++] === 255);
      const low = dst[ip++]!;
      if (low === 255 && (c & 31) === 31) ip += 2;
      lastWasLiteral = false;
    }
    expect(ip).toBe(n);
    expect(lastWasLiteral).toBe(true);
  });
});
