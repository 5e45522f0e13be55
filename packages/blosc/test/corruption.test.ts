// Corrupted and lying chunks (mutations of real c-blosc output): the decoder must return bytes or
// throw a BcolzError — never another exception, never hang, never allocate what a lying header
// announces. Inputs that once broke this are kept in conformance/corpus/regressions/blosc/ and
// replayed by regressions.test.ts.
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { BcolzError, FormatError, isBcolzError } from "@fmt/errors";
import { BLOSC_MAX_BUFFERSIZE } from "@fmt/header";
import { decompress, decompressRange, getitem } from "../src/index.js";
import { runOracle, sampleCases } from "./cblosc.js";
import { BACKENDS, useBackend } from "./backends.js";
import { seedFrom } from "../../../tools/test-seed.js";

const SEED = seedFrom("BLOSC_FUZZ_SEED");
// Debug aid: BLOSC_FUZZ_TRACE=<file> writes each input there before decoding it, so the input of
// a hang can be recovered after killing the run.
const TRACE = process.env.BLOSC_FUZZ_TRACE;

/** Run a decode; classify the outcome ("ok" or the error code); fail on anything but bytes or a BcolzError. */
export function decodeOutcome(chunk: Uint8Array, f: (c: Uint8Array) => Uint8Array = (c) => decompress(c)): string {
  if (TRACE !== undefined) writeFileSync(TRACE, chunk);
  // No clock here: a runaway decode is caught by the test timeout and by `pnpm fuzz`'s watchdog,
  // never by a wall-clock threshold that a loaded machine could trip.
  try {
    f(chunk);
    return "ok";
  } catch (e) {
    if (!(e instanceof BcolzError)) throw new Error(`non-BcolzError thrown: ${String(e)}`, { cause: e });
    return e.code;
  }
}

const setI32 = (b: Uint8Array, at: number, v: number): void => new DataView(b.buffer, b.byteOffset).setInt32(at, v | 0, true);
const getI32 = (b: Uint8Array, at: number): number => new DataView(b.buffer, b.byteOffset).getInt32(at, true);

const cases = sampleCases(90, SEED, 40_000).map((c) => ({ ...c, clevel: Math.max(1, c.clevel), size: Math.max(200, c.size) }));
const { results } = runOracle(cases);
const chunks = results.map((r) => r.chunk);
const compressed = chunks.filter((c) => (c[2]! & 2) === 0);

