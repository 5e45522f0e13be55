import { describe, expect, it } from "vitest";
import fc from "fast-check";

/** Raise with CODEC_FUZZ_RUNS for a long fuzzing session; the default keeps CI quick. */
const FUZZ_RUNS = Number(process.env.CODEC_FUZZ_RUNS ?? 1000);
import { FormatError } from "@fmt/errors";
import { decodeSnappy, readSnappyLength } from "./snappy.js";

const hex = (s: string): Uint8Array => Uint8Array.from(s.trim().split(/\s+/).map((b) => parseInt(b, 16)));
const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

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

describe("decodeSnappy: hand-built vectors (format-facts 3.2, 1.15 D)", () => {
  it("decodes the 1.15 D stream to 'abc' x 8", () => {
    const out = new Uint8Array(24);
    expect(decodeSnappy(hex("18 08 61 62 63 52 03 00"), out)).toBe(24);
    expect(out).toEqual(ascii("abc".repeat(8)));
  });

  it("reads varint lengths", () => {
    expect(readSnappyLength(hex("00"))).toEqual({ length: 0, size: 1 });
    expect(readSnappyLength(hex("80 02"))).toEqual({ length: 256, size: 2 });
    expect(readSnappyLength(hex("FF FF FF FF 0F"))).toEqual({ length: 4294967295, size: 5 });
    expectCorrupt(() => readSnappyLength(hex("FF FF FF FF 1F")), "snappy.length");
    expectCorrupt(() => readSnappyLength(hex("80 80")), "snappy.length");
  });

  it("decodes the empty stream", () => {
    expect(decodeSnappy(hex("00"), new Uint8Array(0))).toBe(0);
  });

  it("literal with 1/2-byte extended lengths", () => {
    const lits = Array.from({ length: 300 }, (_, i) => (i * 5) & 255);
    const out = new Uint8Array(300);
    decodeSnappy(Uint8Array.of(0xac, 0x02, 61 << 2, 0x2b, 0x01, ...lits), out); // len 300, tag 61: 299 in 2 bytes
    expect([...out]).toEqual(lits);
    const out2 = new Uint8Array(100);
    decodeSnappy(Uint8Array.of(100, 60 << 2, 99, ...lits.slice(0, 100)), out2);
    expect([...out2]).toEqual(lits.slice(0, 100));
  });

  it("copy with 1-byte offset (tag 01), 2-byte (10) and 4-byte (11)", () => {
    // "abcd" then copy 1-byte offset len 4 offset 4 ("abcd"), 2-byte len 8 offset 2, 4-byte len 3 offset 8
    const s = Uint8Array.of(19, 0x0c, 0x61, 0x62, 0x63, 0x64, 0x01, 0x04, (7 << 2) | 2, 0x02, 0x00, (2 << 2) | 3, 0x08, 0, 0, 0);
    const out = new Uint8Array(19);
    decodeSnappy(s, out);
    const plain = [..."abcdabcd"].map((c) => c.charCodeAt(0));
    for (let k = 0; k < 8; k++) plain.push(plain[plain.length - 2]!);
    for (let k = 0; k < 3; k++) plain.push(plain[plain.length - 8]!);
    expect([...out]).toEqual(plain);
  });
});

describe("decodeSnappy: rejects malformed streams", () => {
  it("length preamble differs from dst", () => expectCorrupt(() => decodeSnappy(hex("18 08 61 62 63 52 03 00"), new Uint8Array(23)), "snappy.length"));
  it("elements produce less than announced", () => expectCorrupt(() => decodeSnappy(hex("18 08 61 62 63"), new Uint8Array(24)), "snappy.end"));
  it("offset 0", () => expectCorrupt(() => decodeSnappy(hex("18 08 61 62 63 52 00 00"), new Uint8Array(24)), "snappy.offset"));
  it("offset before start", () => expectCorrupt(() => decodeSnappy(hex("18 08 61 62 63 52 04 00"), new Uint8Array(24)), "snappy.offset"));
  it("stream starting with a copy", () => expectCorrupt(() => decodeSnappy(hex("04 01 01"), new Uint8Array(4)), "snappy.offset"));
  it("copy past expected output", () => expectCorrupt(() => decodeSnappy(hex("09 08 61 62 63 52 03 00"), new Uint8Array(8)), "snappy.length"));
  it("copy past output with matching preamble", () => expectCorrupt(() => decodeSnappy(hex("10 08 61 62 63 52 03 00"), new Uint8Array(16)), "snappy.copy"));
  it("literal past end of input", () => expectCorrupt(() => decodeSnappy(hex("05 10 61 62"), new Uint8Array(5)), "snappy.literal"));
  it("truncated literal length", () => expectCorrupt(() => decodeSnappy(hex("05 F4 01"), new Uint8Array(5)), "snappy.literal"));
  it("truncated offsets", () => {
    expectCorrupt(() => decodeSnappy(hex("08 00 61 01"), new Uint8Array(8)), "snappy.offset");
    expectCorrupt(() => decodeSnappy(hex("08 00 61 0E 01"), new Uint8Array(8)), "snappy.offset");
    expectCorrupt(() => decodeSnappy(hex("08 00 61 0F 01 00 00"), new Uint8Array(8)), "snappy.offset");
  });
});

describe("decodeSnappy: properties", () => {
  it("garbage only ever throws FormatError CORRUPT_STREAM", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 5000 }), (src, n) => {
        try {
          expect(decodeSnappy(src, new Uint8Array(n))).toBe(n);
        } catch (e) {
          expect(e).toBeInstanceOf(FormatError);
          expect((e as FormatError).code).toBe("CORRUPT_STREAM");
        }
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });
  it("garbage after a matching preamble only ever throws FormatError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 127 }), (body, n) => {
        try {
          decodeSnappy(Uint8Array.of(n, ...body), new Uint8Array(n));
        } catch (e) {
          expect(e).toBeInstanceOf(FormatError);
        }
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });
});
