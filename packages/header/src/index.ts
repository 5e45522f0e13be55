/**
 * Byte-level headers of bcolz 1.x chunk files: the 16-byte `blpk` version-1 file header and the
 * 16-byte Blosc 1.x chunk header with its flags, block layout, `bstarts` table and split rule
 * (format-facts sections 1 and 4.2); and the format-version-2 superchunk structures of
 * spec/v2.md: the 32-byte header, metadata section, offsets table, per-chunk checksums, slots,
 * the three-request range plan and the dataset consistency rules. Every reader validates what the bytes alone allow and throws
 * a `FormatError` naming the file and the dotted field (`blosc.cbytes`, `blosc.bstarts[3]`).
 *
 * @example
 * ```ts
 * import { readBlpkV1Header, readChunkHeader, BLPK_V1_HEADER_SIZE } from "@fmt/header";
 * const file = await fs.readFile("data/__0.blp");
 * readBlpkV1Header(file, "data/__0.blp");
 * const header = readChunkHeader(file.subarray(BLPK_V1_HEADER_SIZE), "data/__0.blp");
 * console.log(header.nbytes, header.codec);
 * ```
 * @packageDocumentation
 */
import { FormatError, UsageError } from "@fmt/errors";

export { adler32, crc32, useCrc32, useInPlaceChecksums } from "./checksum.js";
export type { Crc32Function, InPlaceChecksums } from "./checksum.js";
export { crc32Offload, useCrc32Offload } from "./checksum-offload.js";
export type { Crc32Answer, Crc32Offload } from "./checksum-offload.js";
// Format version 2 (spec/v2.md): superchunk header, checksums, layout, dataset rules, verification, range plan.
export * from "./superchunk-header.js";
export * from "./superchunk-checksum.js";
export * from "./superchunk-layout.js";
export * from "./superchunk-dataset.js";
export * from "./superchunk-verify.js";
export * from "./superchunk-plan.js";

/**
 * The four magic bytes `blpk` that open every bcolz chunk file.
 *
 * @example
 * ```ts
 * BLPK_MAGIC; // Uint8Array [0x62, 0x6c, 0x70, 0x6b]
 * ```
 */
export const BLPK_MAGIC: Uint8Array = Uint8Array.of(0x62, 0x6c, 0x70, 0x6b);

/**
 * Length of the bloscpack version-1 file header that precedes the Blosc chunk in `__N.blp`.
 *
 * @example
 * ```ts
 * const chunk = file.subarray(BLPK_V1_HEADER_SIZE);
 * ```
 */
export const BLPK_V1_HEADER_SIZE = 16;

/**
 * Length of a Blosc 1.x chunk header.
 *
 * @example
 * ```ts
 * const header = readChunkHeader(bytes.subarray(0, BLOSC_HEADER_SIZE + 100));
 * ```
 */
export const BLOSC_HEADER_SIZE = 16;

/**
 * Largest amount by which a Blosc chunk can exceed its uncompressed size (`nbytes + 16` always
 * suffices as a compression destination).
 *
 * @example
 * ```ts
 * const dest = new Uint8Array(data.length + BLOSC_MAX_OVERHEAD);
 * ```
 */
export const BLOSC_MAX_OVERHEAD = 16;

/**
 * Largest `nbytes` a Blosc 1.x chunk may declare: 2^31 − 1 − 16.
 *
 * @example
 * ```ts
 * if (data.length > BLOSC_MAX_BUFFERSIZE) throw new Error("too big for one chunk");
 * ```
 */
export const BLOSC_MAX_BUFFERSIZE = 2147483631;

/**
 * Largest `blocksize` the c-blosc 1.21 decoder accepts: (2^31 − 1 − 255·4) / 3.
 *
 * @example
 * ```ts
 * header.blocksize <= BLOSC_MAX_BLOCKSIZE; // always true for a header readChunkHeader returned
 * ```
 */
export const BLOSC_MAX_BLOCKSIZE = 715827542;

/**
 * Largest typesize a chunk header can hold; larger requested typesizes are written as 1.
 *
 * @example
 * ```ts
 * const typesize = itemsize > BLOSC_MAX_TYPESIZE ? 1 : itemsize;
 * ```
 */
