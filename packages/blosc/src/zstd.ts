/**
 * zstd stream decoder for Blosc codec format code 4, written from RFC 8878. It decodes straight
 * into the caller's fixed-size destination: every frame owns exactly the bytes its header declares,
 * every block at most 128 KiB of them, and each literal run or match is checked against that room
 * before it is written, so a stream that would produce more refuses at its first excess byte and a
 * stream that produces less is refused at its end. Offsets, table descriptions and bit streams are
 * checked as strictly as libzstd checks them (a bit stream must be consumed to its last bit).
 *
 * @example
 * ```ts
 * import { decodeZstd } from "./zstd.js";
 * decodeZstd(stream, new Uint8Array(neblock));
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import {
  BackwardBits, buildFseTable, decodeHuffmanStream, readFseTable, readHuffmanTable, rleFseTable,
  type Fail, type FseTable, type HuffmanTable,
} from "./zstd-entropy.js";
import { xxh64Low32 } from "./xxh64.js";

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const MAX_BLOCK_SIZE = 128 * 1024;
/** Every sequence copies a match of at least this many bytes. */
const MIN_MATCH = 3;

// RFC 8878 §3.1.1.3.2.1.1: extra bits per code, from which the baselines follow.
const LL_BITS = Uint8Array.of(...new Array<number>(16).fill(0), 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
const ML_BITS = Uint8Array.of(...new Array<number>(32).fill(0), 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
const LL_BASE = baselines(LL_BITS, 0);
const ML_BASE = baselines(ML_BITS, MIN_MATCH);
/** `2^code`: the offset baseline of each offset code. */
const OF_BASE = Uint32Array.from({ length: 32 }, (_, code) => 2 ** code);
const MAX_LL = 35;
const MAX_ML = 52;
const MAX_OF = 31;

function baselines(extraBits: Uint8Array, first: number): Uint32Array {
  const base = new Uint32Array(extraBits.length);
  let next = first;
  extraBits.forEach((bits, code) => {
    base[code] = next;
    next += 1 << bits;
  });
  return base;
}

// RFC 8878 §3.1.1.3.2.2: the predefined distributions.
const PREDEFINED_LL = [4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1];
const PREDEFINED_ML = [
  1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
];
const PREDEFINED_OF = [1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1];

const neverFails: Fail = (field, reason) => {
  throw new Error(`predefined zstd table is wrong (${field}: ${reason})`);
};
const PREDEFINED = {
  ll: buildFseTable(PREDEFINED_LL, 6, neverFails),
  ml: buildFseTable(PREDEFINED_ML, 6, neverFails),
  of: buildFseTable(PREDEFINED_OF, 5, neverFails),
};

/**
 * Work counters a caller may pass to {@link decodeZstd} (tests use them to show that hostile
 * streams stop early).
 *
 * @example
 * ```ts
 * const work: ZstdWork = { sequences: 0 };
 * decodeZstd(stream, out, "x", work);
 * ```
 */
export interface ZstdWork {
  /** Sequences executed (each writes at least 3 bytes). */
  sequences: number;
}

/**
 * Runs the sequences of one compressed block: `executeSequences` below, or the WebAssembly kernel
 * (src/zstd-wasm.ts), which must check and compute exactly the same. @internal
 *
 * @example
 * ```ts
 * decodeZstd(stream, out, path, undefined, wasmSequences);
 * ```
 */
export type SequenceExecutor = (
  src: Uint8Array, start: number, end: number, nbSeq: number, llTable: FseTable, ofTable: FseTable, mlTable: FseTable,
  literals: number, dst: Uint8Array, frameStart: number, blockStart: number, blockEnd: number, state: { rep: [number, number, number] },
  fail: Fail, work: ZstdWork | undefined,
) => { out: number; lit: number };

/**
 * Decodes the Huffman literal streams of a block: `one` stream into `out[from..to)`
 * (`decodeHuffmanStream`), and optionally the `four` streams of a section at once (`bounds`
 * delimit them in `src`; streams 0–2 fill `segment` bytes each from `base`, stream 3 the rest up
 * to `end`), failing as the four decoded one by one in order would. The WebAssembly kernels
 * (src/zstd-wasm.ts) must check and compute exactly what decodeHuffmanStream does.
 *
 * @internal
 * @example
 * ```ts
 * decodeZstd(stream, out, path, undefined, wasmSequences, { one: wasmHuffman });
 * ```
 */
export interface LiteralDecoder {
  one(src: Uint8Array, start: number, end: number, table: HuffmanTable, out: Uint8Array, from: number, to: number, fail: Fail): void;
  four?(src: Uint8Array, bounds: readonly number[], table: HuffmanTable, out: Uint8Array, base: number, segment: number, end: number, fail: Fail): void;
}

/** The TypeScript literal decoder. */
const TS_LITERALS: LiteralDecoder = { one: decodeHuffmanStream };

/** Tables a later block of the same frame may repeat, and the literal stream decoder. */
interface FrameState {
  ll: FseTable | undefined;
  of: FseTable | undefined;
  ml: FseTable | undefined;
  huffman: HuffmanTable | undefined;
  /** Repeated offsets 1..3. */
  rep: [number, number, number];
  readonly literals: LiteralDecoder;
}

function failWith(path: string | undefined): Fail {
  return (field, reason, expected, actual) => {
    throw new FormatError("CORRUPT_STREAM", `zstd: ${reason}`, { path, field, expected, actual });
  };
}

function u32(src: Uint8Array, at: number): number {
  return (src[at]! | (src[at + 1]! << 8) | (src[at + 2]! << 16) | (src[at + 3]! << 24)) >>> 0;
}

/**
 * Decode a zstd stream (normally exactly one frame; concatenated and skippable frames are
 * accepted, as zstd's one-shot decoder does) into exactly `dst.length` bytes of `dst`.
 *
 * Every frame must declare its content size (c-blosc's one-shot compressor always does); the
 * declared sizes must add up to `dst.length` and each frame must produce exactly its size. A frame
 * checksum, when present, is verified.
 *
 * @param src - the stream bytes (`csize` bytes after the size prefix).
 * @param dst - output, sized to the expected length.
 * @param path - file name for error messages.
 * @param work - optional counters, incremented as the stream is decoded.
 * @returns `dst.length`.
 * @throws FormatError CORRUPT_STREAM (fields `zstd.*`).
 * @example
 * ```ts
 * decodeZstd(stream, out.subarray(0, neblock));
 * ```
 */
export function decodeZstd(src: Uint8Array, dst: Uint8Array, path?: string, work?: ZstdWork, run: SequenceExecutor = executeSequences, literals: LiteralDecoder = TS_LITERALS): number {
  const fail = failWith(path);
  let at = 0;
  let out = 0;
  while (at < src.length) {
    if (at + 8 <= src.length && ((u32(src, at) & SKIPPABLE_MASK) >>> 0) === SKIPPABLE_MAGIC) {
      const skip = 8 + u32(src, at + 4);
      if (at + skip > src.length) fail("zstd.frame", "skippable frame runs past the stream", skip, src.length - at);
      at += skip;
      continue;
    }
    const frame = decodeFrame(src, at, dst, out, fail, work, run, literals);
    at = frame.end;
    out = frame.out;
  }
  if (out !== dst.length) fail("zstd.length", "stream decodes to the wrong length", dst.length, out);
  return dst.length;
}

function decodeFrame(
  src: Uint8Array, start: number, dst: Uint8Array, frameStart: number, fail: Fail, work: ZstdWork | undefined, run: SequenceExecutor, literals: LiteralDecoder,
): { end: number; out: number } {
  const need = (at: number, n: number, what: string): void => {
    if (at + n > src.length) fail("zstd.frame", `stream ends inside the ${what}`, `${n} more bytes`, src.length - at);
  };
  need(start, 5, "frame header");
  const magic = u32(src, start);
  if (magic !== ZSTD_MAGIC) fail("zstd.magic", "frame does not start with the zstd magic", "28b52ffd", magic.toString(16));
  const fhd = src[start + 4]!;
  if (fhd & 0x08) fail("zstd.frame_header", "reserved bit of the frame header descriptor is set", 0, 1);
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd >> 5) & 1;
  const hasChecksum = (fhd >> 2) & 1;
  const dictBytes = [0, 1, 2, 4][fhd & 3]!;
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  let p = start + 5 + (singleSegment ? 0 : 1);
  need(p, dictBytes + fcsBytes, "frame header");
  let dictId = 0;
  for (let i = 0; i < dictBytes; i++) dictId += src[p + i]! * 2 ** (8 * i);
  if (dictId !== 0) fail("zstd.dictionary_id", "frame needs a dictionary", 0, dictId);
  p += dictBytes;
  if (fcsBytes === 0) fail("zstd.frame_content_size", "frame does not declare its content size", "declared", "absent");
  let contentSize = 0;
  for (let i = 0; i < fcsBytes; i++) contentSize += src[p + i]! * 2 ** (8 * i);
  if (fcsBytes === 2) contentSize += 256;
  p += fcsBytes;
  if (contentSize > dst.length - frameStart) fail("zstd.length", "stream decodes to more bytes than expected", dst.length, frameStart + contentSize);
  const frameEnd = frameStart + contentSize;
  const state: FrameState = { ll: undefined, of: undefined, ml: undefined, huffman: undefined, rep: [1, 4, 8], literals };
  let out = frameStart;
  for (;;) {
    need(p, 3, "block header");
    const bh = src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16);
    p += 3;
    const last = bh & 1;
    const type = (bh >> 1) & 3;
    const size = bh >>> 3;
    if (type === 3) fail("zstd.block", "reserved block type", "0..2", 3);
    if (size > MAX_BLOCK_SIZE) fail("zstd.block", "block larger than 128 KiB", `<= ${MAX_BLOCK_SIZE}`, size);
    const stored = type === 1 ? 1 : size;
    need(p, stored, "block");
    if (type !== 2 && size > frameEnd - out) fail("zstd.length", "block writes past the frame's content size", frameEnd - out, size);
    if (type === 0) {
      dst.set(src.subarray(p, p + size), out);
      out += size;
    } else if (type === 1) {
      dst.fill(src[p]!, out, out + size);
      out += size;
    } else {
      out = decodeCompressedBlock(src, p, p + size, dst, frameStart, out, Math.min(frameEnd, out + MAX_BLOCK_SIZE), state, fail, work, run);
    }
    p += stored;
    if (last) break;
  }
  if (out !== frameEnd) fail("zstd.length", "frame decodes to fewer bytes than it declares", contentSize, out - frameStart);
  if (hasChecksum) {
    need(p, 4, "frame checksum");
    const expected = u32(src, p);
    const actual = xxh64Low32(dst, frameStart, frameEnd);
    if (expected !== actual) fail("zstd.checksum", "frame checksum does not match the decoded data", expected, actual);
    p += 4;
  }
  return { end: p, out };
}

