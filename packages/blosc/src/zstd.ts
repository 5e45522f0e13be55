/**
 * zstd stream decoder for Blosc codec format code 4, on top of `fzstd`.
 *
 * @example
 * ```ts
 * import { decodeZstd } from "./zstd.js";
 * decodeZstd(stream, new Uint8Array(neblock));
 * ```
 * @module
 */
import { decompress as fzstdDecompress } from "fzstd";
import { BcolzError, FormatError } from "@fmt/errors";

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const MAX_BLOCK_SIZE = 128 * 1024;

interface FrameShape {
  /** Offset just past the frame (including its checksum). */
  end: number;
  /** Declared content size, or -1 when absent. */
  contentSize: number;
  /** Bytes produced by raw and RLE blocks (exact). */
  knownOutput: number;
  /** Number of compressed blocks (each produces at most 128 KiB). */
  compressedBlocks: number;
}

function corrupt(field: string, reason: string, expected: unknown, actual: unknown, path: string | undefined, cause?: unknown): FormatError {
  return new FormatError("CORRUPT_STREAM", reason, { path, field, expected, actual, cause });
}

function u32(src: Uint8Array, at: number): number {
  return (src[at]! | (src[at + 1]! << 8) | (src[at + 2]! << 16) | (src[at + 3]! << 24)) >>> 0;
}

// Walks a frame's header and block headers without decoding, so sizes can be checked before
// fzstd runs: fzstd given an output buffer neither reports how much it wrote nor checks the
// declared content size.
function readFrameShape(src: Uint8Array, at: number, path: string | undefined): FrameShape {
  const need = (n: number, what: string): void => {
    if (at + n > src.length) throw corrupt("zstd.frame", `zstd stream ends inside the ${what}`, `${n} more bytes`, src.length - at, path);
  };
  need(5, "frame header");
  const magic = u32(src, at);
  if (magic !== ZSTD_MAGIC) throw corrupt("zstd.magic", "zstd frame does not start with the zstd magic", "28b52ffd", magic.toString(16), path);
  const fhd = src[at + 4]!;
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd >> 5) & 1;
  const hasChecksum = (fhd >> 2) & 1;
  const dictFlag = fhd & 3;
  if (fhd & 0x08) throw corrupt("zstd.frame_header", "reserved bit of the zstd frame header descriptor is set", 0, 1, path);
  const dictBytes = dictFlag === 3 ? 4 : dictFlag;
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  let p = at + 5 + (singleSegment ? 0 : 1);
  need(p - at + dictBytes + fcsBytes, "frame header");
  let dictId = 0;
  for (let i = 0; i < dictBytes; i++) dictId += src[p + i]! * 2 ** (8 * i);
  if (dictId !== 0) throw corrupt("zstd.dictionary_id", "zstd frame needs a dictionary", 0, dictId, path);
  p += dictBytes;
  let contentSize = -1;
  if (fcsBytes > 0) {
    let v = 0;
    for (let i = 0; i < fcsBytes; i++) v += src[p + i]! * 2 ** (8 * i);
    contentSize = fcsBytes === 2 ? v + 256 : v;
    p += fcsBytes;
  }
  let knownOutput = 0;
  let compressedBlocks = 0;
  for (;;) {
    if (p + 3 > src.length) throw corrupt("zstd.block", "zstd stream ends inside a block header", 3, src.length - p, path);
    const bh = src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16);
    p += 3;
    const last = bh & 1;
    const type = (bh >> 1) & 3;
    const size = bh >>> 3;
    if (type === 3) throw corrupt("zstd.block", "reserved zstd block type", "0..2", 3, path);
    if (size > MAX_BLOCK_SIZE) throw corrupt("zstd.block", "zstd block larger than 128 KiB", `<= ${MAX_BLOCK_SIZE}`, size, path);
    const stored = type === 1 ? 1 : size;
    if (p + stored > src.length) throw corrupt("zstd.block", "zstd stream ends inside a block", stored, src.length - p, path);
    if (type === 2) {
      compressedBlocks++;
      checkHuffmanWeights(src, p, p + size, path);
    } else knownOutput += size;
    p += stored;
    if (last) break;
  }
  if (hasChecksum) {
    if (p + 4 > src.length) throw corrupt("zstd.checksum", "zstd stream ends inside the frame checksum", 4, src.length - p, path);
    p += 4;
  }
  return { end: p, contentSize, knownOutput, compressedBlocks };
}