export const BLOSC_MAX_TYPESIZE = 255;

/**
 * The Blosc format version byte written by every c-blosc 1.x release (header offset 0).
 *
 * @example
 * ```ts
 * header.version === BLOSC_VERSION_FORMAT; // true after readChunkHeader
 * ```
 */
export const BLOSC_VERSION_FORMAT = 2;

/**
 * The codec-format version byte (header offset 1), 1 for every codec.
 *
 * @example
 * ```ts
 * writeChunkHeader({ version: 2, versionlz: BLOSC_VERSION_LZ, flags: 0x12, typesize: 1, nbytes: 0, blocksize: 1, cbytes: 16 });
 * ```
 */
export const BLOSC_VERSION_LZ = 1;

/**
 * Flag bits of header byte 2 (format-facts 1.2). `RESERVED` must be zero.
 *
 * @example
 * ```ts
 * const memcpyed = (header.flags & BLOSC_FLAGS.MEMCPYED) !== 0;
 * ```
 */
export const BLOSC_FLAGS = {
  SHUFFLE: 0x01,
  MEMCPYED: 0x02,
  BITSHUFFLE: 0x04,
  RESERVED: 0x08,
  DONT_SPLIT: 0x10,
} as const;

/**
 * Largest typesize whose blocks may be split into one stream per byte position.
 *
 * @example
 * ```ts
 * const mayEncoderSplit = typesize <= MAX_SPLITS;
 * ```
 */
export const MAX_SPLITS = 16;

/**
 * Minimum number of elements per split (and c-blosc's "always memcpy below this nbytes" size).
 *
 * @example
 * ```ts
 * const tooSmall = blocksize / typesize < MIN_BUFFERSIZE;
 * ```
 */
export const MIN_BUFFERSIZE = 128;

/**
 * Header fields of a bcolz chunk file (bloscpack format version 1).
 *
 * @example
 * ```ts
 * const h: BlpkV1Header = { version: 1, nchunks: 1n };
 * ```
 */
export interface BlpkV1Header {
  /** Always 1. */
  version: 1;
  /** Number of Blosc chunks that follow; bcolz always writes 1 (−1 means "unknown"). */
  nchunks: bigint;
}

/**
 * Read the 16-byte `blpk` version-1 header at the start of a `__N.blp` file. The three reserved
 * bytes are not checked (bcolz itself never looks at the header).
 *
 * @param bytes - the file, or at least its first 16 bytes.
 * @param path - file name for error messages.
 * @throws FormatError TRUNCATED (`blpk.header`), BAD_MAGIC (`blpk.magic`), UNSUPPORTED_VERSION (`blpk.version`).
 * @example
 * ```ts
 * readBlpkV1Header(Uint8Array.of(0x62, 0x6c, 0x70, 0x6b, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0)); // { version: 1, nchunks: 1n }
 * ```
 */
export function readBlpkV1Header(bytes: Uint8Array, path?: string): BlpkV1Header {
  if (bytes.length < BLPK_V1_HEADER_SIZE) {
    throw new FormatError("TRUNCATED", "file is shorter than the blpk header", {
      path, field: "blpk.header", expected: `>= ${BLPK_V1_HEADER_SIZE} bytes`, actual: bytes.length,
    });
  }
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== BLPK_MAGIC[i]) {
      throw new FormatError("BAD_MAGIC", "file does not start with the blpk magic", {
        path, field: "blpk.magic", expected: "626c706b", actual: hex(bytes.subarray(0, 4)),
      });
    }
  }
  const version = bytes[4]!;
  if (version !== 1) {
    throw new FormatError("UNSUPPORTED_VERSION", "blpk format version is not 1", {
      path, field: "blpk.version", expected: 1, actual: version,
    });
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, BLPK_V1_HEADER_SIZE);
  const nchunks = view.getBigInt64(8, true);
  // A version-1 file holds exactly one Blosc chunk (bcolz never writes anything else); any other
  // count means the file is something we would misread.
  if (nchunks !== 1n) {
    throw new FormatError("BAD_HEADER", "a blpk version 1 file holds exactly one chunk", {
      path, field: "blpk.nchunks", expected: 1, actual: nchunks,
    });
  }
  return { version: 1, nchunks };
}

