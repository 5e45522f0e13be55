/**
 * zstd compression for Blosc streams, through the official zstd library compiled to WebAssembly
 * by `@hpcc-js/wasm-zstd` (its wasm is inlined in the package, so it needs no network or file
 * access at run time and works in Node and browsers). Its loader is asynchronous, so
 * {@link initZstd} must have resolved before a chunk can be compressed with `cname: "zstd"`.
 * The package is imported lazily: callers that never use zstd never load it.
 *
 * @example
 * ```ts
 * import { initZstd, compress } from "@fmt/blosc";
 * await initZstd();
 * const chunk = compress(bytes, { typesize: 8, clevel: 5, shuffle: 1, cname: "zstd" });
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";

/** The part of `@hpcc-js/wasm-zstd`'s `Zstd` instance this module uses. */
interface ZstdLibrary {
  compress(data: Uint8Array, level: number): Uint8Array;
  maxCLevel(): number;
  version(): string;
}

let library: ZstdLibrary | undefined;
let loading: Promise<void> | undefined;

/**
 * Load the zstd encoder (once; later calls return the same promise). Required before
 * `compress(..., { cname: "zstd" })`; decompression does not need it.
 *
 * @returns a promise that resolves when zstd compression is available.
 * @example
 * ```ts
 * await initZstd();
 * isZstdReady(); // true
 * ```
 */
export function initZstd(): Promise<void> {
  loading ??= import("@hpcc-js/wasm-zstd")
    .then(async ({ Zstd }) => {
      library = await Zstd.load();
    })
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}

/**
 * Whether {@link initZstd} has completed, i.e. whether `compress` accepts `cname: "zstd"` now.
 *
 * @example
 * ```ts
 * if (!isZstdReady()) await initZstd();
 * ```
 */
export function isZstdReady(): boolean {
  return library !== undefined;
}

/**
 * The zstd level c-blosc 1.x uses for a Blosc clevel: `2·clevel − 1` for 1..8, the library's
 * maximum (22) for 9.
 *
 * @example
 * ```ts
 * zstdLevelFor(5); // 9
 * zstdLevelFor(9); // 22
 * ```
 */
export function zstdLevelFor(clevel: number): number {
  return clevel < 9 ? 2 * clevel - 1 : 22;
}

/**
 * Compress `src` into one zstd frame (frame header with the content size, no checksum), like
 * zstd's one-shot `ZSTD_compress`.
 *
 * @param src - the bytes of one Blosc block.
 * @param level - zstd level, 1..22.
 * @returns the frame.
 * @throws UsageError INVALID_ARGUMENT when {@link initZstd} has not completed.
 * @example
 * ```ts
 * await initZstd();
 * const frame = encodeZstd(new Uint8Array(1000), 3); // 28 b5 2f fd ...
 * ```
 */
export function encodeZstd(src: Uint8Array, level: number): Uint8Array {
  if (library === undefined) {
    throw new UsageError("INVALID_ARGUMENT", "zstd compression needs `await initZstd()` (or `await initCompression()`) first", {
      field: "cparams.cname",
      expected: "initZstd() resolved",
      actual: "zstd",
    });
  }
  return library.compress(src, level);
}
