// Data-driven codec tests: our encoders round-trip through our decoders; corrupted streams only
// ever raise FormatError; and the real oracle, c-blosc 1.21.3 (Debian python3-blosc under
// /usr/bin/python3), decodes what we encode and encodes what we decode. One batched Python process
// per codec and direction.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import fc from "fast-check";

/** Raise with CODEC_FUZZ_RUNS for a long fuzzing session; the default keeps CI quick. */
const FUZZ_RUNS = Number(process.env.CODEC_FUZZ_RUNS ?? 1000);
import { FormatError } from "@fmt/errors";
import { decodeBlosclz, encodeBlosclz } from "./blosclz.js";
import { decodeLz4, encodeLz4, encodeLz4hc } from "./lz4.js";
import { decodeSnappy, encodeSnappy } from "./snappy.js";

const PYTHON = "/usr/bin/python3";

/** Deterministic test data of a few shapes codecs care about. */
function makeData(kind: number, length: number, seed: number): Uint8Array {
  let s = seed >>> 0 || 1;
  const rnd = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const out = new Uint8Array(length);
  switch (kind % 6) {
    case 0: // incompressible
      for (let i = 0; i < length; i++) out[i] = (rnd() * 256) | 0;
      break;
    case 1: // runs of random length
      for (let i = 0; i < length; ) {
        const v = (rnd() * 256) | 0;
        const n = 1 + ((rnd() * rnd() * 600) | 0);
        for (let k = 0; k < n && i < length; k++) out[i++] = v;
      }
      break;
    case 2: // small alphabet with copies of earlier substrings, near and far
      for (let i = 0; i < length; ) {
        if (i > 16 && rnd() < 0.6) {
          const far = rnd() < 0.3;
          const d = 1 + ((rnd() * Math.min(i - 1, far ? 80000 : 300)) | 0);
          const n = 3 + ((rnd() * rnd() * 300) | 0);
          for (let k = 0; k < n && i < length; k++, i++) out[i] = out[i - d]!;
        } else {
          out[i++] = 97 + ((rnd() * 6) | 0);
        }
      }
      break;
    case 3: { // byte-shuffled float64 random walk (what Blosc usually sees)
      const n = Math.floor(length / 8);
      const f = new Float64Array(n);
      let x = 100;
      for (let i = 0; i < n; i++) f[i] = x += rnd() - 0.5;
      const b = new Uint8Array(f.buffer);
      for (let j = 0; j < 8; j++) for (let i = 0; i < n; i++) out[j * n + i] = b[i * 8 + j]!;
      for (let i = n * 8; i < length; i++) out[i] = (rnd() * 256) | 0;
      break;
    }
    case 4: // all zero
      break;
    default: // random blocks repeated at large distances (far matches)
      for (let i = 0; i < length; i++) {
        if (i >= 9000 && rnd() < 0.95) out[i] = out[i - 9000 - ((i >> 12) % 7) * 9000 < 0 ? i - 9000 : i - 9000 - ((i >> 12) % 7) * 9000]!;
        else out[i] = (rnd() * 256) | 0;
      }
  }
  return out;
}

const dataArb = fc
  .record({
    kind: fc.nat({ max: 5 }),
    length: fc.oneof(fc.nat({ max: 300 }), fc.nat({ max: 20000 }), fc.nat({ max: 200000 })),
    seed: fc.nat(),
  })
  .map(({ kind, length, seed }) => ({ kind, length, seed, data: makeData(kind, length, seed) }));

function frame(items: Uint8Array[]): Uint8Array {
  let total = 4;
  for (const it of items) total += 4 + it.length;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, items.length, true);
  let p = 4;
  for (const it of items) {
    dv.setUint32(p, it.length, true);
    out.set(it, p + 4);
    p += 4 + it.length;
  }
  return out;
}

function unframe(buf: Uint8Array): Uint8Array[] {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = dv.getUint32(0, true);
  const out: Uint8Array[] = [];
  let p = 4;
  for (let i = 0; i < n; i++) {
    const len = dv.getUint32(p, true);
    out.push(buf.subarray(p + 4, p + 4 + len));
    p += 4 + len;
  }
  return out;
}

/** Run a Python snippet over framed stdin, returning framed stdout. */
function python(script: string, items: Uint8Array[]): Uint8Array[] {
  const res = spawnSync(PYTHON, ["-c", script], { input: frame(items), maxBuffer: 1 << 30 });
  if (res.status !== 0) throw new Error(`python failed: ${res.stderr.toString()}`);
  return unframe(new Uint8Array(res.stdout.buffer, res.stdout.byteOffset, res.stdout.byteLength));
}