/**
 * The 16-byte `blpk` version-1 header exactly as bcolz 1.x writes it
 * (`62 6C 70 6B 01 00 00 00 01 00 00 00 00 00 00 00` for one chunk).
 *
 * @param nchunks - value of the i64 chunk-count field; 1 by default, as bcolz writes.
 * @throws UsageError INVALID_ARGUMENT when `nchunks` does not fit a signed 64-bit integer.
 * @example
 * ```ts
 * const file = new Uint8Array(16 + chunk.length);
 * file.set(writeBlpkV1Header());
 * file.set(chunk, 16);
 * ```
 */
export function writeBlpkV1Header(nchunks: bigint = 1n): Uint8Array {
  if (nchunks < -(2n ** 63n) || nchunks >= 2n ** 63n) {
    throw new UsageError("INVALID_ARGUMENT", "nchunks does not fit in a signed 64-bit integer", {
      field: "blpk.nchunks", expected: "signed 64-bit integer", actual: nchunks,
    });
  }
  const out = new Uint8Array(BLPK_V1_HEADER_SIZE);
  out.set(BLPK_MAGIC);
  out[4] = 1;
  new DataView(out.buffer).setBigInt64(8, nchunks, true);
  return out;
}

/**
 * Compressor names an encoder can be asked for.
 *
 * @example
 * ```ts
 * const cname: CodecName = "lz4hc";
 * ```
 */
export type CodecName = "blosclz" | "lz4" | "lz4hc" | "snappy" | "zlib" | "zstd";

/**
 * Stream formats a chunk header can name (lz4hc writes the lz4 format).
 *
 * @example
 * ```ts
 * const format: CodecFormat = codecFormatOf("lz4hc"); // "lz4"
 * ```
 */
export type CodecFormat = "blosclz" | "lz4" | "snappy" | "zlib" | "zstd";

const FORMAT_BY_CODE: readonly (CodecFormat | undefined)[] = ["blosclz", "lz4", "snappy", "zlib", "zstd", undefined, undefined, undefined];

const CODE_BY_NAME: { readonly [K in CodecName]: number } = { blosclz: 0, lz4: 1, lz4hc: 1, snappy: 2, zlib: 3, zstd: 4 };

/**
 * Header format code (flag bits 5–7) of a compressor.
 *
 * @param name - compressor name.
 * @returns 0 blosclz, 1 lz4 and lz4hc, 2 snappy, 3 zlib, 4 zstd.
 * @throws UsageError INVALID_ARGUMENT for an unknown name.
 * @example
 * ```ts
 * codecFormatCode("zstd"); // 4
 * ```
 */
export function codecFormatCode(name: CodecName): number {
  const code = (CODE_BY_NAME as { readonly [k: string]: number | undefined })[name];
  if (code === undefined) {
    throw new UsageError("INVALID_ARGUMENT", "unknown compressor name", {
      field: "cname", expected: Object.keys(CODE_BY_NAME).join(", "), actual: name,
    });
  }
  return code;
}

/**
 * Stream format written by a compressor (lz4hc → lz4).
 *
 * @param name - compressor name.
 * @throws UsageError INVALID_ARGUMENT for an unknown name.
 * @example
 * ```ts
 * codecFormatOf("lz4hc"); // "lz4"
 * ```
 */
export function codecFormatOf(name: CodecName): CodecFormat {
  return FORMAT_BY_CODE[codecFormatCode(name)]!;
}

/**
 * Stream format for a header format code, or `undefined` for the unassigned codes 5–7.
 *
 * @param code - `(flags >> 5) & 7`.
 * @example
 * ```ts
 * codecFormatFromCode(3); // "zlib"
 * codecFormatFromCode(6); // undefined
 * ```
 */
export function codecFormatFromCode(code: number): CodecFormat | undefined {
  return FORMAT_BY_CODE[code & 7];
}

/**
 * The decoded 16-byte Blosc 1.x chunk header plus the meaning of its flag bits.
 *
 * @example
 * ```ts
 * const h: ChunkHeader = readChunkHeader(chunk);
 * if (h.memcpyed) console.log("stored uncompressed");
 * ```
 */
