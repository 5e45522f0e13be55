// Every BloscLZ / LZ4 / Snappy stream inside the real bcolz datasets of the conformance corpus
// (written by c-blosc 1.14.x and 1.21.x) must decode to exactly its split size.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { decodeBlosclz } from "./blosclz.js";
import { decodeLz4 } from "./lz4.js";
import { decodeSnappy } from "./snappy.js";

const ROOT = fileURLToPath(new URL("../../../../conformance/corpus/v1/bcolz-real/", import.meta.url));
const DECODERS = [decodeBlosclz, decodeLz4, decodeSnappy] as const;

function chunkFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chunkFiles(p, out);
    else if (p.endsWith(".blp")) out.push(p);
  }
  return out;
}

it("decodes every codec stream of the real bcolz corpus", () => {
  const counts = [0, 0, 0];
  for (const file of chunkFiles(ROOT)) {
    const raw = new Uint8Array(readFileSync(file));
    const chunk = raw.subarray(16); // after the blpk header
    const dv = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const flags = chunk[2]!;
    const typesize = chunk[3]!;
    const nbytes = dv.getUint32(4, true);
    const blocksize = dv.getUint32(8, true);
    const format = flags >> 5;
    if (flags & 2 || format > 2) continue; // memcpyed, or zlib/zstd (not ours)
    const nblocks = Math.ceil(nbytes / blocksize);
    for (let b = 0; b < nblocks; b++) {
      const size = Math.min(blocksize, nbytes - b * blocksize);
      // format-facts 1.6, decoder split rule
      const split = (flags & 0x10) === 0 && typesize <= 16 && Math.floor(size / typesize) >= 128 && size === blocksize;
      const nsplits = split ? typesize : 1;
      const neblock = Math.floor(size / nsplits);
      let p = dv.getInt32(16 + 4 * b, true);
      for (let s = 0; s < nsplits; s++) {
        const csize = dv.getInt32(p, true);
        const stream = chunk.subarray(p + 4, p + 4 + csize);
        p += 4 + csize;
        if (csize === neblock) continue; // stored raw
        expect(DECODERS[format]!(stream, new Uint8Array(neblock)), `${file} block ${b} split ${s}`).toBe(neblock);
        counts[format]!++;
      }
    }
  }
  // The corpus holds streams of all three codecs (counts observed when this test was written: 104 / 409 / 70).
  expect(counts[0]).toBeGreaterThan(50);
  expect(counts[1]).toBeGreaterThan(200);
  expect(counts[2]).toBeGreaterThan(30);
});