const PY_FRAMING = `
import sys, struct, blosc
def read_items():
    b = sys.stdin.buffer.read()
    n = struct.unpack_from('<I', b, 0)[0]; p = 4; out = []
    for _ in range(n):
        l = struct.unpack_from('<I', b, p)[0]; out.append(b[p+4:p+4+l]); p += 4 + l
    return out
def write_items(items):
    w = sys.stdout.buffer
    w.write(struct.pack('<I', len(items)))
    for it in items:
        w.write(struct.pack('<I', len(it))); w.write(it)
`;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Walk a typesize-1 chunk (no splits, no shuffle) and decode each block's single stream. */
function decodeChunkStreams(chunk: Uint8Array, decode: (s: Uint8Array, d: Uint8Array) => number): { out: Uint8Array; coded: number } {
  const dv = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const flags = chunk[2]!;
  const nbytes = dv.getUint32(4, true);
  const blocksize = dv.getUint32(8, true);
  const out = new Uint8Array(nbytes);
  if (flags & 2) {
    out.set(chunk.subarray(16, 16 + nbytes));
    return { out, coded: 0 };
  }
  const nblocks = Math.ceil(nbytes / blocksize);
  let coded = 0;
  for (let b = 0; b < nblocks; b++) {
    const bstart = dv.getInt32(16 + 4 * b, true);
    const size = Math.min(blocksize, nbytes - b * blocksize);
    const csize = dv.getInt32(bstart, true);
    const stream = chunk.subarray(bstart + 4, bstart + 4 + csize);
    const dst = out.subarray(b * blocksize, b * blocksize + size);
    if (csize === size) dst.set(stream);
    else {
      expect(decode(stream, dst)).toBe(size);
      coded++;
    }
  }
  return { out, coded };
}

describe("c-blosc 1.21.3 encodes, our decoders decode", () => {
  const decoders = { blosclz: decodeBlosclz, lz4: decodeLz4, lz4hc: decodeLz4, snappy: decodeSnappy } as const;
  for (const cname of Object.keys(decoders) as (keyof typeof decoders)[]) {
    it(`${cname}: 300 random buffers, clevels 1..9, forced block sizes`, () => {
      const cases = fc.sample(fc.record({ d: dataArb, clevel: fc.integer({ min: 1, max: 9 }), blocksize: fc.constantFrom(0, 0, 4096, 65536) }), {
        numRuns: 300,
        seed: 0x5eed + cname.length,
      });
      const params = new TextEncoder().encode(JSON.stringify(cases.map((c) => [c.clevel, c.blocksize])));
      const script = `${PY_FRAMING}
import json
items = read_items(); params = json.loads(items[0].decode())
outs = []
for (clevel, bs), data in zip(params, items[1:]):
    blosc.set_blocksize(bs)
    outs.append(blosc.compress(data, typesize=1, clevel=clevel, shuffle=blosc.NOSHUFFLE, cname='${cname}'))
write_items(outs)
`;
      const chunks = python(script, [params, ...cases.map((c) => c.d.data)]);
      expect(chunks.length).toBe(cases.length);
      let coded = 0;
      let memcpyed = 0;
      cases.forEach((c, i) => {
        const r = decodeChunkStreams(chunks[i]!, decoders[cname]);
        coded += r.coded;
        if (!sameBytes(r.out, c.d.data)) throw new Error(`case ${i} (${JSON.stringify({ ...c.d, data: undefined })}) decodes wrongly`);
        if (chunks[i]![2]! & 2) memcpyed++;
      });
      // the oracle really produced coded streams
      expect(coded).toBeGreaterThan(cname === "snappy" ? 40 : 100);
      console.log(cname, "coded streams", coded, "memcpyed chunks", memcpyed);
    });
  }
});


type Codec = {
  name: "blosclz" | "lz4" | "lz4hc" | "snappy";
  code: number; // Blosc format code
  encode: (src: Uint8Array, dst: Uint8Array, clevel: number) => number;
  decode: (src: Uint8Array, dst: Uint8Array) => number;
  /** Output room the Blosc writer gives the codec. */
  room: (n: number) => number;
};

const CODECS: Codec[] = [
  { name: "blosclz", code: 0, encode: encodeBlosclz, decode: decodeBlosclz, room: (n) => n },
  { name: "lz4", code: 1, encode: (s, d, l) => encodeLz4(s, d, 10 - l), decode: decodeLz4, room: (n) => n },
  { name: "lz4hc", code: 1, encode: encodeLz4hc, decode: decodeLz4, room: (n) => n },
  { name: "snappy", code: 2, encode: (s, d) => encodeSnappy(s, d), decode: decodeSnappy, room: (n) => 32 + n + Math.floor(n / 6) },
];

function expectOnlyFormatError(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof FormatError) || e.code !== "CORRUPT_STREAM") throw e;
  }
}

const caseArb = fc.record({ d: dataArb, clevel: fc.integer({ min: 1, max: 9 }) });