export interface ChunkHeader {
  /** Format version byte (always 2 after validation). */
  version: number;
  /** Codec-format version byte (1 for every codec). */
  versionlz: number;
  /** The raw flags byte. */
  flags: number;
  /** Element size used by the filters and the split rule, 1..255. */
  typesize: number;
  /** Uncompressed payload size. */
  nbytes: number;
  /** Size of every block but possibly the last. */
  blocksize: number;
  /** Total chunk size including the 16 header bytes. */
  cbytes: number;
  /** Filter from flag bits 0 (byte shuffle → 1) and 2 (bit shuffle → 2); bit 0 wins if both are set. */
  shuffle: 0 | 1 | 2;
  /** Flag bit 1: the payload is the raw data right after the header. */
  memcpyed: boolean;
  /** Flag bit 4: every block is a single stream. */
  dontSplit: boolean;
  /** Stream format from bits 5–7; `undefined` only where the code is never used (memcpyed or empty chunks). */
  codec: CodecFormat | undefined;
  /** The raw format code, bits 5–7. */
  codecCode: number;
}

function readI32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/**
 * Read and validate a Blosc 1.x chunk header: every check of format-facts 1.13 that needs only
 * the header, plus "the chunk's `cbytes` bytes are present". Bytes after `cbytes` are allowed.
 *
 * Checks, in order: at least 16 bytes; version 2; reserved flag bit 3 clear; `nbytes`,
 * `blocksize`, `cbytes` not negative as signed 32-bit values; `cbytes` ≥ 16 and ≤ `bytes.length`;
 * `nbytes` ≤ `BLOSC_MAX_BUFFERSIZE`. For a non-empty chunk also: typesize ≥ 1;
 * 1 ≤ `blocksize` ≤ min(`nbytes`, `BLOSC_MAX_BLOCKSIZE`); memcpyed → `cbytes == nbytes + 16`;
 * otherwise a known codec, `versionlz == 1` and room for the `bstarts` table. Like c-blosc, an
 * empty chunk (`nbytes == 0`) skips the checks that only matter for decoding data.
 *
 * @param bytes - the chunk (starting at its header), possibly followed by other bytes.
 * @param path - file name for error messages.
 * @param available - how many bytes the whole chunk has when `bytes` is only its beginning (a
 *   range read of the header and `bstarts`); `cbytes` is checked against it. Default `bytes.length`.
 * @throws FormatError TRUNCATED, UNSUPPORTED_VERSION, BAD_HEADER, SIZE_LIMIT or UNKNOWN_CODEC, with
 * fields `blosc.header`, `blosc.version`, `blosc.versionlz`, `blosc.flags`, `blosc.typesize`,
 * `blosc.nbytes`, `blosc.blocksize`, `blosc.cbytes`, `blosc.bstarts`.
 * @example
 * ```ts
 * const h = readChunkHeader(Uint8Array.of(2, 1, 0x13, 4, 0, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0));
 * h.nbytes; // 0
 * h.shuffle; // 1
 * ```
 */
