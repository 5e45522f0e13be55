/**
 * The per-chunk checksums of format version 2 (spec/v2.md §6): the nine checksum ids of the
 * bloscpack family, what each stores after a chunk, and the check that reports a mismatch with
 * the file, the chunk index and both values. Hashes come from `@noble/hashes`; Adler-32 and CRC-32
 * from this package's own zlib-compatible helpers.
 *
 * @example
 * ```ts
 * import { computeChunkChecksum, verifyChunkChecksum } from "@fmt/header";
 * const stored = computeChunkChecksum(1, chunk); // adler32, 4 bytes little-endian
 * verifyChunkChecksum(1, chunk, stored, { path: "data/__1__.bin", index: 0 });
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import { md5, sha1 } from "@noble/hashes/legacy.js";
import { sha224, sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { adler32, crc32 } from "./checksum.js";

/**
 * Names of the checksum kinds, in id order (id 0 = `"none"` … id 8 = `"sha512"`).
 *
 * @example
 * ```ts
 * const kind: ChecksumName = "crc32";
 * ```
 */
export type ChecksumName = "none" | "adler32" | "crc32" | "md5" | "sha1" | "sha224" | "sha256" | "sha384" | "sha512";

/**
 * One checksum kind: its id (header byte 6), name and the number of bytes stored after each chunk.
 *
 * @example
 * ```ts
 * const k: ChecksumKind = CHECKSUM_KINDS[6]!; // { id: 6, name: "sha256", size: 32 }
 * ```
 */
export interface ChecksumKind {
  /** Value of the header's checksum byte. */
  readonly id: number;
  /** Name used in `meta/storage` `checksum`. */
  readonly name: ChecksumName;
  /** Bytes stored after every chunk (0 for none). */
  readonly size: number;
}

/**
 * Every checksum kind by id. Ids outside `0 … 8` are not defined.
 *
 * @example
 * ```ts
 * CHECKSUM_KINDS.map((k) => k.name); // ["none", "adler32", "crc32", "md5", ...]
 * ```
 */
export const CHECKSUM_KINDS: readonly ChecksumKind[] = Object.freeze([
  { id: 0, name: "none", size: 0 },
  { id: 1, name: "adler32", size: 4 },
  { id: 2, name: "crc32", size: 4 },
  { id: 3, name: "md5", size: 16 },
  { id: 4, name: "sha1", size: 20 },
  { id: 5, name: "sha224", size: 28 },
  { id: 6, name: "sha256", size: 32 },
  { id: 7, name: "sha384", size: 48 },
  { id: 8, name: "sha512", size: 64 },
].map((k) => Object.freeze(k as ChecksumKind)));

/**
 * The checksum kind with this id.
 *
 * @param id - header byte 6.
 * @throws UsageError INVALID_ARGUMENT for an id outside `0 … 8` (readers check the header first).
 * @example
 * ```ts
 * checksumKind(2).size; // 4
 * ```
 */
export function checksumKind(id: number): ChecksumKind {
  const kind = Number.isInteger(id) ? CHECKSUM_KINDS[id] : undefined;
  if (kind === undefined) {
    throw new UsageError("INVALID_ARGUMENT", "unknown checksum id", { field: "checksum", expected: "0..8", actual: id });
  }
  return kind;
}

/**
 * The checksum kind with this name (as `meta/storage` spells it).
 *
 * @throws UsageError INVALID_ARGUMENT for an unknown name.
 * @example
 * ```ts
 * checksumKindByName("sha256").id; // 6
 * ```
 */
export function checksumKindByName(name: string): ChecksumKind {
  const kind = CHECKSUM_KINDS.find((k) => k.name === name);
  if (kind === undefined) {
    throw new UsageError("INVALID_ARGUMENT", "unknown checksum name", { field: "checksum", expected: CHECKSUM_KINDS.map((k) => k.name).join(", "), actual: name });
  }
  return kind;
}

function u32le(value: number): Uint8Array {
  return Uint8Array.of(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, value >>> 24);
}

