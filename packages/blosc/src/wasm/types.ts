/**
 * The types of the WebAssembly kernels' API: the options of `WasmKernels.encodeBlock` and
 * `WasmKernels.decodeChunk`, the codec names the block encoder takes, and the zstd arena that
 * `WasmKernels.zstdArena` hands out. Types only: nothing here runs.
 *
 * @example
 * ```ts
 * import type { EncodeBlockOptions } from "./types.js";
 * const options: EncodeBlockOptions = { typesize: 8, nsplits: 8, codec: "lz4", shuffle: 1, clevel: 5 };
 * ```
 * @module
 */

/**
 * Module memory for decoding one zstd stream with the sequence kernel ({@link WasmKernels.zstdArena}).
 *
 * @example
 * ```ts
 * const arena = kernels.zstdArena(stream, neblock);
 * decodeZstd(arena.src, arena.dst, path, undefined, arena.sequences);
 * ```
 */
export interface ZstdArena {
  /** The stream, copied into module memory. */
  readonly src: Uint8Array;
  /** Where the stream decodes (module memory). */
  readonly dst: Uint8Array;
  /**
   * Runs one block's sequences: the table entries, positions and repeated offsets in, the new
   * positions, repeated offsets, sequences run and error (0, or the kernel's SEQ_* code with
   * its two numbers) out.
   */
  run(
    start: number, end: number, nbSeq: number,
    tables: readonly { readonly symbol: Uint8Array; readonly bits: Uint8Array; readonly base: Uint16Array; readonly accuracy: number }[],
    literals: number, frameStart: number, blockStart: number, blockEnd: number, rep: [number, number, number],
  ): { code: number; out: number; lit: number; a: number; b: number; done: number };
  /**
   * Decodes one Huffman literal stream `src[start, end)` (end marker checked by the caller) into
   * `dst[from, to)` through `table`; returns the bits left (0 for a stream consumed exactly).
   */
  huffman(start: number, end: number, table: { readonly maxBits: number; readonly symbol: Uint8Array; readonly bits: Uint8Array }, from: number, to: number): number;
  /**
   * Decodes the four Huffman literal streams `bounds` delimit (end markers checked by the
   * caller) side by side into `dst`: streams 0–2 get `segment` bytes each from `base`, stream 3
   * the rest up to `end`. Returns each stream's bits left.
   */
  huffman4(bounds: readonly number[], table: { readonly maxBits: number; readonly symbol: Uint8Array; readonly bits: Uint8Array }, base: number, segment: number, end: number): [number, number, number, number];
  /**
   * Undoes the byte shuffle of `dst` (its first `out.length` bytes, elements of `typesize`) into
   * `out`, in module memory then one copy out; only for an arena made with `unshuffleRoom`.
   */
  unshuffleInto(typesize: number, out: Uint8Array): void;
}

/** Codec a stream encoder of {@link WasmKernels.encodeBlock} can use. */
export type WasmCodecName = "blosclz" | "lz4" | "lz4hc";

/** Options of {@link WasmKernels.encodeBlock}. */
export interface EncodeBlockOptions {
  /** Element size for the filter and the split, 1..255. */
  typesize: number;
  /** Streams to cut the filtered block into: 1, or `typesize` (must divide the block length). */
  nsplits: number;
  /** Stream codec. */
  codec: WasmCodecName;
  /** 0 none, 1 byte shuffle, 2 bit shuffle. */
  shuffle: 0 | 1 | 2;
  /** Blosc clevel 1..9 (lz4: acceleration 10 - clevel; lz4hc: search depth 2^clevel). */
  clevel: number;
}

/** Options of {@link WasmKernels.decodeChunk}. */
export interface DecodeChunkOptions {
  /** Destination; defaults to a new array of exactly the decoded length. */
  out?: Uint8Array;
  /** First block to decode (default 0). */
  firstBlock?: number;
  /** One past the last block to decode (default: every block). */
  endBlock?: number;
  /** File or key named in errors. */
  path?: string;
  /** Bytes of the decoded blocks to skip before copying out (default 0). */
  skip?: number;
  /** Bytes to copy out after `skip` (default: the rest of the decoded blocks). */
  length?: number;
}
