/**
 * Arithmetic and consistency rules that tie superchunk files to a version-2 carray (spec/v2.md
 * §10.3–§10.4, §13.4): file names, where global chunk `g` lives, which chunks the length
 * requires, and the checks of a dataset superchunk's header, metadata and chunk sizes against the
 * carray's `meta/storage` and `meta/shape`.
 *
 * @example
 * ```ts
 * import { locateChunk, superchunkFileName } from "@fmt/header";
 * const { superchunk, local } = locateChunk(70, 64); // { superchunk: 2, local: 6 }
 * superchunkFileName(superchunk); // "data/__2__.bin"
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import type { SuperchunkHeader } from "./superchunk-header.js";

/**
 * Store key of superchunk `s` (1-based): `data/__s__.bin`.
 *
 * @throws UsageError INVALID_ARGUMENT for `s` < 1 or not an integer.
 * @example
 * ```ts
 * superchunkFileName(1); // "data/__1__.bin"
 * ```
 */
export function superchunkFileName(s: number): string {
  if (!Number.isSafeInteger(s) || s < 1) throw new UsageError("INVALID_ARGUMENT", "superchunk numbers start at 1", { field: "s", expected: ">= 1", actual: s });
  return `data/__${s}__.bin`;
}

/**
 * Store key of the journal side file of chunk `local` of superchunk `s`: `data/__s__.bin.i.next`.
 *
 * @example
 * ```ts
 * journalChunkFileName(1, 3); // "data/__1__.bin.3.next"
 * ```
 */
export function journalChunkFileName(s: number, local: number): string {
  if (!Number.isSafeInteger(local) || local < 0) throw new UsageError("INVALID_ARGUMENT", "local chunk indexes start at 0", { field: "local", expected: ">= 0", actual: local });
  return `${superchunkFileName(s)}.${local}.next`;
}

/**
 * Superchunk number and local index of global chunk `g` with `superchunksize` chunks per file.
 *
 * @example
 * ```ts
 * locateChunk(0, 4); // { superchunk: 1, local: 0 }
 * locateChunk(9, 4); // { superchunk: 3, local: 1 }
 * ```
 */
export function locateChunk(g: number, superchunksize: number): { superchunk: number; local: number } {
  if (!Number.isSafeInteger(g) || g < 0) throw new UsageError("OUT_OF_RANGE", "chunk index must be >= 0", { field: "g", expected: ">= 0", actual: g });
  if (!Number.isSafeInteger(superchunksize) || superchunksize < 1) throw new UsageError("INVALID_ARGUMENT", "superchunksize must be >= 1", { field: "superchunksize", expected: ">= 1", actual: superchunksize });
  return { superchunk: Math.floor(g / superchunksize) + 1, local: g % superchunksize };
}

/**
 * What the length requires (spec/v2.md §10.3): `N` chunks, the rows of the last one when it is
 * partial (`rest`, 0 when every chunk is full), and for each required superchunk `s` the number of
 * chunks `n_s` it must hold.
 *
 * @example
 * ```ts
 * requiredChunks(3, 2, 4); // { nchunks: 2, rest: 1, superchunks: [2] }
 * requiredChunks(10, 2, 2); // { nchunks: 5, rest: 0, superchunks: [2, 2, 1] }
 * ```
 */
export function requiredChunks(len: number, chunklen: number, superchunksize: number): { nchunks: number; rest: number; superchunks: number[] } {
  for (const [name, v, min] of [["len", len, 0], ["chunklen", chunklen, 1], ["superchunksize", superchunksize, 1]] as const) {
    if (!Number.isSafeInteger(v) || v < min) throw new UsageError("INVALID_ARGUMENT", `${name} must be an integer >= ${min}`, { field: name, actual: v });
  }
  const nchunks = Math.ceil(len / chunklen);
  const superchunks: number[] = [];
  for (let first = 0; first < nchunks; first += superchunksize) superchunks.push(Math.min(superchunksize, nchunks - first));
  return { nchunks, rest: len % chunklen, superchunks };
}

/**
 * What a dataset superchunk is checked against.
 *
 * @example
 * ```ts
 * const expect: DatasetSuperchunkExpectation = { s: 1, required: 2, chunklen: 2, atomsize: 4, superchunksize: 4 };
 * ```
 */
export interface DatasetSuperchunkExpectation {
  /** Superchunk number. */
  s: number;
  /** `n_s`: chunks the length requires in this file. */
  required: number;
  /** Rows per chunk. */
  chunklen: number;
  /** Bytes per row. */
  atomsize: number;
  /** `S` from `meta/storage`. */
  superchunksize: number;
}