export function readChunkHeader(bytes: Uint8Array, path?: string, available: number = bytes.length): ChunkHeader {
  if (bytes.length < BLOSC_HEADER_SIZE) {
    throw new FormatError("TRUNCATED", "input ends inside the Blosc chunk header", {
      path, field: "blosc.header", expected: `>= ${BLOSC_HEADER_SIZE} bytes`, actual: bytes.length,
    });
  }
  const version = bytes[0]!;
  const versionlz = bytes[1]!;
  const flags = bytes[2]!;
  const typesize = bytes[3]!;
  const nbytes = readI32(bytes, 4);
  const blocksize = readI32(bytes, 8);
  const cbytes = readI32(bytes, 12);
  const bad = (code: "BAD_HEADER" | "SIZE_LIMIT" | "TRUNCATED" | "UNSUPPORTED_VERSION" | "UNKNOWN_CODEC", field: string, reason: string, expected: unknown, actual: unknown): FormatError =>
    new FormatError(code, reason, { path, field, expected, actual });

  if (version !== BLOSC_VERSION_FORMAT) throw bad("UNSUPPORTED_VERSION", "blosc.version", "Blosc format version is not 2", BLOSC_VERSION_FORMAT, version);
  if (flags & BLOSC_FLAGS.RESERVED) throw bad("BAD_HEADER", "blosc.flags", "reserved flag bit 3 is set", "bit 3 clear", `0x${flags.toString(16)}`);
  if (nbytes < 0) throw bad("BAD_HEADER", "blosc.nbytes", "nbytes is negative as a signed 32-bit value", ">= 0", nbytes >>> 0);
  if (blocksize < 0) throw bad("BAD_HEADER", "blosc.blocksize", "blocksize is negative as a signed 32-bit value", ">= 1", blocksize >>> 0);
  if (cbytes < 0) throw bad("BAD_HEADER", "blosc.cbytes", "cbytes is negative as a signed 32-bit value", ">= 16", cbytes >>> 0);
  if (cbytes < BLOSC_HEADER_SIZE) throw bad("BAD_HEADER", "blosc.cbytes", "cbytes is smaller than the header", `>= ${BLOSC_HEADER_SIZE}`, cbytes);
  if (cbytes > available) throw bad("TRUNCATED", "blosc.cbytes", "input ends before the cbytes the header announces", `<= ${available} (input length)`, cbytes);
  if (nbytes > BLOSC_MAX_BUFFERSIZE) throw bad("SIZE_LIMIT", "blosc.nbytes", "nbytes exceeds BLOSC_MAX_BUFFERSIZE", `<= ${BLOSC_MAX_BUFFERSIZE}`, nbytes);

  const memcpyed = (flags & BLOSC_FLAGS.MEMCPYED) !== 0;
  const codecCode = (flags >> 5) & 7;
  const codec = FORMAT_BY_CODE[codecCode];
  const header: ChunkHeader = {
    version, versionlz, flags, typesize, nbytes, blocksize, cbytes,
    shuffle: flags & BLOSC_FLAGS.SHUFFLE ? 1 : flags & BLOSC_FLAGS.BITSHUFFLE ? 2 : 0,
    memcpyed,
    dontSplit: (flags & BLOSC_FLAGS.DONT_SPLIT) !== 0,
    codec,
    codecCode,
  };
  if (nbytes === 0) return header;

  if (typesize === 0) throw bad("BAD_HEADER", "blosc.typesize", "typesize is 0", "1..255", 0);
  if (blocksize === 0) throw bad("BAD_HEADER", "blosc.blocksize", "blocksize is 0", ">= 1", 0);
  // spec/v1.md §5.8: a size beyond what c-blosc can allocate is a limit, not a broken header.
  if (blocksize > BLOSC_MAX_BLOCKSIZE) throw bad("SIZE_LIMIT", "blosc.blocksize", "blocksize exceeds BLOSC_MAX_BLOCKSIZE", `<= ${BLOSC_MAX_BLOCKSIZE}`, blocksize);
  if (blocksize > nbytes) throw bad("BAD_HEADER", "blosc.blocksize", "blocksize is larger than nbytes", `<= ${nbytes} (nbytes)`, blocksize);
  if (memcpyed) {
    if (cbytes !== nbytes + BLOSC_HEADER_SIZE) {
      throw bad("BAD_HEADER", "blosc.cbytes", "a memcpyed chunk's cbytes must be nbytes + 16", nbytes + BLOSC_HEADER_SIZE, cbytes);
    }
    return header;
  }
  if (codec === undefined) throw bad("UNKNOWN_CODEC", "blosc.flags", "unknown codec format code in flag bits 5-7", "0..4", codecCode);
  if (versionlz !== BLOSC_VERSION_LZ) throw bad("UNSUPPORTED_VERSION", "blosc.versionlz", "codec format version is not 1", BLOSC_VERSION_LZ, versionlz);
  const { nblocks } = blockLayout(header);
  if (nblocks > Math.floor((cbytes - BLOSC_HEADER_SIZE) / 4)) {
    throw bad("BAD_HEADER", "blosc.bstarts", "cbytes is too small for the bstarts table", `>= ${BLOSC_HEADER_SIZE + 4 * nblocks} (16 + 4 * nblocks)`, cbytes);
  }
  return header;
}