// fzstd 0.1.1 loops forever on a Huffman weight table whose FSE states consume no bits in a cycle
// (real zstd stops after 255 weights). This check decodes the FSE table description and runs the
// two-state weight decoder with that cap before fzstd sees the block (RFC 8878 4.1.1, 4.2.1).
const MAX_WEIGHTS = 255;

function checkHuffmanWeights(src: Uint8Array, start: number, end: number, path: string | undefined): void {
  const b0 = src[start]!;
  if ((b0 & 3) !== 2) return; // only "Compressed" literals carry a tree description
  const sizeFormat = (b0 >> 2) & 3;
  const desc = start + (sizeFormat <= 1 ? 3 : sizeFormat === 2 ? 4 : 5);
  if (desc >= end) return; // fzstd rejects truncated blocks by itself
  const headerByte = src[desc]!;
  if (headerByte >= 128) return; // weights stored directly: no FSE loop
  const from = desc + 1;
  const to = from + headerByte;
  if (to > end || headerByte === 0) return;
  const fail = (reason: string): never => {
    throw corrupt("zstd.huffman_weights", reason, `<= ${MAX_WEIGHTS} weights`, "more", path);
  };
  // forward bit reader for the table description
  let bit = 0;
  const readFwd = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) {
      const at = from + (bit >> 3);
      if (at >= to) fail("FSE table description runs past the weights");
      v |= ((src[at]! >> (bit & 7)) & 1) << i;
    }
    return v;
  };
  const accuracy = readFwd(4) + 5;
  if (accuracy > 6) fail("Huffman weight table accuracy above 6");
  const tableSize = 1 << accuracy;
  const norm: number[] = [];
  let remaining = tableSize + 1;
  let threshold = tableSize;
  let nbBits = accuracy + 1;
  while (remaining > 1) {
    if (norm.length > 255) fail("too many symbols in the FSE table");
    const max = 2 * threshold - 1 - remaining;
    let count: number;
    const low = readFwd(nbBits - 1);
    if (low < max) {
      count = low;
    } else {
      count = low | (readFwd(1) << (nbBits - 1));
      if (count >= threshold) count -= max;
    }
    count--;
    remaining -= Math.abs(count);
    norm.push(count);
    if (count === 0) {
      for (;;) {
        const rep = readFwd(2);
        for (let i = 0; i < rep; i++) norm.push(0);
        if (norm.length > 256) fail("too many symbols in the FSE table");
        if (rep !== 3) break;
      }
    }
    while (remaining < threshold && nbBits > 1) {
      nbBits--;
      threshold >>= 1;
    }
  }
  if (remaining !== 1) fail("FSE probabilities do not add up");
  const tableEnd = from + ((bit + 7) >> 3);
  // decoding table: symbol, bits and next-state base per state
  const sym = new Int32Array(tableSize);
  const bits = new Int32Array(tableSize);
  const base = new Int32Array(tableSize);
  const next = new Int32Array(norm.length);
  let high = tableSize - 1;
  norm.forEach((c, s) => {
    if (c === -1) {
      sym[high--] = s;
      next[s] = 1;
    } else next[s] = c;
  });
  const step = (tableSize >> 1) + (tableSize >> 3) + 3;
  let pos = 0;
  norm.forEach((c, s) => {
    for (let i = 0; i < c; i++) {
      sym[pos] = s;
      do pos = (pos + step) & (tableSize - 1);
      while (pos > high);
    }
  });
  if (pos !== 0) fail("FSE symbol spread does not close");
  for (let u = 0; u < tableSize; u++) {
    const x = next[sym[u]!]!++;
    const nb = accuracy - (31 - Math.clz32(x));
    bits[u] = nb;
    base[u] = (x << nb) - tableSize;
  }
  // backward bit stream from the end of the weights down to the end of the table description
  const last = src[to - 1]!;
  if (last === 0) return; // fzstd rejects a missing end marker itself
  let remainingBits = (to - tableEnd) * 8 - (8 - (31 - Math.clz32(last)));
  const take = (n: number): number => {
    remainingBits -= n;
    if (remainingBits < 0) return -1;
    let v = 0;
    for (let i = n - 1, at = remainingBits + n - 1; i >= 0; i--, at--) {
      const byte = src[tableEnd + (at >> 3)]!;
      v |= ((byte >> (at & 7)) & 1) << i;
    }
    return v;
  };
  let s1 = take(accuracy);
  let s2 = take(accuracy);
  if (s1 < 0 || s2 < 0) return;
  for (let emitted = 0; ; ) {
    emitted++;
    const r1 = take(bits[s1]!);
    if (r1 < 0) return;
    s1 = base[s1]! + r1;
    emitted++;
    const r2 = take(bits[s2]!);
    if (r2 < 0) return;
    s2 = base[s2]! + r2;
    if (emitted > MAX_WEIGHTS + 2) fail("Huffman weight stream does not end within 255 weights");
  }
}

