import { describe, expect, it } from "vitest";
import fc from "fast-check";

/** Raise with CODEC_FUZZ_RUNS for a long fuzzing session; the default keeps CI quick. */
const FUZZ_RUNS = Number(process.env.CODEC_FUZZ_RUNS ?? 1000);
import { FormatError } from "@fmt/errors";
import { decodeLz4 } from "./lz4.js";

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

describe("decodeLz4: hand-built vectors (format-facts 3.1, 1.15 D)", () => {
  it("decodes the 1.15 D stream to 'abc' x 8", () => {
    const out = new Uint8Array(24);
    expect(decodeLz4(hex("3C 61 62 63 03 00 50 62 63 61 62 63"), out)).toBe(24);
    expect(out).toEqual(ascii("abc".repeat(8)));
  });

  it("decodes the real c-blosc 1.21.3 lz4 stream of bytes 0..255 x 4", () => {
    // Observed: blosc.compress(bytes(range(256))*4, typesize=1, cname='lz4') stream body.
    const body = [0xff, 0xf1, ...Array.from({ length: 256 }, (_, i) => i), 0x00, 0x01, 0xff, 0xff, 0xea, 0x50, 0xfb, 0xfc, 0xfd, 0xfe, 0xff];
    const out = new Uint8Array(1024);
    decodeLz4(Uint8Array.from(body), out);
    const expected = new Uint8Array(1024).map((_, i) => i & 255);
    expect(out).toEqual(expected);
  });

  it("decodes an all-literal block and the empty block", () => {
    const out = new Uint8Array(5);
    decodeLz4(Uint8Array.of(0x50, ...ascii("hello")), out);
    expect(out).toEqual(ascii("hello"));
    expect(decodeLz4(Uint8Array.of(0x00), new Uint8Array(0))).toBe(0);
  });

  it("literal length extension: 15 + 255 + 10 = 280 literals", () => {
    const lits = Array.from({ length: 280 }, (_, i) => (i * 13) & 255);
    const out = new Uint8Array(280);
    decodeLz4(Uint8Array.of(0xf0, 0xff, 0x0a, ...lits), out);
    expect([...out]).toEqual(lits);
  });

  it("match length extension: 4 + 15 + 255 + 1 with offset 1", () => {
    const len = 4 + 15 + 255 + 1;
    const out = new Uint8Array(1 + len + 5);
    decodeLz4(Uint8Array.of(0x1f, 0x41, 0x01, 0x00, 0xff, 0x01, 0x50, 1, 2, 3, 4, 5), out);
    expect(out.subarray(0, 1 + len).every((b) => b === 0x41)).toBe(true);
    expect([...out.subarray(1 + len)]).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("decodeLz4: rejects malformed blocks", () => {
  it("empty input", () => expectCorrupt(() => decodeLz4(new Uint8Array(0), new Uint8Array(0)), "lz4.token"));
  it("offset 0", () => expectCorrupt(() => decodeLz4(hex("3C 61 62 63 00 00 50 62 63 61 62 63"), new Uint8Array(24)), "lz4.offset"));
  it("offset before start", () => expectCorrupt(() => decodeLz4(hex("3C 61 62 63 04 00 50 62 63 61 62 63"), new Uint8Array(24)), "lz4.offset"));
  it("output size mismatch (shorter)", () => expectCorrupt(() => decodeLz4(hex("3C 61 62 63 03 00 50 62 63 61 62 63"), new Uint8Array(25)), "lz4.end"));
  it("output size mismatch (longer)", () => expectCorrupt(() => decodeLz4(hex("3C 61 62 63 03 00 50 62 63 61 62 63"), new Uint8Array(23))));
  it("literals past end of input", () => expectCorrupt(() => decodeLz4(hex("50 61 62"), new Uint8Array(5)), "lz4.literal"));
  it("truncated literal length", () => expectCorrupt(() => decodeLz4(hex("F0 FF"), new Uint8Array(300)), "lz4.literal"));
  it("truncated match length", () => expectCorrupt(() => decodeLz4(hex("1F 41 01 00 FF FF FF FF FF FF FF"), new Uint8Array(3000)), "lz4.match"));
  it("match into the last 5 bytes", () => expectCorrupt(() => decodeLz4(hex("1F 41 01 00 00 50 01 02 03 04 05"), new Uint8Array(1 + 19 + 3)), "lz4.match"));
  it("block ending with a match (no last literals)", () => expectCorrupt(() => decodeLz4(hex("1F 41 01 00 00"), new Uint8Array(20))));
});

describe("decodeLz4: properties", () => {
  it("garbage only ever throws FormatError CORRUPT_STREAM", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 5000 }), (src, n) => {
        try {
          expect(decodeLz4(src, new Uint8Array(n))).toBe(n);
        } catch (e) {
          expect(e).toBeInstanceOf(FormatError);
          expect((e as FormatError).code).toBe("CORRUPT_STREAM");
        }
      }),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });
});