/**
 * Encode a Blosc chunk header. Only the stored fields are taken; flags must already hold the
 * filter, memcpy, split and codec bits (see {@link chunkFlags}).
 *
 * @param header - the eight stored fields.
 * @param out - where to write (its first 16 bytes); a new 16-byte array by default.
 * @returns `out`, or the new array.
 * @throws UsageError INVALID_ARGUMENT when a field is out of its byte/int32 range or `out` is too short.
 * @example
 * ```ts
 * writeChunkHeader({ version: 2, versionlz: 1, flags: 0x13, typesize: 4, nbytes: 0, blocksize: 1, cbytes: 16 });
 * // 02 01 13 04 00 00 00 00 01 00 00 00 10 00 00 00
 * ```
 */
export function writeChunkHeader(
  header: Omit<ChunkHeader, "shuffle" | "memcpyed" | "dontSplit" | "codec" | "codecCode">,
  out: Uint8Array = new Uint8Array(BLOSC_HEADER_SIZE),
): Uint8Array {
  if (out.length < BLOSC_HEADER_SIZE) {
    throw new UsageError("INVALID_ARGUMENT", "output buffer is shorter than a chunk header", { field: "out", expected: `>= ${BLOSC_HEADER_SIZE}`, actual: out.length });
  }
  const bytesFields = [["version", header.version], ["versionlz", header.versionlz], ["flags", header.flags], ["typesize", header.typesize]] as const;
  for (const [name, value] of bytesFields) {
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw new UsageError("INVALID_ARGUMENT", `${name} must be a byte`, { field: `blosc.${name}`, expected: "0..255", actual: value });
    }
  }
  const intFields = [["nbytes", header.nbytes], ["blocksize", header.blocksize], ["cbytes", header.cbytes]] as const;
  for (const [name, value] of intFields) {
    if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
      throw new UsageError("INVALID_ARGUMENT", `${name} must be a non-negative int32`, { field: `blosc.${name}`, expected: "0..2^31-1", actual: value });
    }
  }
  out[0] = header.version;
  out[1] = header.versionlz;
  out[2] = header.flags;
  out[3] = header.typesize;
  const view = new DataView(out.buffer, out.byteOffset, BLOSC_HEADER_SIZE);
  view.setInt32(4, header.nbytes, true);
  view.setInt32(8, header.blocksize, true);
  view.setInt32(12, header.cbytes, true);
  return out;
}

/**
 * The flags byte for a chunk: filter bit (0x01 shuffle, 0x04 bitshuffle), 0x02 memcpyed,
 * 0x10 dont-split, codec format code in bits 5–7.
 *
 * @throws UsageError INVALID_ARGUMENT for an unknown codec or shuffle value.
 * @example
 * ```ts
 * chunkFlags({ shuffle: 1, memcpyed: true, dontSplit: true, codec: "blosclz" }); // 0x13
 * chunkFlags({ shuffle: 0, memcpyed: true, dontSplit: true, codec: "zstd" }); // 0x92
 * ```
 */
export function chunkFlags(opts: { shuffle: 0 | 1 | 2; memcpyed: boolean; dontSplit: boolean; codec: CodecName }): number {
  if (opts.shuffle !== 0 && opts.shuffle !== 1 && opts.shuffle !== 2) {
    throw new UsageError("INVALID_ARGUMENT", "shuffle must be 0, 1 or 2", { field: "cparams.shuffle", expected: "0, 1 or 2", actual: opts.shuffle });
  }
  let flags = codecFormatCode(opts.codec) << 5;
  if (opts.shuffle === 1) flags |= BLOSC_FLAGS.SHUFFLE;
  if (opts.shuffle === 2) flags |= BLOSC_FLAGS.BITSHUFFLE;
  if (opts.memcpyed) flags |= BLOSC_FLAGS.MEMCPYED;
  if (opts.dontSplit) flags |= BLOSC_FLAGS.DONT_SPLIT;
  return flags;
}

