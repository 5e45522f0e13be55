/**
 * The blocks of a Blosc 1.x chunk, encoded one after the other into the room of the chunk (what
 * `compress` does below the chunk header): each block filtered (shuffle or bitshuffle), split
 * by the forward-compatible split rule, each split compressed with its codec or stored raw when
 * the stream would not be shorter, exactly as c-blosc 1.21 lays them out. The kernels encode a
 * block in one call when they have the codec; otherwise the TypeScript codecs, zlib (the given
 * `ZlibCodec`, else fflate) and the zstd encoder run split by split.
 *
 * @example
 * ```ts
 * const cbytes = compressBlocks(job, kernels, kernelsHaveTheCodec, room); // 0: store the chunk memcpyed
 * ```
 * @module
 */
import { BLOSC_HEADER_SIZE, type CodecName } from "@fmt/header";
import { zlibSync } from "fflate";
import { encodeBlosclz } from "./codecs/blosclz.js";
import { encodeLz4, encodeLz4hc } from "./codecs/lz4.js";
import { encodeSnappy } from "./codecs/snappy.js";
import { bitshuffleBlock, shuffleBlock } from "./shuffle-forward.js";
import type { WasmCodecName, WasmKernels } from "./wasm/index.js";
import type { ZlibCodec } from "./zlib.js";
import { zstdLevelFor, type ZstdEncoder } from "./zstd-encode.js";

/**
 * What {@link compressBlocks} encodes: the chunk's bytes and the choices made for it.
 *
 * @example
 * ```ts
 * const job: BlockJob = { data, typesize: 8, blocksize: 131072, clevel: 5, cname: "lz4", shuffle: 1, dontSplit: false, zstd: undefined, zlib: undefined };
 * ```
 */
export interface BlockJob {
  data: Uint8Array;
  typesize: number;
  blocksize: number;
  clevel: number;
  cname: CodecName;
  shuffle: 0 | 1 | 2;
  dontSplit: boolean;
  zstd: ZstdEncoder | undefined;
  zlib: ZlibCodec | undefined;
}

function writeI32(out: Uint8Array, offset: number, value: number): void {
  out[offset] = value;
  out[offset + 1] = value >>> 8;
  out[offset + 2] = value >>> 16;
  out[offset + 3] = value >>> 24;
}

/**
 * Encodes the chunk's body into `room` (`nbytes + 16` bytes; its 16 header bytes are left for the
 * caller) and returns the chunk's length, or 0 when it does not fit in `room`: c-blosc then writes
 * a memcpyed chunk. `wasm`: the kernels for the filters (and for the codec, with `wasmCodec`);
 * without them everything runs in TypeScript.
 *
 * @example
 * ```ts
 * const cbytes = compressBlocks(job, undefined, false, new Uint8Array(job.data.length + 16));
 * ```
 */
export function compressBlocks(job: BlockJob, wasm: WasmKernels | undefined, wasmCodec: boolean, room: Uint8Array): number {
  const { data, typesize, blocksize, clevel, cname, shuffle, dontSplit, zstd, zlib } = job;
  const nbytes = data.length;
  const maxbytes = nbytes + BLOSC_HEADER_SIZE;
  const leftover = nbytes % blocksize;
  const nblocks = Math.floor(nbytes / blocksize) + (leftover > 0 ? 1 : 0);
  let ntbytes = BLOSC_HEADER_SIZE + 4 * nblocks;
  if (ntbytes > maxbytes) return 0;
  const out = room;
  const scratch = shuffle !== 0 && !wasmCodec ? new Uint8Array(Math.min(blocksize, nbytes)) : undefined;
  for (let j = 0; j < nblocks; j++) {
    const isLeftover = j === nblocks - 1 && leftover > 0;
    const bsize = isLeftover ? leftover : blocksize;
    const block = data.subarray(j * blocksize, j * blocksize + bsize);
    const nsplits = !dontSplit && !isLeftover ? typesize : 1;
    writeI32(out, BLOSC_HEADER_SIZE + 4 * j, ntbytes);
    if (wasmCodec && wasm !== undefined) {
      // A large chunk in the kernels, block by block (see encodeInKernels in compress.ts; the same bytes).
      const written = wasm.encodeBlockInto(block, { typesize, nsplits, codec: cname as WasmCodecName, shuffle, clevel }, room, ntbytes);
      if (ntbytes + written > maxbytes) return 0;
      ntbytes += written;
      continue;
    }
    const filtered = filterBlock(block, scratch, typesize, shuffle, wasm);
    const neblock = Math.floor(bsize / nsplits);
    for (let s = 0; s < nsplits; s++) {
      ntbytes += 4;
      // Snappy gets its worst-case bound, so its stream may be longer than the split.
      let maxout = cname === "snappy" ? 32 + neblock + Math.floor(neblock / 6) : neblock;
      if (ntbytes + maxout > maxbytes) {
        maxout = maxbytes - ntbytes;
        if (maxout <= 0) return 0;
      }
      const src = filtered.subarray(s * neblock, (s + 1) * neblock);
      let cbytes = encodeStream(cname, clevel, src, out.subarray(ntbytes, ntbytes + maxout), zstd, zlib);
      if (cbytes === 0 || cbytes === neblock) {
        if (ntbytes + neblock > maxbytes) return 0;
        out.set(src, ntbytes);
        cbytes = neblock;
      }
      writeI32(out, ntbytes - 4, cbytes);
      ntbytes += cbytes;
    }
  }
  return ntbytes;
}

function filterBlock(block: Uint8Array, scratch: Uint8Array | undefined, typesize: number, shuffle: 0 | 1 | 2, wasm: WasmKernels | undefined): Uint8Array {
  if (scratch === undefined) return block;
  const dst = scratch.subarray(0, block.length);
  if (shuffle === 1 && typesize > 1) {
    if (wasm !== undefined) wasm.shuffle(block, typesize, dst);
    else shuffleBlock(block, dst, typesize);
    return dst;
  }
  if (shuffle === 2 && block.length >= typesize) {
    if (wasm !== undefined) wasm.bitshuffle(block, typesize, dst);
    else bitshuffleBlock(block, dst, typesize);
    return dst;
  }
  return block;
}

/** Encode one split into `dst` (sized to the allowed output); 0 when it does not fit. */
function encodeStream(cname: CodecName, clevel: number, src: Uint8Array, dst: Uint8Array, zstd: ZstdEncoder | undefined, zlib: ZlibCodec | undefined): number {
  switch (cname) {
    case "blosclz":
      return encodeBlosclz(src, dst, clevel);
    case "lz4":
      return encodeLz4(src, dst, 10 - clevel);
    case "lz4hc":
      return encodeLz4hc(src, dst, clevel);
    case "snappy":
      // c-blosc's snappy wrapper fails (and the split is stored raw) whenever the room left is
      // below Snappy's worst-case bound, whatever the actual output size would be.
      return dst.length < 32 + src.length + Math.floor(src.length / 6) ? 0 : encodeSnappy(src, dst);
    case "zlib":
      return copyIfFits(zlib !== undefined ? zlib.deflate(src, clevel) : zlibSync(src, { level: clevel as 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 }), dst);
    case "zstd": {
      // compress() resolved the encoder (or threw) before any block was encoded
      const encoder = zstd!;
      const level = zstdLevelFor(clevel);
      return encoder.compressInto !== undefined ? encoder.compressInto(src, dst, level) : copyIfFits(encoder.compress(src, level), dst);
    }
  }
}

function copyIfFits(stream: Uint8Array, dst: Uint8Array): number {
  if (stream.length > dst.length) return 0;
  dst.set(stream);
  return stream.length;
}
