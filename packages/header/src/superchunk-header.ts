/**
 * The 32-byte `blpk` header of a format-version-2 superchunk file (spec/v2.md §4), and the
 * version dispatch that tells a bcolz 1.x chunk file (`blpk` version 1), a superchunk (version 2)
 * and a real bloscpack file (version 3) apart.
 *
 * @example
 * ```ts
 * import { readSuperchunkHeader, sniffBlpkVersion } from "@fmt/header";
 * if (sniffBlpkVersion(head, "data/__1__.bin") === 2) {
 *   const h = readSuperchunkHeader(head, "data/__1__.bin");
 *   console.log(h.nchunks, h.metaSize);
 * }
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";

const MAGIC = [0x62, 0x6c, 0x70, 0x6b] as const;

/**
 * Length of the superchunk header.
 *
 * @example
 * ```ts
 * const metadataStart = BLPK_V2_HEADER_SIZE; // 32
 * ```
 */
export const BLPK_V2_HEADER_SIZE = 32;

/**
 * Option bits of header byte 5. Bits 2–7 are reserved and must be 0.
 *
 * @example
 * ```ts
 * const hasOffsets = (bytes[5]! & BLPK_V2_OPTIONS.OFFSETS) !== 0;
 * ```
 */
export const BLPK_V2_OPTIONS = { OFFSETS: 0x01, METADATA: 0x02 } as const;

/**
 * Largest `chunk-size` a superchunk may declare: a Blosc 1.x chunk's largest `nbytes`.
 *
 * @example
 * ```ts
 * chunkSize <= SUPERCHUNK_MAX_CHUNK_SIZE; // true for every header readSuperchunkHeader returns
 * ```
 */
export const SUPERCHUNK_MAX_CHUNK_SIZE = 2147483631;

/**
 * Decoded superchunk header. `-1` in `chunkSize`, `lastChunk` or `nchunks` means "unknown", which
 * only stand-alone files may use (spec/v2.md §4.3).
 *
 * @example
 * ```ts
 * const h: SuperchunkHeader = { version: 2, hasOffsets: true, hasMetadata: true, checksumId: 1, typesize: 4, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 40 };
 * ```
 */
export interface SuperchunkHeader {
  /** Always 2. */
  version: 2;
  /** Option bit 0: an offsets table follows the metadata section. */
  hasOffsets: boolean;
  /** Option bit 1: a JSON metadata section of `metaSize` bytes follows the header. */
  hasMetadata: boolean;
  /** Checksum id 0–8 (see `CHECKSUM_KINDS`). */
  checksumId: number;
  /** Blosc typesize of the chunks (informational; each chunk's own header decides). */
  typesize: number;
  /** Uncompressed bytes of every chunk but the last, or −1. */
  chunkSize: number;
  /** Uncompressed bytes of the last chunk as of the last completed write, or −1. */
  lastChunk: number;
  /** Number of chunks in the file, or −1 (only without offsets). */
  nchunks: number;
  /** Bytes of the metadata section (0 without metadata). */
  metaSize: number;
}

function bad(code: "TRUNCATED" | "BAD_MAGIC" | "UNSUPPORTED_VERSION" | "BAD_HEADER" | "SIZE_LIMIT", path: string | undefined, field: string, reason: string, expected: unknown, actual: unknown): FormatError {
  return new FormatError(code, reason, { path, field, expected, actual });
}

/**
 * The `blpk` format version of a file from its first bytes: 1 (a bcolz 1.x chunk file, 16-byte
 * header), 2 (a superchunk, 32-byte header) or 3 (a real bloscpack file, which this format does
 * not define). Needs at least 16 bytes, the shortest valid `blpk` file header.
 *
 * @param bytes - the start of the file.
 * @param path - file name for error messages.
 * @throws FormatError TRUNCATED (`blpk.header`), BAD_MAGIC (`blpk.magic`), UNSUPPORTED_VERSION
 * (`blpk.version`) for any other version byte.
 * @example
 * ```ts
 * sniffBlpkVersion(Uint8Array.of(0x62, 0x6c, 0x70, 0x6b, 2, 3, 1, 4, 8, 0, 0, 0, 4, 0, 0, 0)); // 2
 * ```
 */
export function sniffBlpkVersion(bytes: Uint8Array, path?: string): 1 | 2 | 3 {
  if (bytes.length < 16) throw bad("TRUNCATED", path, "blpk.header", "file is shorter than the shortest blpk header", ">= 16 bytes", bytes.length);
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== MAGIC[i]) throw bad("BAD_MAGIC", path, "blpk.magic", "file does not start with the blpk magic", "626c706b", [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join(""));
  }
  const version = bytes[4]!;
  if (version === 1 || version === 2 || version === 3) return version;
  throw bad("UNSUPPORTED_VERSION", path, "blpk.version", "unknown blpk format version", "1, 2 or 3", version);
}