/**
 * The checks of spec/v2.md §10.4 on a dataset superchunk's header and metadata, in the table's
 * order. Run after `readSuperchunkHeader` and the metadata section's parse.
 *
 * @param header - the file's header.
 * @param meta - `capacity` and `firstChunk` from its metadata section.
 * @param expected - what the carray's metadata says.
 * @param path - the file's key.
 * @throws FormatError BAD_HEADER (`blpk.options`), INCONSISTENT (`blpk.chunk_size`,
 * `blpk.nchunks`, `superchunk.meta/capacity`, `superchunk.meta/first_chunk`).
 * @example
 * ```ts
 * checkDatasetSuperchunk(header, { capacity: 4, firstChunk: 0 }, { s: 1, required: 2, chunklen: 2, atomsize: 4, superchunksize: 4 }, "data/__1__.bin");
 * ```
 */
export function checkDatasetSuperchunk(
  header: SuperchunkHeader,
  meta: { capacity?: number | undefined; firstChunk?: number | undefined },
  expected: DatasetSuperchunkExpectation,
  path?: string,
): void {
  const inconsistent = (field: string, reason: string, want: unknown, actual: unknown): FormatError => new FormatError("INCONSISTENT", reason, { path, field, expected: want, actual });
  if (!header.hasOffsets || !header.hasMetadata) {
    throw new FormatError("BAD_HEADER", "a dataset superchunk has an offsets table and a metadata section", { path, field: "blpk.options", expected: "0x03", actual: (header.hasOffsets ? 1 : 0) | (header.hasMetadata ? 2 : 0) });
  }
  if ((32 + header.metaSize) % 8 !== 0) {
    // Writers pad the metadata so the table is 8-aligned; a damaged meta-size shows up here (§6.1).
    throw new FormatError("BAD_HEADER", "the offsets table of a dataset superchunk starts at a multiple of 8", { path, field: "blpk.meta_size", expected: "32 + meta-size a multiple of 8", actual: header.metaSize });
  }
  const chunkSize = expected.chunklen * expected.atomsize;
  if (header.chunkSize !== chunkSize) throw inconsistent("blpk.chunk_size", "chunk-size is not chunklen × atomsize", chunkSize, header.chunkSize);
  if (header.nchunks < expected.required) throw inconsistent("blpk.nchunks", "the file holds fewer chunks than the length requires", `>= ${expected.required}`, header.nchunks);
  if (meta.capacity !== expected.superchunksize) throw inconsistent("superchunk.meta/capacity", "capacity is not the carray's superchunksize", expected.superchunksize, meta.capacity ?? "absent");
  const first = (expected.s - 1) * expected.superchunksize;
  if (meta.firstChunk !== first) throw inconsistent("superchunk.meta/first_chunk", "first_chunk does not match the file's number", first, meta.firstChunk ?? "absent");
}

/**
 * The size rule of spec/v2.md §10.4 for a required chunk: a full one holds exactly
 * `chunklen × atomsize` bytes; the last one, when the length leaves it `rest > 0` rows, holds a
 * multiple of atomsize between `rest × atomsize` and `chunklen × atomsize` (more rows than needed
 * remain after an interrupted write; the reader uses the first `rest`).
 *
 * @param nbytes - the chunk's Blosc `nbytes`.
 * @param rows - rows the length needs from this chunk (`chunklen` for a full one).
 * @throws FormatError INCONSISTENT, field `blosc.nbytes`.
 * @example
 * ```ts
 * checkRequiredChunkSize(8, 1, { chunklen: 2, atomsize: 4 }, "data/__1__.bin"); // fine: 2 rows stored, 1 needed
 * ```
 */
export function checkRequiredChunkSize(nbytes: number, rows: number, dims: { chunklen: number; atomsize: number }, path?: string): void {
  const full = dims.chunklen * dims.atomsize;
  const ok = rows === dims.chunklen ? nbytes === full : nbytes % dims.atomsize === 0 && nbytes >= rows * dims.atomsize && nbytes <= full;
  if (!ok) {
    throw new FormatError("INCONSISTENT", "chunk size does not match the length and chunklen", {
      path, field: "blosc.nbytes", expected: rows === dims.chunklen ? full : `a multiple of ${dims.atomsize} in ${rows * dims.atomsize}..${full}`, actual: nbytes,
    });
  }
}
