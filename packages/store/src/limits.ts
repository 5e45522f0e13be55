import { UsageError } from "@fmt/errors";

/**
 * Default of {@link OpenOptions.maxReadBytes}: the most bytes one call may return, 2^31 − 1.
 *
 * @example
 * ```ts
 * const half = await openCarray(store, "x", { maxReadBytes: DEFAULT_MAX_READ_BYTES / 2 });
 * ```
 */
export const DEFAULT_MAX_READ_BYTES = 2 ** 31 - 1;

/**
 * Default of {@link OpenOptions.maxChunksPerCall}: the most chunk files one call may read,
 * 2^22 (4,194,304 — about 4 TiB of rows at bcolz's usual 1 MiB chunks).
 *
 * @example
 * ```ts
 * const strict = await openCtable(store, "t", { maxChunksPerCall: DEFAULT_MAX_CHUNKS_PER_CALL / 64 });
 * ```
 */
export const DEFAULT_MAX_CHUNKS_PER_CALL = 2 ** 22;

/**
 * Largest size, in bytes (`n × atomSize`), that {@link CArray.resize} grows an array to: 2^40
 * (1 TiB). Growing writes every new row, so a mistaken huge `n` would otherwise run for hours.
 *
 * @example
 * ```ts
 * await a.resize(Math.floor(MAX_RESIZE_BYTES / a.atomSize)); // the largest allowed length
 * ```
 */
export const MAX_RESIZE_BYTES = 2 ** 40;

/** The per-call limits of {@link OpenOptions}, with defaults applied. @internal */
export interface CallLimits {
  maxReadBytes: number;
  maxChunksPerCall: number;
}

/** The limits given by `options`, defaults filled in. @internal */
export function callLimits(options: { maxReadBytes?: number | undefined; maxChunksPerCall?: number | undefined }): CallLimits {
  return { maxReadBytes: options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES, maxChunksPerCall: options.maxChunksPerCall ?? DEFAULT_MAX_CHUNKS_PER_CALL };
}

/** `UsageError` `SIZE_LIMIT` unless one call's result of `bytes` fits `maxReadBytes`. @internal */
export function checkReadBytes(limits: CallLimits, bytes: number, path: string): void {
  if (bytes > limits.maxReadBytes) {
    throw new UsageError("SIZE_LIMIT", `the call would return ${bytes} bytes, more than maxReadBytes (${limits.maxReadBytes}); read in pieces (iterBlocks) or raise the option`, {
      path,
      field: "maxReadBytes",
      expected: `<= ${limits.maxReadBytes}`,
      actual: bytes,
    });
  }
}

/** `UsageError` `SIZE_LIMIT` unless one call's `chunks` chunk-file reads fit `maxChunksPerCall`. @internal */
export function checkChunkWork(limits: CallLimits, chunks: number, path: string): void {
  if (chunks > limits.maxChunksPerCall) {
    throw new UsageError("SIZE_LIMIT", `the call would read ${chunks} chunk files, more than maxChunksPerCall (${limits.maxChunksPerCall}); narrow the rows or raise the option`, {
      path,
      field: "maxChunksPerCall",
      expected: `<= ${limits.maxChunksPerCall}`,
      actual: chunks,
    });
  }
}