// A block's literals are decoded into the last bytes of the block's room in `dst`, so that
// sequences copy them with copyWithin inside one array; the sequences then fill the room from its
// start and may never overtake the next unread literal (that would mean the block produces more
// than its room). Returns the offset in dst where the literals start (they end at blockEnd).
function decodeLiterals(src: Uint8Array, at: number, end: number, dst: Uint8Array, blockStart: number, blockEnd: number, state: FrameState, fail: Fail): { literals: number; next: number } {
  const room = blockEnd - blockStart;
  const b0 = src[at]!;
  const type = b0 & 3;
  const sizeFormat = (b0 >> 2) & 3;
  if (type <= 1) {
    let regenerated: number;
    let header: number;
    if (sizeFormat === 0 || sizeFormat === 2) {
      regenerated = b0 >> 3;
      header = 1;
    } else if (sizeFormat === 1) {
      if (at + 2 > end) fail("zstd.literals", "literals header runs past the block", 2, end - at);
      regenerated = (b0 >> 4) | (src[at + 1]! << 4);
      header = 2;
    } else {
      if (at + 3 > end) fail("zstd.literals", "literals header runs past the block", 3, end - at);
      regenerated = (b0 >> 4) | (src[at + 1]! << 4) | (src[at + 2]! << 12);
      header = 3;
    }
    if (regenerated > room) fail("zstd.literals", "literals exceed the room left in the block", `<= ${room}`, regenerated);
    const from = at + header;
    if (type === 0) {
      if (from + regenerated > end) fail("zstd.literals", "raw literals run past the block", regenerated, end - from);
      dst.set(src.subarray(from, from + regenerated), blockEnd - regenerated);
      return { literals: blockEnd - regenerated, next: from + regenerated };
    }
    if (from + 1 > end) fail("zstd.literals", "RLE literals byte missing", 1, 0);
    dst.fill(src[from]!, blockEnd - regenerated, blockEnd);
    return { literals: blockEnd - regenerated, next: from + 1 };
  }
  const header = sizeFormat <= 1 ? 3 : sizeFormat === 2 ? 4 : 5;
  if (at + header > end) fail("zstd.literals", "literals header runs past the block", header, end - at);
  let regenerated: number;
  let compressed: number;
  if (header === 3) {
    const v = b0 | (src[at + 1]! << 8) | (src[at + 2]! << 16);
    regenerated = (v >> 4) & 0x3ff;
    compressed = (v >> 14) & 0x3ff;
  } else if (header === 4) {
    const v = u32(src, at);
    regenerated = (v >>> 4) & 0x3fff;
    compressed = v >>> 18;
  } else {
    const v = u32(src, at);
    regenerated = (v >>> 4) & 0x3ffff;
    compressed = (v >>> 22) + src[at + 4]! * 1024;
  }
  if (regenerated > room) fail("zstd.literals", "literals exceed the room left in the block", `<= ${room}`, regenerated);
  let p = at + header;
  const sectionEnd = p + compressed;
  if (sectionEnd > end) fail("zstd.literals", "compressed literals run past the block", compressed, end - p);
  let table: HuffmanTable;
  if (type === 2) {
    const tree = readHuffmanTable(src, p, sectionEnd, fail);
    table = tree.table;
    p = tree.end;
    state.huffman = table;
  } else {
    if (state.huffman === undefined) fail("zstd.literals", "treeless literals without an earlier Huffman table", "a table", "none");
    table = state.huffman;
  }
  const base = blockEnd - regenerated;
  if (sizeFormat === 0) {
    state.literals.one(src, p, sectionEnd, table, dst, base, blockEnd, fail);
  } else {
    if (p + 6 > sectionEnd) fail("zstd.literals", "jump table runs past the literals", 6, sectionEnd - p);
    const s1 = src[p]! | (src[p + 1]! << 8);
    const s2 = src[p + 2]! | (src[p + 3]! << 8);
    const s3 = src[p + 4]! | (src[p + 5]! << 8);
    p += 6;
    const s4 = sectionEnd - p - s1 - s2 - s3;
    if (s4 < 1) fail("zstd.literals", "jump table sizes exceed the literals", `<= ${sectionEnd - p}`, s1 + s2 + s3 + 1);
    const segment = (regenerated + 3) >> 2;
    if (3 * segment > regenerated) fail("zstd.literals", "too few literals for four streams", `>= ${3 * segment}`, regenerated);
    const bounds = [p, p + s1, p + s1 + s2, p + s1 + s2 + s3, sectionEnd];
    const decoder = state.literals;
    if (decoder.four !== undefined) {
      decoder.four(src, bounds, table, dst, base, segment, blockEnd, fail);
    } else {
      for (let i = 0; i < 4; i++) decoder.one(src, bounds[i]!, bounds[i + 1]!, table, dst, base + i * segment, i === 3 ? blockEnd : base + (i + 1) * segment, fail);
    }
  }
  return { literals: base, next: sectionEnd };
}

