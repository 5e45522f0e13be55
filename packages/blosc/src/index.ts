/**
 * Blosc 1.x chunk decoding for bcolz-ts: memcpyed and compressed chunks, all six compressors
 * (blosclz, lz4/lz4hc, snappy, zlib, zstd), byte shuffle and bit shuffle, whole-chunk and partial
 * (`getitem`) decompression, with every size validated before anything is allocated.
 *
 * @example
 * ```ts
 * import { decompress, getitem, readChunkHeader } from "@fmt/blosc";
 * const chunk = fileBytes.subarray(16);            // skip the blpk header of a __N.blp file
 * const all = decompress(chunk, { path: "data/__0.blp", maxBytes: 8 * 1024 });
 * const tenth = getitem(chunk, 10, 1);             // one item of the header's typesize
 * ```
 * @packageDocumentation
 */
export { comparePlanned, decodeBlockInto, decompress, decompressInto, decompressPlannedInto, decompressPlannedTransient, decompressRange, decompressRangePlannedInto, getitem, sumTransientFloat64 } from "./decompress.js";
export type { PlaneComparison } from "./wasm/kernel-compare.js";
export { blockExtent, chunkHeadLength, planChunk, planChunkHead } from "./plan.js";
export { blockStreams, decodeBytePieces, planBytePieces } from "./element-pieces.js";
export type { BlockStreams, BytePiece } from "./element-pieces.js";
export type { ChunkPlan, DecompressOptions, PlanOptions } from "./plan.js";
export type { ChunkCodecPool, LentChunk } from "./pool-api.js";
export { getDecodeBackend, initBlosc, setDecodeBackend } from "./decompress.js";
export type { DecodeBackend } from "./decompress.js";
export { readChunkHeader } from "@fmt/header";
export { compress, compressInto, compressTransient, computeBlocksize, getCodecBackend, initCompression, setCodecBackend, splitsBlocks } from "./compress.js";
export type { CodecBackend, CompressOptions, InitCompressionOptions } from "./compress.js";
export { initZstd, isZstdReady, loadZstdEncoder } from "./zstd-encode.js";
export type { ZstdEncoder, ZstdEncoderLoader } from "./zstd-encode.js";
export type { ZlibCodec } from "./zlib.js";
export { isResidentView, ResidentInputs } from "./resident-inputs.js";
export type { ResidentInputsOptions } from "./resident-inputs.js";