describe.each(BACKENDS)("corrupted chunks (%s backend)", (backend) => {
  useBackend(backend);

  it("has compressed (non-memcpyed) chunks to mutate", () => {
    expect(compressed.length).toBeGreaterThan(30);
  });

  const mutation = fc.oneof(
    fc.record({ kind: fc.constant("truncate" as const), at: fc.nat(), fixCbytes: fc.boolean() }),
    fc.record({ kind: fc.constant("flip" as const), region: fc.constantFrom("header", "bstarts", "streams", "anywhere"), flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 6 }) }),
    fc.record({ kind: fc.constant("field" as const), field: fc.constantFrom(4, 8, 12, 16, 20, 24), value: fc.oneof(fc.integer(), fc.integer({ min: -8, max: 70_000 }), fc.constantFrom(0, 1, 2 ** 31 - 1, 2 ** 31 - 20, -1, BLOSC_MAX_BUFFERSIZE, 715827542)) }),
    fc.record({ kind: fc.constant("csize" as const), block: fc.nat(), value: fc.oneof(fc.integer({ min: -4, max: 70_000 }), fc.integer()) }),
  );

  function mutate(src: Uint8Array, m: typeof mutation extends fc.Arbitrary<infer T> ? T : never): Uint8Array {
    const b = src.slice();
    switch (m.kind) {
      case "truncate": {
        const out = b.slice(0, m.at % (b.length + 1));
        if (m.fixCbytes && out.length >= 16) setI32(out, 12, out.length);
        return out;
      }
      case "flip": {
        const nblocks = b.length >= 16 && (b[2]! & 2) === 0 ? Math.ceil(getI32(b, 4) / Math.max(1, getI32(b, 8))) : 0;
        const [lo, hi] = m.region === "header" ? [0, 16] : m.region === "bstarts" ? [16, 16 + 4 * nblocks] : m.region === "streams" ? [16 + 4 * nblocks, b.length] : [0, b.length];
        if (hi <= lo) return b;
        for (const [pos, x] of m.flips) b[lo + (pos % (hi - lo))]! ^= x;
        return b;
      }
      case "field":
        if (m.field + 4 <= b.length) setI32(b, m.field, m.value);
        return b;
      case "csize": {
        // overwrite the size prefix of one block's first stream
        if ((b[2]! & 2) !== 0) return b;
        const nblocks = Math.ceil(getI32(b, 4) / getI32(b, 8));
        const j = m.block % nblocks;
        setI32(b, getI32(b, 16 + 4 * j), m.value);
        return b;
      }
    }
  }

  it("random mutations: bytes or a BcolzError, quickly (property)", () => {
    const codes = new Map<string, number>();
    fc.assert(
      fc.property(fc.nat({ max: chunks.length - 1 }), mutation, fc.nat(), (ci, m, r) => {
        const bad = mutate(chunks[ci]!, m);
        const outcome = decodeOutcome(bad);
        codes.set(outcome, (codes.get(outcome) ?? 0) + 1);
        decodeOutcome(bad, (c) => decompressRange(c, r % 1000, (r % 1000) + (r % 77)));
        decodeOutcome(bad, (c) => getitem(c, r % 50, r % 13));
      }),
      { numRuns: 4000, seed: SEED },
    );
    console.log(`corruption outcomes (seed ${SEED}):`, JSON.stringify(Object.fromEntries(codes)));
    // the mutations must actually reach the stream decoders and the header checks
    expect(codes.get("CORRUPT_STREAM") ?? 0).toBeGreaterThan(0);
    expect(codes.get("BAD_HEADER") ?? 0).toBeGreaterThan(0);
    expect(codes.get("TRUNCATED") ?? 0).toBeGreaterThan(0);
  });

  it("random garbage after a valid header prefix never escapes as a non-BcolzError (property)", () => {
    fc.assert(
      fc.property(fc.nat({ max: compressed.length - 1 }), fc.uint8Array({ minLength: 0, maxLength: 400 }), (ci, garbage) => {
        const src = compressed[ci]!;
        const keep = Math.min(src.length, 16 + 4 * Math.ceil(getI32(src, 4) / getI32(src, 8)) + 4);
        const b = new Uint8Array(keep + garbage.length);
        b.set(src.subarray(0, keep));
        b.set(garbage, keep);
        setI32(b, 12, b.length);
        decodeOutcome(b);
      }),
      { numRuns: 2000, seed: SEED },
    );
  });

  it("lying sizes: nbytes 2^31-20 in a ~100-byte chunk is refused at once, without allocating", () => {
    const lies: Uint8Array[] = [];
    for (const src of compressed.slice(0, 20)) {
      for (const blocksize of [getI32(src, 8), 65536, 715827542, 2 ** 31 - 20]) {
        const b = src.slice(0, Math.min(src.length, 100));
        setI32(b, 4, 2 ** 31 - 20);
        setI32(b, 8, blocksize);
        setI32(b, 12, b.length);
        lies.push(b);
      }
    }
    // hand-built worst case: 4 blocks whose bstarts and stream prefixes are all consistent
    const crafted = new Uint8Array(100);
    crafted.set([2, 1, 0x30, 1]);
    setI32(crafted, 4, 2 ** 31 - 20);
    setI32(crafted, 8, 715827542);
    setI32(crafted, 12, 100);
    for (let j = 0; j < 4; j++) {
      setI32(crafted, 16 + 4 * j, 32 + 16 * j);
      setI32(crafted, 32 + 16 * j, 12);
    }
    lies.push(crafted);
    for (const b of lies) {
      const before = process.memoryUsage().arrayBuffers;
      let err: unknown;
      try {
        decompress(b);
      } catch (e) {
        err = e;
      }
      const grown = process.memoryUsage().arrayBuffers - before;
      expect(err).toBeInstanceOf(FormatError);
      expect(grown).toBeLessThan(64 * 2 ** 20);
      // and with the caller's expected size as the bomb guard, it is a SIZE_LIMIT before anything else
      try {
        decompress(b, { maxBytes: 1 << 20 });
        expect.fail("accepted");
      } catch (e) {
        expect(isBcolzError(e, "SIZE_LIMIT") || isBcolzError(e, "BAD_HEADER") || isBcolzError(e, "TRUNCATED")).toBe(true);
        if (isBcolzError(e, "SIZE_LIMIT")) expect(e.field).toBe("blosc.nbytes");
      }
    }
    // the crafted chunk passes every header check: the default guard is the stream-size bound,
    // an explicit maxBytes turns it into SIZE_LIMIT
    expect(() => decompress(crafted)).toThrow(expect.objectContaining({ code: "CORRUPT_STREAM", field: "blosc.blocks[0].streams[0].csize" }));
    expect(() => decompress(crafted, { maxBytes: 1000 })).toThrow(expect.objectContaining({ code: "SIZE_LIMIT", field: "blosc.nbytes" }));
  });
});