function readTable(
  src: Uint8Array, at: number, end: number, mode: number, which: "ll" | "of" | "ml", state: FrameState, fail: Fail,
): { table: FseTable; next: number } {
  const maxSymbol = which === "ll" ? MAX_LL : which === "ml" ? MAX_ML : MAX_OF;
  if (mode === 0) return { table: PREDEFINED[which], next: at };
  if (mode === 1) {
    if (at >= end) fail("zstd.sequences", "RLE symbol missing", 1, 0);
    const symbol = src[at]!;
    if (symbol > maxSymbol) fail("zstd.sequences", `${which} RLE symbol out of range`, `<= ${maxSymbol}`, symbol);
    return { table: rleFseTable(symbol), next: at + 1 };
  }
  if (mode === 2) {
    const { table, end: next } = readFseTable(src, at, end, which === "of" ? 8 : 9, maxSymbol, fail);
    return { table, next };
  }
  const previous = state[which];
  if (previous === undefined) fail("zstd.sequences", `repeat mode for ${which} without an earlier table`, "a table", "none");
  return { table: previous, next: at };
}

function decodeCompressedBlock(
  src: Uint8Array, start: number, end: number, dst: Uint8Array, frameStart: number, blockStart: number, blockEnd: number,
  state: FrameState, fail: Fail, work: ZstdWork | undefined, run: SequenceExecutor,
): number {
  if (start >= end) fail("zstd.block", "compressed block is empty", ">= 2 bytes", 0);
  const { literals, next } = decodeLiterals(src, start, end, dst, blockStart, blockEnd, state, fail);
  let p = next;
  if (p >= end) fail("zstd.sequences", "sequences section missing", ">= 1 byte", 0);
  const b0 = src[p]!;
  let nbSeq: number;
  if (b0 < 128) {
    nbSeq = b0;
    p += 1;
  } else if (b0 < 255) {
    if (p + 2 > end) fail("zstd.sequences", "sequence count runs past the block", 2, end - p);
    nbSeq = ((b0 - 128) << 8) + src[p + 1]!;
    p += 2;
  } else {
    if (p + 3 > end) fail("zstd.sequences", "sequence count runs past the block", 3, end - p);
    nbSeq = src[p + 1]! + (src[p + 2]! << 8) + 0x7f00;
    p += 3;
  }
  let lit = literals;
  const litEnd = blockEnd;
  let out = blockStart;
  if (nbSeq === 0) {
    if (p !== end) fail("zstd.sequences", "bytes after an empty sequences section", 0, end - p);
  } else {
    // Each sequence writes at least MIN_MATCH bytes: a count that cannot fit is refused before any
    // table is read or any byte is written.
    const room = blockEnd - blockStart - (litEnd - lit);
    if (nbSeq * MIN_MATCH > room) {
      fail("zstd.sequences", "more sequences than the block has room for", `<= ${Math.floor(room / MIN_MATCH)}`, nbSeq);
    }
    if (p >= end) fail("zstd.sequences", "compression modes byte missing", 1, 0);
    const modes = src[p++]!;
    if (modes & 3) fail("zstd.sequences", "reserved bits of the compression modes are set", 0, modes & 3);
    const ll = readTable(src, p, end, modes >> 6, "ll", state, fail);
    const of = readTable(src, ll.next, end, (modes >> 4) & 3, "of", state, fail);
    const ml = readTable(src, of.next, end, (modes >> 2) & 3, "ml", state, fail);
    state.ll = ll.table;
    state.of = of.table;
    state.ml = ml.table;
    const done = run(src, ml.next, end, nbSeq, ll.table, of.table, ml.table, literals, dst, frameStart, blockStart, blockEnd, state, fail, work);
    out = done.out;
    lit = done.lit;
  }
  // out <= lit always holds here, so this moves the remaining literals down to their place
  const tail = litEnd - lit;
  dst.copyWithin(out, lit, litEnd);
  return out + tail;
}