/**
 * How a chunk's payload is cut into blocks.
 *
 * @example
 * ```ts
 * const { nblocks, leftover }: BlockLayout = blockLayout(header);
 * ```
 */
export interface BlockLayout {
  /** Number of blocks, including a final partial one. */
  nblocks: number;
  /** Size of the final partial block, or 0 when every block is full. */
  leftover: number;
}

/**
 * Number of blocks and size of the final partial block (format-facts 1.4). An empty chunk has no
 * blocks.
 *
 * @example
 * ```ts
 * blockLayout({ ...header, nbytes: 100, blocksize: 32 }); // { nblocks: 4, leftover: 4 }
 * ```
 */
export function blockLayout(header: Pick<ChunkHeader, "nbytes" | "blocksize">): BlockLayout {
  if (header.nbytes <= 0 || header.blocksize <= 0) return { nblocks: 0, leftover: 0 };
  const leftover = header.nbytes % header.blocksize;
  return { nblocks: Math.floor(header.nbytes / header.blocksize) + (leftover > 0 ? 1 : 0), leftover };
}

/**
 * Read the `bstarts` table of a non-memcpyed chunk: one absolute offset per block, each validated
 * to lie in `[16 + 4·nblocks, cbytes − 4]` (room for at least a stream size prefix). Offsets need
 * not be increasing (multi-threaded writers store blocks out of order). Memcpyed and empty chunks
 * have no table; an empty array is returned.
 *
 * @param chunk - the chunk bytes, as given to {@link readChunkHeader}.
 * @param header - its validated header.
 * @param path - file name for error messages.
 * @throws FormatError BAD_HEADER with field `blosc.bstarts[j]`.
 * @example
 * ```ts
 * const header = readChunkHeader(chunk);
 * const starts = readBstarts(chunk, header); // e.g. Int32Array [80, 20268, 10521, ...]
 * ```
 */
export function readBstarts(chunk: Uint8Array, header: ChunkHeader, path?: string): Int32Array {
  if (header.memcpyed || header.nbytes === 0) return new Int32Array(0);
  const { nblocks } = blockLayout(header);
  const lowest = BLOSC_HEADER_SIZE + 4 * nblocks;
  const highest = header.cbytes - 4;
  if (lowest > header.cbytes || chunk.length < lowest) {
    throw new FormatError("BAD_HEADER", "cbytes is too small for the bstarts table", {
      path, field: "blosc.bstarts", expected: `>= ${lowest} bytes`, actual: Math.min(header.cbytes, chunk.length),
    });
  }
  const starts = new Int32Array(nblocks);
  for (let j = 0; j < nblocks; j++) {
    const start = readI32(chunk, BLOSC_HEADER_SIZE + 4 * j);
    if (start < lowest || start > highest) {
      throw new FormatError("BAD_HEADER", "block start lies outside the chunk's stream area", {
        path, field: `blosc.bstarts[${j}]`, expected: `${lowest}..${highest}`, actual: start >>> 0,
      });
    }
    starts[j] = start;
  }
  return starts;
}

/**
 * The decoder split rule of c-blosc 1.14–1.21 (format-facts 1.6): how many streams a block of
 * `blockSize` bytes is stored as. `typesize` streams iff the dont-split bit is clear, typesize ≤ 16,
 * `floor(blockSize / typesize) ≥ 128` and the block is not the leftover block; otherwise 1.
 *
 * @param header - the chunk header (its `dontSplit` and `typesize`).
 * @param blockSize - this block's size.
 * @param isLeftover - whether it is the final partial block.
 * @example
 * ```ts
 * splitCount({ ...header, typesize: 4, dontSplit: false }, 65536, false); // 4
 * splitCount({ ...header, typesize: 4, dontSplit: false }, 400, false);   // 1 (100 elements < 128)
 * ```
 */
export function splitCount(header: Pick<ChunkHeader, "dontSplit" | "typesize">, blockSize: number, isLeftover: boolean): number {
  const ts = header.typesize;
  if (header.dontSplit || isLeftover || ts < 1 || ts > MAX_SPLITS) return 1;
  return Math.floor(blockSize / ts) >= MIN_BUFFERSIZE ? ts : 1;
}