/**
 * Reads and checks the 32-byte header of a superchunk file, in the order of spec/v2.md §4.3.
 *
 * @param bytes - the file, or at least its first 32 bytes.
 * @param path - file name for error messages.
 * @throws FormatError TRUNCATED (`blpk.header`), BAD_MAGIC (`blpk.magic`), UNSUPPORTED_VERSION
 * (`blpk.version`: 1 and 3 included), BAD_HEADER (`blpk.options`, `blpk.checksum`,
 * `blpk.chunk_size`, `blpk.last_chunk`, `blpk.nchunks`, `blpk.meta_size`, `blpk.reserved`),
 * SIZE_LIMIT (`blpk.chunk_size`, `blpk.nchunks`).
 * @example
 * ```ts
 * const h = readSuperchunkHeader(file, "data/__1__.bin");
 * const metadata = file.subarray(32, 32 + h.metaSize);
 * ```
 */
export function readSuperchunkHeader(bytes: Uint8Array, path?: string): SuperchunkHeader {
  const version = sniffBlpkVersion(bytes, path);
  if (version !== 2) throw bad("UNSUPPORTED_VERSION", path, "blpk.version", "not a format-version-2 superchunk", 2, version);
  if (bytes.length < BLPK_V2_HEADER_SIZE) throw bad("TRUNCATED", path, "blpk.header", "file is shorter than the superchunk header", `>= ${BLPK_V2_HEADER_SIZE} bytes`, bytes.length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, BLPK_V2_HEADER_SIZE);
  const options = bytes[5]!;
  const checksumId = bytes[6]!;
  const typesize = bytes[7]!;
  const chunkSize = view.getInt32(8, true);
  const lastChunk = view.getInt32(12, true);
  const nchunksBig = view.getBigInt64(16, true);
  const metaSize = view.getInt32(24, true);
  const reserved = view.getUint32(28, true);
  const hasOffsets = (options & BLPK_V2_OPTIONS.OFFSETS) !== 0;
  const hasMetadata = (options & BLPK_V2_OPTIONS.METADATA) !== 0;

  if (options & ~0x03) throw bad("BAD_HEADER", path, "blpk.options", "reserved option bits 2-7 are set", "0x00..0x03", `0x${options.toString(16)}`);
  if (checksumId > 8) throw bad("BAD_HEADER", path, "blpk.checksum", "unknown checksum id", "0..8", checksumId);
  if (chunkSize === 0 || chunkSize < -1) throw bad("BAD_HEADER", path, "blpk.chunk_size", "chunk-size must be positive or -1 (unknown)", ">= 1 or -1", chunkSize);
  if (chunkSize > SUPERCHUNK_MAX_CHUNK_SIZE) throw bad("SIZE_LIMIT", path, "blpk.chunk_size", "chunk-size exceeds the largest Blosc chunk", `<= ${SUPERCHUNK_MAX_CHUNK_SIZE}`, chunkSize);
  if (nchunksBig < -1n) throw bad("BAD_HEADER", path, "blpk.nchunks", "nchunks must be >= 0 or -1 (unknown)", ">= 0 or -1", nchunksBig);
  if (nchunksBig > BigInt(Number.MAX_SAFE_INTEGER)) throw bad("SIZE_LIMIT", path, "blpk.nchunks", "nchunks is larger than any file can hold", `<= ${Number.MAX_SAFE_INTEGER}`, nchunksBig);
  const nchunks = Number(nchunksBig);
  if (nchunks === -1 && hasOffsets) throw bad("BAD_HEADER", path, "blpk.nchunks", "an offsets table needs a known chunk count", ">= 0 when option bit 0 is set", -1);
  if (lastChunk < -1) throw bad("BAD_HEADER", path, "blpk.last_chunk", "last-chunk must be >= 0 or -1 (unknown)", ">= 0 or -1", lastChunk);
  if (lastChunk !== -1 && chunkSize !== -1 && lastChunk > chunkSize) throw bad("BAD_HEADER", path, "blpk.last_chunk", "last-chunk is larger than chunk-size", `<= ${chunkSize} (chunk-size)`, lastChunk);
  if (nchunks === 0 && lastChunk > 0) throw bad("BAD_HEADER", path, "blpk.last_chunk", "a file without chunks has no last chunk", "0 or -1 when nchunks is 0", lastChunk);
  if (metaSize < 0) throw bad("BAD_HEADER", path, "blpk.meta_size", "meta-size is negative", ">= 0", metaSize);
  if (!hasMetadata && metaSize !== 0) throw bad("BAD_HEADER", path, "blpk.meta_size", "meta-size must be 0 when option bit 1 is clear", 0, metaSize);
  if (hasMetadata && metaSize < 2) throw bad("BAD_HEADER", path, "blpk.meta_size", "a metadata section holds at least a JSON object", ">= 2 when option bit 1 is set", metaSize);
  if (reserved !== 0) throw bad("BAD_HEADER", path, "blpk.reserved", "reserved bytes 28-31 are not zero", 0, reserved);
  return { version: 2, hasOffsets, hasMetadata, checksumId, typesize, chunkSize, lastChunk, nchunks, metaSize };
}

