/**
 * Block encoding in a kernels instance's memory (the `WasmKernels` encode methods call these):
 * one block filtered, split and compressed into streams laid out as Blosc 1.x lays out a block,
 * and a whole chunk's blocks encoded one after another in one region, left there for the writer.
 * Browser-safe: no `node:` imports, no `Buffer`.
 *
 * @example
 * ```ts
 * const body = kernels.encodeBlock(block, { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 });
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import { BLOSC_HEADER_SIZE as BLOSC_CHUNK_HEADER } from "@fmt/header";
import { blockCodec } from "./kernel-abi.js";
import type { KernelArena } from "./kernel-abi.js";
import type { EncodeBlockOptions } from "./types.js";

/**
 * Encode one block: filter, split into `nsplits` streams, compress each (stored raw unless the
 * stream is shorter than the split) and write each as i32 csize + bytes, exactly as a Blosc 1.x
 * block is laid out after its bstart.
 *
 * @returns the block's bytes (at most `block.length + 4 * nsplits`).
 * @example
 * ```ts
 * const body = encodeBlockIn(arena, block, { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 });
 * ```
 */
export function encodeBlockIn(arena: KernelArena, block: Uint8Array, options: EncodeBlockOptions): Uint8Array {
  const codecNumber = blockCodec(block.length, options);
  const [ps = 0, pd = 0, pscratch = 0] = arena.reserve(block.length, block.length + 4 * options.nsplits, 2 * block.length);
  const length = encodeBlockAt(arena, block, options, codecNumber, ps, pd, pscratch);
  return arena.heap().slice(pd, pd + length);
}

/**
 * {@link encodeBlockIn} written straight into `out` at `offset`. When the encoded
 * block is longer than the room left in `out`, nothing is written.
 *
 * @returns the encoded length (written when `offset + length <= out.length`).
 * @example
 * ```ts
 * const n = encodeBlockIntoIn(arena, block, { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 }, chunk, 16 + 4 * nblocks);
 * ```
 */
export function encodeBlockIntoIn(arena: KernelArena, block: Uint8Array, options: EncodeBlockOptions, out: Uint8Array, offset: number): number {
  const codecNumber = blockCodec(block.length, options);
  const [ps = 0, pd = 0, pscratch = 0] = arena.reserve(block.length, block.length + 4 * options.nsplits, 2 * block.length);
  const length = encodeBlockAt(arena, block, options, codecNumber, ps, pd, pscratch);
  if (offset + length <= out.length) out.set(arena.heap().subarray(pd, pd + length), offset);
  return length;
}

/**
 * The blocks of a chunk (`blocksize` bytes each, the last one shorter), each encoded as by
 * {@link encodeBlockIn} (`nsplits` streams, one for the short last block) one after
 * another in one region of the module's memory, the block starts written: the whole Blosc chunk
 * but its 16-byte header, which is the caller's to write, after `headroom` free bytes. No copy
 * out: the result is a view of the module's memory, valid until the next call on these kernels.
 * The memory grows to hold the whole chunk (callers keep this for chunks of a few MiB).
 * `undefined` for empty data and when the chunk would pass `data.length + 16` bytes (c-blosc
 * stores it raw then).
 *
 * @example
 * ```ts
 * const region = encodeChunkTransientIn(arena, rows, { blocksize: 131072, typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 }, 16);
 * const chunk = region?.subarray(16); // header at chunk[0..16), then block starts and blocks
 * ```
 */
export function encodeChunkTransientIn(arena: KernelArena, data: Uint8Array, options: EncodeBlockOptions & { blocksize: number }, headroom = 0): Uint8Array | undefined {
  const { blocksize, nsplits } = options;
  const nbytes = data.length;
  const nblocks = Math.ceil(nbytes / blocksize);
  const maxbytes = nbytes + BLOSC_CHUNK_HEADER;
  let ntbytes = BLOSC_CHUNK_HEADER + 4 * nblocks;
  if (nbytes === 0 || ntbytes > maxbytes) return undefined;
  const first = Math.min(blocksize, nbytes);
  const codecNumber = blockCodec(first, first === blocksize ? options : { ...options, nsplits: 1 });
  // c-blosc's limit plus one block's worst case: the encoder never writes past the region.
  const [region = 0, ps = 0, pscratch = 0] = arena.reserve(headroom + maxbytes + first + 4 * nsplits, first, 2 * first);
  const chunk = region + headroom;
  for (let j = 0; j < nblocks; j++) {
    const block = data.subarray(j * blocksize, Math.min(nbytes, (j + 1) * blocksize));
    const at = chunk + BLOSC_CHUNK_HEADER + 4 * j;
    arena.heap().set([ntbytes & 0xff, (ntbytes >>> 8) & 0xff, (ntbytes >>> 16) & 0xff, ntbytes >>> 24], at);
    ntbytes += encodeBlockAt(arena, block, { ...options, nsplits: block.length === blocksize ? nsplits : 1 }, codecNumber, ps, chunk + ntbytes, pscratch);
    if (ntbytes > maxbytes) return undefined;
  }
  return arena.heap().subarray(region, chunk + ntbytes);
}

/** Encodes one block, copied to `ps`, at `pd` (room for `block.length + 4 * nsplits` bytes); its length. */
function encodeBlockAt(arena: KernelArena, block: Uint8Array, options: EncodeBlockOptions, codecNumber: number, ps: number, pd: number, pscratch: number): number {
  const { typesize, nsplits, shuffle, clevel } = options;
  arena.heap().set(block, ps);
  const r = arena.exports.encode_block(ps, block.length, typesize, nsplits, codecNumber, shuffle, clevel, pd, block.length + 4 * nsplits, pscratch);
  if (r < 0) throw new UsageError("INVALID_ARGUMENT", "block could not be encoded", { field: "block", actual: r });
  return r;
}