for (const codec of CODECS) {
  describe(`${codec.name} encoder`, () => {
    it("round-trips random data through our decoder (lengths 0..200k, compressible or not)", () => {
      let compressed = 0;
      fc.assert(
        fc.property(caseArb, ({ d, clevel }) => {
          const dst = new Uint8Array(codec.room(d.data.length));
          const n = codec.encode(d.data, dst, clevel);
          expect(n).toBeLessThanOrEqual(dst.length);
          if (n === 0) return; // "store raw" is always allowed
          compressed++;
          const back = new Uint8Array(d.data.length).fill(0x5a);
          expect(codec.decode(dst.subarray(0, n), back)).toBe(d.data.length);
          if (!sameBytes(back, d.data)) throw new Error("round trip differs");
        }),
        { numRuns: 300 },
      );
      expect(compressed).toBeGreaterThan(100);
    });

    it("returns 0 rather than overflowing a too-small destination", () => {
      fc.assert(
        fc.property(caseArb, fc.nat({ max: 400 }), ({ d, clevel }, room) => {
          const dst = new Uint8Array(room + 8).fill(0xcc);
          const n = codec.encode(d.data, dst.subarray(0, room), clevel);
          expect(n).toBeLessThanOrEqual(room);
          expect([...dst.subarray(room)].every((b) => b === 0xcc)).toBe(true);
          if (n > 0) {
            const back = new Uint8Array(d.data.length);
            codec.decode(dst.subarray(0, n), back);
            if (!sameBytes(back, d.data)) throw new Error("round trip differs");
          }
        }),
        { numRuns: 300 },
      );
    });

    it("truncated, bit-flipped or byte-mangled valid streams only raise FormatError", () => {
      fc.assert(
        fc.property(
          fc.record({ d: dataArb.filter((x) => x.length > 0 && x.length < 30000), clevel: fc.integer({ min: 1, max: 9 }) }),
          fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 }), fc.boolean()), { minLength: 1, maxLength: 4 }),
          fc.nat(),
          fc.integer({ min: -3, max: 3 }),
          ({ d, clevel }, edits, cut, sizeDelta) => {
            const dst = new Uint8Array(codec.room(d.data.length));
            const n = codec.encode(d.data, dst, clevel);
            if (n === 0) return;
            const stream = dst.slice(0, n);
            const out = new Uint8Array(Math.max(0, d.data.length + sizeDelta));
            expectOnlyFormatError(() => codec.decode(stream.subarray(0, cut % n), new Uint8Array(d.data.length)));
            expectOnlyFormatError(() => codec.decode(stream, out));
            for (const [pos, value, flip] of edits) {
              const p = pos % n;
              stream[p] = flip ? stream[p]! ^ (1 << (value & 7)) : value;
            }
            expectOnlyFormatError(() => codec.decode(stream, new Uint8Array(d.data.length)));
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
    });
  });
}

/** A minimal typesize-1, dont-split, no-shuffle, single-block Blosc chunk around one stream (format-facts 1.3, 1.15 D). */
function singleStreamChunk(code: number, nbytes: number, stream: Uint8Array): Uint8Array {
  const chunk = new Uint8Array(24 + stream.length);
  const dv = new DataView(chunk.buffer);
  chunk[0] = 2;
  chunk[1] = 1;
  chunk[2] = (code << 5) | 0x10;
  chunk[3] = 1;
  dv.setUint32(4, nbytes, true);
  dv.setUint32(8, nbytes, true);
  dv.setUint32(12, chunk.length, true);
  dv.setInt32(16, 20, true);
  dv.setInt32(20, stream.length, true);
  chunk.set(stream, 24);
  return chunk;
}

describe("c-blosc 1.21.3 decodes what our encoders write", () => {
  for (const codec of CODECS) {
    it(`${codec.name}: 700 random buffers, at least 300 coded streams`, () => {
      const cases = fc.sample(caseArb, { numRuns: 700, seed: 0xb105c + codec.code * 7 + codec.name.length });
      const chunks: Uint8Array[] = [];
      const plains: Uint8Array[] = [];
      for (const { d, clevel } of cases) {
        const dst = new Uint8Array(codec.room(d.data.length));
        const n = codec.encode(d.data, dst, clevel);
        // A stream as long as its input would mean "raw" to Blosc, so only shorter ones (or any
        // Snappy stream) are real codec streams to test.
        if (n === 0 || d.data.length === 0 || (n >= d.data.length && codec.name !== "snappy")) continue;
        chunks.push(singleStreamChunk(codec.code, d.data.length, dst.subarray(0, n)));
        plains.push(d.data);
      }
      expect(chunks.length).toBeGreaterThanOrEqual(300);
      console.log(`${codec.name}: c-blosc decoded ${chunks.length} of our streams`);
      const script = `${PY_FRAMING}
outs = []
for c in read_items():
    try:
        outs.append(b'\\x01' + blosc.decompress(c))
    except Exception as e:
        outs.append(b'\\x00' + repr(e).encode())
write_items(outs)
`;
      const results = python(script, chunks);
      expect(results.length).toBe(chunks.length);
      results.forEach((r, i) => {
        if (r[0] !== 1) throw new Error(`c-blosc rejected case ${i}: ${new TextDecoder().decode(r.subarray(1))}`);
        if (!sameBytes(r.subarray(1), plains[i]!)) throw new Error(`c-blosc decoded case ${i} differently`);
      });
    });
  }
});