/**
 * The bytes stored after a chunk for checksum `id`: nothing for none, the 32-bit Adler-32 or
 * CRC-32 as 4 little-endian bytes, the raw digest for the hashes. `chunk` is the whole stored
 * Blosc chunk, its 16-byte header included (`cbytes` bytes).
 *
 * @param id - checksum id `0 … 8`.
 * @param chunk - the stored Blosc chunk.
 * @param bind - the chunk's global index when the file has a metadata section (spec/v2.md §6
 * "Binding"): XORed into the first `min(size, 8)` bytes; omit for files without metadata.
 * @throws UsageError INVALID_ARGUMENT for an unknown id.
 * @example
 * ```ts
 * computeChunkChecksum(1, new TextEncoder().encode("abc"));    // Uint8Array [0x27, 0x01, 0x4d, 0x02]
 * computeChunkChecksum(1, new TextEncoder().encode("abc"), 1); // Uint8Array [0x26, 0x01, 0x4d, 0x02]
 * ```
 */
export function computeChunkChecksum(id: number, chunk: Uint8Array, bind?: number): Uint8Array {
  const sum = plainChecksum(id, chunk);
  if (bind !== undefined) bindChecksum(sum, bind);
  return sum;
}

function plainChecksum(id: number, chunk: Uint8Array): Uint8Array {
  switch (checksumKind(id).name) {
    case "none":
      return new Uint8Array(0);
    case "adler32":
      return u32le(adler32(chunk));
    case "crc32":
      return u32le(crc32(chunk));
    case "md5":
      return md5(chunk);
    case "sha1":
      return sha1(chunk);
    case "sha224":
      return sha224(chunk);
    case "sha256":
      return sha256(chunk);
    case "sha384":
      return sha384(chunk);
    case "sha512":
      return sha512(chunk);
  }
}

/**
 * XORs the global chunk index `g` into the first `min(size, 8)` bytes of a checksum, read as a
 * little-endian unsigned integer (spec/v2.md §6 "Binding"), in place. A chunk read from the slot of
 * another index then fails its comparison even though its own checksum is intact.
 */
function bindChecksum(sum: Uint8Array, g: number): void {
  if (!Number.isSafeInteger(g) || g < 0) throw new UsageError("INVALID_ARGUMENT", "a checksum binds a non-negative chunk index", { field: "bind", actual: g });
  let rest = BigInt(g);
  for (let k = 0; k < Math.min(sum.length, 8); k++) {
    sum[k] = sum[k]! ^ Number(rest & 0xffn);
    rest >>= 8n;
  }
}

function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/**
 * Compares the stored checksum of chunk `index` with the checksum of its bytes.
 *
 * @param id - checksum id from the superchunk header.
 * @param chunk - the stored Blosc chunk (`cbytes` bytes).
 * @param stored - the bytes that follow it in the file (exactly the kind's size).
 * @param where - the file and the chunk's index inside it, for the error; `bind`, the global index
 * the stored value is bound to (files with a metadata section, see {@link computeChunkChecksum});
 * `crc32`, the CRC-32 of `chunk` computed elsewhere (a `Crc32Offload`), used instead of
 * computing it again when the file's checksum is CRC-32.
 * @throws FormatError CHECKSUM_MISMATCH, field `chunk[<index>].checksum`, `expected` = the stored
 * value and `actual` = the computed value, both in hex.
 * @example
 * ```ts
 * verifyChunkChecksum(2, chunk, file.subarray(end, end + 4), { path: "data/__1__.bin", index: 3 });
 * ```
 */
export function verifyChunkChecksum(id: number, chunk: Uint8Array, stored: Uint8Array, where: { path?: string | undefined; index: number; bind?: number | undefined; crc32?: number | undefined }): void {
  let computed: Uint8Array;
  if (where.crc32 !== undefined && checksumKind(id).name === "crc32") {
    computed = u32le(where.crc32);
    if (where.bind !== undefined) bindChecksum(computed, where.bind);
  } else {
    computed = computeChunkChecksum(id, chunk, where.bind);
  }
  let same = computed.length === stored.length;
  for (let i = 0; same && i < computed.length; i++) same = computed[i] === stored[i];
  if (!same) {
    throw new FormatError("CHECKSUM_MISMATCH", `chunk ${where.index}: stored ${checksumKind(id).name} differs from the checksum of its bytes`, {
      path: where.path, field: `chunk[${where.index}].checksum`, expected: hex(stored), actual: hex(computed),
    });
  }
}
