/**
 * The TypeScript decoding of one Blosc block: which filter it was stored with, its streams (one,
 * or one per byte of the type when split) decoded through the kernels into place, then byte or
 * bit unshuffled, and the filter scratch the unshuffle reads from. Every TypeScript decoding path
 * (whole chunks, byte ranges, single blocks) comes down to this; the WebAssembly path decodes
 * blocks in its own memory instead.
 *
 * A module of its own because it is the container logic below the decoding entry points of
 * decompress.ts: it needs a validated plan and the kernels to use, nothing of the choice between
 * them (decode-backend.ts).
 *
 * @example
 * ```ts
 * const out = new Uint8Array(plan.header.blocksize);
 * decodeBlock(chunk, 0, plan, 0, out, scratchFor(plan.header), kernels);
 * ```
 * @module
 */
import { BcolzError, FormatError } from "@fmt/errors";
import { BLOSC_FLAGS, splitCount } from "@fmt/header";
import type { ChunkHeader } from "@fmt/header";
import { readI32 } from "./plan.js";
import type { ChunkPlan } from "./plan.js";
import type { BloscKernels } from "./decode-backend.js";

/**
 * The filter a block of `bsize` bytes was stored with: 0 none, 1 byte shuffle, 2 bit shuffle. @internal
 *
 * @example
 * ```ts
 * filterOf(header.flags, header.typesize, header.blocksize); // 1: byte shuffle
 * ```
 */
export function filterOf(flags: number, typesize: number, bsize: number): 0 | 1 | 2 {
  // Same precedence as c-blosc's blosc_d: byte shuffle needs typesize > 1, and only when it does
  // not apply is bit 2 looked at (so both bits with typesize 1 means bit unshuffle).
  if (flags & BLOSC_FLAGS.SHUFFLE && typesize > 1) return 1;
  if (flags & BLOSC_FLAGS.BITSHUFFLE && bsize >= typesize) return 2;
  return 0;
}

/**
 * Decodes block j into dest (exactly its size). `bytes[0]` is chunk offset `base` (0 for a whole
 * chunk, the block's start for a window holding one block). `scratch` holds at least blocksize
 * bytes and receives the still-filtered block when a filter applies.
 *
 * The block's streams must have been checked first (`checkStreams`).
 *
 * @example
 * ```ts
 * decodeBlock(window, windowStart, plan, j, dest, scratchFor(plan.header), kernels);
 * ```
 */
export function decodeBlock(bytes: Uint8Array, base: number, p: ChunkPlan, j: number, dest: Uint8Array, scratch: Uint8Array | undefined, k: BloscKernels): void {
  const { header, nblocks, leftover, path } = p;
  const isLeftover = j === nblocks - 1 && leftover > 0;
  const bsize = isLeftover ? leftover : header.blocksize;
  const typesize = header.typesize;
  const nsplits = splitCount(header, bsize, isLeftover);
  const neblock = bsize / nsplits;
  const filter = filterOf(header.flags, typesize, bsize);
  const target = filter === 0 ? dest : scratch!;
  const decode = k.codecs[header.codec!];
  let pos = p.bstarts[j]! - base;
  // A lone byte-shuffled stream that the kernels decode and unshuffle in one go lands in `dest`.
  const fused = filter === 1 && nsplits === 1 ? k.decodeUnshuffled : undefined;
  let unshuffled = false;
  for (let s = 0, out = 0; s < nsplits; s++, out += neblock) {
    const csize = readI32(bytes, pos);
    pos += 4;
    const part = target.subarray(out, out + neblock);
    if (csize === neblock) {
      part.set(bytes.subarray(pos, pos + neblock));
    } else {
      let written: number | undefined;
      try {
        const stream = bytes.subarray(pos, pos + csize);
        written = fused?.(header.codec!, stream, dest.subarray(0, bsize), typesize, path);
        if (written === undefined) written = decode(stream, part, path);
        else unshuffled = true;
      } catch (e) {
        throw streamError(e, `blosc.blocks[${j}].streams[${s}]`, path);
      }
      if (written !== neblock) {
        throw new FormatError("CORRUPT_STREAM", "stream decodes to the wrong length", { path, field: `blosc.blocks[${j}].streams[${s}]`, expected: neblock, actual: written });
      }
    }
    pos += csize;
  }
  if (filter === 1 && !unshuffled) k.unshuffle(target, dest, typesize, bsize);
  else if (filter === 2) k.bitunshuffle(target, dest, typesize, bsize);
}

function streamError(e: unknown, field: string, path: string | undefined): BcolzError {
  if (e instanceof BcolzError) {
    if (e.path !== undefined || path === undefined) return e;
    return e.withPath(path);
  }
  // Codec decoders only throw FormatError on purpose; anything else is a decoder defect exposed by
  // a malformed stream, still reported as a corrupt stream rather than leaking a RangeError.
  return new FormatError("CORRUPT_STREAM", `stream does not decode: ${e instanceof Error ? e.message : String(e)}`, { path, field, cause: e });
}

function needsScratch(header: ChunkHeader): boolean {
  return (header.flags & (BLOSC_FLAGS.SHUFFLE | BLOSC_FLAGS.BITSHUFFLE)) !== 0;
}

// Filter scratch for the TypeScript path, kept between calls (JavaScript calls do not interleave).
let scratchBuffer = new Uint8Array(0);
/**
 * The filter scratch of a chunk's blocks: `undefined` when the header has neither shuffle flag,
 * else at least `blocksize` bytes, shared by every call.
 *
 * @example
 * ```ts
 * const scratch = scratchFor(plan.header);
 * ```
 */
export function scratchFor(header: ChunkHeader): Uint8Array | undefined {
  if (!needsScratch(header)) return undefined;
  if (scratchBuffer.length < header.blocksize) scratchBuffer = new Uint8Array(header.blocksize);
  return scratchBuffer;
}