/**
 * Decode a zstd stream (normally exactly one frame; concatenated and skippable frames are
 * accepted, as zstd's one-shot decoder does) into exactly `dst.length` bytes of `dst`.
 *
 * Sizes are checked from the frame and block headers before decoding: every frame must declare
 * its content size (c-blosc's one-shot compressor always does) and the sizes must add up to
 * `dst.length`; raw and RLE blocks must not exceed it and compressed blocks must be able to
 * reach it. fzstd does not confirm that a compressed block produced exactly what the frame
 * declared; a short block leaves zeros (never stale memory) in the output.
 *
 * @param src - the stream bytes (`csize` bytes after the size prefix).
 * @param dst - output, sized to the expected length.
 * @param path - file name for error messages.
 * @returns `dst.length`.
 * @throws FormatError CORRUPT_STREAM (fields `zstd.*`).
 * @example
 * ```ts
 * decodeZstd(stream, out.subarray(0, neblock));
 * ```
 */
export function decodeZstd(src: Uint8Array, dst: Uint8Array, path?: string): number {
  const frames: { start: number; end: number; size: number }[] = [];
  let at = 0;
  let total = 0;
  while (at < src.length) {
    if (at + 8 <= src.length && ((u32(src, at) & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
      const skip = 8 + u32(src, at + 4);
      if (at + skip > src.length) throw corrupt("zstd.frame", "zstd skippable frame runs past the stream", skip, src.length - at, path);
      at += skip;
      continue;
    }
    const shape = readFrameShape(src, at, path);
    if (shape.contentSize < 0) {
      throw corrupt("zstd.frame_content_size", "zstd frame does not declare its content size", "declared", "absent", path);
    }
    const size = shape.contentSize;
    if (shape.knownOutput > size || shape.knownOutput + shape.compressedBlocks * MAX_BLOCK_SIZE < size) {
      throw corrupt("zstd.frame_content_size", "zstd block sizes cannot add up to the declared content size", size, shape.knownOutput, path);
    }
    total += size;
    if (total > dst.length) {
      throw corrupt("zstd.length", "zstd stream decodes to more bytes than expected", dst.length, total, path);
    }
    frames.push({ start: at, end: shape.end, size });
    at = shape.end;
  }
  if (total !== dst.length) {
    throw corrupt("zstd.length", "zstd stream decodes to the wrong length", dst.length, total, path);
  }
  let out = 0;
  for (const f of frames) {
    // A frame declaring 0 bytes is not handed to fzstd: it would size its buffer from the window
    // descriptor instead, which the frame may declare as large as 2 GiB.
    if (f.size > 0) {
      let decoded: Uint8Array;
      try {
        // Without an output buffer fzstd allocates exactly the declared content size (validated
        // above against dst.length); given a buffer it takes a path that is ~30x slower.
        decoded = fzstdDecompress(src.subarray(f.start, f.end));
      } catch (e) {
        if (e instanceof BcolzError) throw e;
        throw corrupt("zstd.stream", `zstd frame does not decode: ${e instanceof Error ? e.message : String(e)}`, undefined, undefined, path, e);
      }
      if (decoded.length !== f.size) {
        throw corrupt("zstd.length", "zstd frame decodes to a size other than it declares", f.size, decoded.length, path);
      }
      dst.set(decoded, out);
    }
    out += f.size;
  }
  return dst.length;
}