/**
 * Encodes a superchunk header. The inverse of {@link readSuperchunkHeader}: every value it would
 * reject is refused here too, so a writer cannot produce a header its own reader refuses.
 *
 * @param header - the fields (`version` may be omitted).
 * @param out - where to write (its first 32 bytes); a new array by default.
 * @throws UsageError INVALID_ARGUMENT for a value outside its field's range.
 * @example
 * ```ts
 * writeSuperchunkHeader({ hasOffsets: true, hasMetadata: true, checksumId: 1, typesize: 4, chunkSize: 8, lastChunk: 4, nchunks: 2, metaSize: 40 });
 * // 62 6C 70 6B 02 03 01 04 08 00 00 00 04 00 00 00 02 00 00 00 00 00 00 00 28 00 00 00 00 00 00 00
 * ```
 */
export function writeSuperchunkHeader(header: Omit<SuperchunkHeader, "version"> & { version?: 2 }, out: Uint8Array = new Uint8Array(BLPK_V2_HEADER_SIZE)): Uint8Array {
  if (out.length < BLPK_V2_HEADER_SIZE) throw new UsageError("INVALID_ARGUMENT", "output buffer is shorter than a superchunk header", { field: "out", expected: `>= ${BLPK_V2_HEADER_SIZE}`, actual: out.length });
  const ints = [["checksumId", header.checksumId], ["typesize", header.typesize], ["chunkSize", header.chunkSize], ["lastChunk", header.lastChunk], ["nchunks", header.nchunks], ["metaSize", header.metaSize]] as const;
  for (const [name, value] of ints) {
    if (!Number.isSafeInteger(value)) throw new UsageError("INVALID_ARGUMENT", `${name} must be an integer`, { field: name, actual: value });
  }
  if (header.checksumId < 0 || header.checksumId > 8) throw new UsageError("INVALID_ARGUMENT", "unknown checksum id", { field: "checksumId", expected: "0..8", actual: header.checksumId });
  if (header.typesize < 0 || header.typesize > 255) throw new UsageError("INVALID_ARGUMENT", "typesize must be a byte", { field: "typesize", expected: "0..255", actual: header.typesize });
  const options = (header.hasOffsets ? BLPK_V2_OPTIONS.OFFSETS : 0) | (header.hasMetadata ? BLPK_V2_OPTIONS.METADATA : 0);
  const bytes = new Uint8Array(BLPK_V2_HEADER_SIZE);
  bytes.set(MAGIC);
  bytes[4] = 2;
  bytes[5] = options;
  bytes[6] = header.checksumId;
  bytes[7] = header.typesize;
  const view = new DataView(bytes.buffer);
  const fits32 = (v: number): boolean => v >= -(2 ** 31) && v < 2 ** 31;
  if (![header.chunkSize, header.lastChunk, header.metaSize].every(fits32)) {
    throw new UsageError("INVALID_ARGUMENT", "chunk-size, last-chunk and meta-size are 32-bit fields", { field: "header", actual: [header.chunkSize, header.lastChunk, header.metaSize] });
  }
  view.setInt32(8, header.chunkSize, true);
  view.setInt32(12, header.lastChunk, true);
  view.setBigInt64(16, BigInt(header.nchunks), true);
  view.setInt32(24, header.metaSize, true);
  try {
    readSuperchunkHeader(bytes);
  } catch (e) {
    if (e instanceof FormatError) throw new UsageError("INVALID_ARGUMENT", `invalid superchunk header: ${e.reason}`, { field: e.field, expected: e.expected, actual: e.actual });
    throw e;
  }
  out.set(bytes);
  return out;
}