function executeSequences(
  src: Uint8Array, start: number, end: number, nbSeq: number, llTable: FseTable, ofTable: FseTable, mlTable: FseTable,
  literals: number, dst: Uint8Array, frameStart: number, blockStart: number, blockEnd: number, state: { rep: [number, number, number] },
  fail: Fail, work: ZstdWork | undefined,
): { out: number; lit: number } {
  const bits = new BackwardBits(src, start, end, fail);
  let llState = bits.read(llTable.accuracy);
  let ofState = bits.read(ofTable.accuracy);
  let mlState = bits.read(mlTable.accuracy);
  const rep = state.rep;
  let lit = literals;
  const litEnd = blockEnd;
  let out = blockStart;
  for (let i = 0; i < nbSeq; i++) {
    const ofCode = ofTable.symbol[ofState]!;
    const mlCode = mlTable.symbol[mlState]!;
    const llCode = llTable.symbol[llState]!;
    const offsetValue = OF_BASE[ofCode]! + bits.read(ofCode);
    const ml = ML_BASE[mlCode]! + bits.read(ML_BITS[mlCode]!);
    const ll = LL_BASE[llCode]! + bits.read(LL_BITS[llCode]!);
    if (i + 1 < nbSeq) {
      llState = llTable.base[llState]! + bits.read(llTable.bits[llState]!);
      mlState = mlTable.base[mlState]! + bits.read(mlTable.bits[mlState]!);
      ofState = ofTable.base[ofState]! + bits.read(ofTable.bits[ofState]!);
    }
    if (bits.remaining < 0) fail("zstd.sequences", "sequence bit stream ends early", nbSeq, i);
    let offset: number;
    if (offsetValue > 3) {
      offset = offsetValue - 3;
      rep[2] = rep[1];
      rep[1] = rep[0];
      rep[0] = offset;
    } else {
      const index = offsetValue - 1 + (ll === 0 ? 1 : 0);
      if (index === 0) offset = rep[0];
      else {
        offset = index === 3 ? rep[0] - 1 : rep[index]!;
        if (index !== 1) rep[2] = rep[1];
        rep[1] = rep[0];
        rep[0] = offset;
      }
    }
    if (ll > litEnd - lit) fail("zstd.sequences", "sequence uses more literals than the block has", litEnd - lit, ll);
    // The literals not used yet sit at lit..blockEnd and must stay there, so a sequence may write
    // up to lit + ll: beyond that the block would produce more than its room.
    if (out + ml > lit) fail("zstd.length", "sequence writes past the block's room", lit - out, ll + ml + (litEnd - lit));
    // out <= lit, so copying forward is safe; short runs byte by byte (cheaper than a call)
    if (ll < 24) {
      for (let k = 0; k < ll; k++) dst[out + k] = dst[lit + k]!;
    } else dst.copyWithin(out, lit, lit + ll);
    lit += ll;
    out += ll;
    if (offset === 0 || offset > out - frameStart) fail("zstd.sequences", "match offset reaches before the frame's first byte", `1..${out - frameStart}`, offset);
    let from = out - offset;
    if (ml < 24) {
      for (const stop = out + ml; out < stop; ) dst[out++] = dst[from++]!;
    } else {
      // An overlapping match repeats its first `offset` bytes: each copyWithin doubles what is
      // already in place, so a run of n bytes at offset 1 costs log2(n) calls.
      const stop = out + ml;
      while (out < stop) {
        const n = Math.min(out - from, stop - out);
        dst.copyWithin(out, from, from + n);
        out += n;
      }
    }
    if (work !== undefined) work.sequences++;
  }
  if (bits.remaining !== 0) fail("zstd.sequences", "sequence bit stream not consumed exactly", 0, bits.remaining);
  return { out, lit };
}
