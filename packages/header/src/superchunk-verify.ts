/**
 * Whole-file verification of a superchunk (spec/v2.md §15): every live chunk is read and its
 * checksum compared, and every problem is collected instead of stopping at the first, with the
 * overlap check that ordinary reads skip.
 *
 * @example
 * ```ts
 * import { verifySuperchunk } from "@fmt/header";
 * const { problems } = verifySuperchunk(file, { capacity: 64, path: "data/__1__.bin" });
 * for (const p of problems) console.log(p.path, p.field, p.code);
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { readSuperchunkHeader, type SuperchunkHeader } from "./superchunk-header.js";
import { readOffsets, readSuperchunkChunk, walkChunkOffsets } from "./superchunk-layout.js";
import { checksumKind } from "./superchunk-checksum.js";

/**
 * Result of {@link verifySuperchunk}.
 *
 * @example
 * ```ts
 * const report: SuperchunkReport = verifySuperchunk(file, { capacity: 4 });
 * report.problems.length === 0; // a clean file
 * ```
 */
export interface SuperchunkReport {
  /** The file's header. */
  header: SuperchunkHeader;
  /** Offsets of the live chunks (from the table, or found by walking a file without one). */
  offsets: number[];
  /** One error per bad chunk (field `chunk[i]…` or `blosc.…`), plus one per chunk that overlaps an earlier-starting one (`offsets[i]`). */
  problems: FormatError[];
}

/**
 * Reads every live chunk of a superchunk (or its first `chunks`), verifying each checksum, and
 * reports every failing chunk. Live chunks (bytes and checksum) must not overlap; each overlap is
 * reported as `BAD_HEADER` on the later chunk's `offsets[i]`. Problems with the header, the
 * metadata size or the offsets table make the file unreadable and are thrown, not collected.
 *
 * @param file - the whole file.
 * @param opts - `capacity` and `firstChunk` (its `first_chunk`, for the checksum binding) from the
 * metadata section, `path` for errors, `chunks` to check only the first chunks (the ones a
 * dataset's length requires), `verify: false` to skip the checksums (a caller that compared them
 * already and wants the layout checks only).
 * @throws FormatError from `readSuperchunkHeader`, `readOffsets` or `walkChunkOffsets`.
 * @example
 * ```ts
 * const { problems } = verifySuperchunk(file, { capacity: 4, path: "data/__1__.bin" });
 * problems.map((p) => `${p.field}: ${p.code}`); // e.g. ["chunk[1].checksum: CHECKSUM_MISMATCH"]
 * ```
 */
export function verifySuperchunk(file: Uint8Array, opts: { capacity?: number | undefined; path?: string | undefined; chunks?: number | undefined; firstChunk?: number | undefined; verify?: boolean | undefined } = {}): SuperchunkReport {
  const { path } = opts;
  const header = readSuperchunkHeader(file, path);
  const offsets = header.hasOffsets ? readOffsets(file, header, { capacity: opts.capacity, fileLength: file.length, path }) : walkChunkOffsets(file, header, path);
  const count = Math.min(offsets.length, opts.chunks ?? offsets.length);
  const problems: FormatError[] = [];
  const spans: { index: number; start: number; end: number }[] = [];
  const size = checksumKind(header.checksumId).size;
  for (let i = 0; i < count; i++) {
    try {
      const { blosc } = readSuperchunkChunk(file.subarray(offsets[i]), header, i, { path, firstChunk: opts.firstChunk, verify: opts.verify !== false });
      spans.push({ index: i, start: offsets[i]!, end: offsets[i]! + blosc.cbytes + size });
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      problems.push(e);
    }
  }
  spans.sort((a, b) => a.start - b.start || a.index - b.index);
  // Compare each chunk with the earlier one reaching furthest, not just its neighbour: a long
  // chunk can cover several later ones.
  let prev = spans[0]!;
  for (let k = 1; k < spans.length; k++) {
    const cur = spans[k]!;
    if (cur.start < prev.end) {
      problems.push(new FormatError("BAD_HEADER", `chunk ${cur.index} overlaps chunk ${prev.index}`, {
        path, field: `offsets[${cur.index}]`, expected: `>= ${prev.end} (end of chunk ${prev.index})`, actual: cur.start,
      }));
    }
    if (cur.end > prev.end) prev = cur;
  }
  return { header, offsets, problems };
}
