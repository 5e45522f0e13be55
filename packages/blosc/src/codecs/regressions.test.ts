// Replays every file of conformance/corpus/regressions/codecs/ (naming rules in its README.md).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FormatError } from "@fmt/errors";
import { decodeBlosclz, encodeBlosclz } from "./blosclz.js";
import { decodeLz4, encodeLz4, encodeLz4hc } from "./lz4.js";
import { decodeSnappy, encodeSnappy } from "./snappy.js";

const DIR = fileURLToPath(new URL("../../../../conformance/corpus/regressions/codecs/", import.meta.url));

type Decoder = (src: Uint8Array, dst: Uint8Array) => number;
type Encoder = { name: string; code: number; room: (n: number) => number; encode: (src: Uint8Array, dst: Uint8Array, clevel: number) => number };

const DECODERS: Record<string, Decoder> = { blosclz: decodeBlosclz, lz4: decodeLz4, snappy: decodeSnappy };
const ENCODERS: Record<string, Encoder[]> = {
  blosclz: [{ name: "blosclz", code: 0, room: (n) => n, encode: encodeBlosclz }],
  lz4: [
    { name: "lz4", code: 1, room: (n) => n, encode: (s, d, l) => encodeLz4(s, d, 10 - l) },
    { name: "lz4hc", code: 1, room: (n) => n, encode: encodeLz4hc },
  ],
  snappy: [{ name: "snappy", code: 2, room: (n) => 32 + n + Math.floor(n / 6), encode: (s, d) => encodeSnappy(s, d) }],
};
const DECODER_OF_FORMAT = [decodeBlosclz, decodeLz4, decodeSnappy] as const;

const files = readdirSync(DIR).filter((f) => f.endsWith(".bin")).sort();

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function singleStreamChunk(code: number, nbytes: number, stream: Uint8Array): Uint8Array {
  const chunk = new Uint8Array(24 + stream.length);
  const dv = new DataView(chunk.buffer);
  chunk.set([2, 1, (code << 5) | 0x10, 1]);
  dv.setUint32(4, nbytes, true);
  dv.setUint32(8, nbytes, true);
  dv.setUint32(12, chunk.length, true);
  dv.setInt32(16, 20, true);
  dv.setInt32(20, stream.length, true);
  chunk.set(stream, 24);
  return chunk;
}

describe("codec regressions corpus", () => {
  it("holds files, all with a known name pattern", () => {
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f).toMatch(/^(blosclz|lz4|snappy|all)-(decode-ok|decode-corrupt|roundtrip)-[a-z0-9-]+\.bin$/);
  });

  for (const file of files) {
    const m = /^(blosclz|lz4|snappy|all)-(decode-ok|decode-corrupt|roundtrip)-/.exec(file);
    if (m === null) continue;
    const codec = m[1]!;
    const mode = m[2]!;
    const bytes = new Uint8Array(readFileSync(DIR + file));
    if (mode === "roundtrip") {
      it(`${file}: every encoder and clevel round-trips, also through c-blosc`, () => {
        const encoders = codec === "all" ? Object.values(ENCODERS).flat() : ENCODERS[codec]!;
        const chunks: Uint8Array[] = [];
        for (const enc of encoders) {
          for (let clevel = 1; clevel <= 9; clevel++) {
            const dst = new Uint8Array(enc.room(bytes.length));
            const n = enc.encode(bytes, dst, clevel);
            if (n === 0) continue;
            const back = new Uint8Array(bytes.length);
            DECODER_OF_FORMAT[enc.code]!(dst.subarray(0, n), back);
            expect(sameBytes(back, bytes), `${enc.name} clevel ${clevel}`).toBe(true);
            if (n < bytes.length || enc.code === 2) chunks.push(singleStreamChunk(enc.code, bytes.length, dst.subarray(0, n)));
          }
        }
        expect(chunks.length).toBeGreaterThan(0);
        const script = `
import sys, blosc
data = sys.stdin.buffer.read()
n = int.from_bytes(data[:4], 'little'); p = 4; plain = None; ok = 0
for i in range(n):
    l = int.from_bytes(data[p:p+4], 'little'); c = data[p+4:p+4+l]; p += 4 + l
    out = blosc.decompress(c)
    if plain is None: plain = out
    ok += out == plain
print(ok, n, int(plain == data[p:]))
`;
        let total = 4 + bytes.length;
        for (const c of chunks) total += 4 + c.length;
        const input = new Uint8Array(total);
        const dv = new DataView(input.buffer);
        dv.setUint32(0, chunks.length, true);
        let p = 4;
        for (const c of chunks) {
          dv.setUint32(p, c.length, true);
          input.set(c, p + 4);
          p += 4 + c.length;
        }
        input.set(bytes, p);
        const res = spawnSync("/usr/bin/python3", ["-c", script], { input, maxBuffer: 1 << 28 });
        expect(res.stderr.toString()).toBe("");
        expect(res.stdout.toString().trim()).toBe(`${chunks.length} ${chunks.length} 1`);
      });
    } else {
      const size = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
      const stream = bytes.subarray(4);
      const decode = DECODERS[codec]!;
      if (mode === "decode-ok") {
        it(`${file}: decodes to ${size} bytes`, () => {
          expect(decode(stream, new Uint8Array(size))).toBe(size);
        });
      } else {
        it(`${file}: is rejected with CORRUPT_STREAM`, () => {
          let error: unknown;
          try {
            decode(stream, new Uint8Array(size));
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(FormatError);
          expect((error as FormatError).code).toBe("CORRUPT_STREAM");
        });
      }
    }
  }
});
