/**
 * zstd compression for Blosc streams, through the official zstd library compiled to WebAssembly
 * by `@hpcc-js/wasm-zstd` (driven through `zstd-libzstd.ts`; its wasm is inlined in the package, so it needs no network or file
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
import { libzstdEncoder, type ZstdEncoder } from "./zstd-libzstd.js";

export type { ZstdEncoder } from "./zstd-libzstd.js";

/**
 * Something that loads a {@link ZstdEncoder}; tests inject failing ones.
 *
 * @example
 * ```ts
 * const loader: ZstdEncoderLoader = async () => ({ compress: (data) => myZstd(data) });
 * ```
 */
export type ZstdEncoderLoader = () => Promise<ZstdEncoder>;

const loadLibzstd: ZstdEncoderLoader = async () => {
  const { Zstd } = await import("@hpcc-js/wasm-zstd");
  try {
    return libzstdEncoder(await Zstd.load());
  } catch (error) {
    // Zstd.load() keeps its promise, rejected or not, in a module variable of its own; unloading
    // clears it so that the next attempt really loads again.
    await Zstd.unload().catch(() => undefined);
    throw error;
  }
};

/**
 * Load a zstd encoder and hand it back, keeping nothing: each call is independent, so a failed
 * load leaves nothing behind and the next call simply tries again. Pass the result to `compress`
 * as `zstd`, or use {@link initZstd} to make one the default.
 *
 * @param loader - where the encoder comes from (default: libzstd 1.5.7 in WebAssembly).
 * @example
 * ```ts
 * const zstd = await loadZstdEncoder();
 * compress(bytes, { typesize: 8, clevel: 5, shuffle: 1, cname: "zstd", zstd });
 * ```
 */
export async function loadZstdEncoder(loader: ZstdEncoderLoader = loadLibzstd): Promise<ZstdEncoder> {
  const encoder = await loader();
  if (typeof encoder?.compress !== "function") {
    throw new UsageError("INVALID_ARGUMENT", "zstd encoder loader resolved to something without compress()", {
      field: "loader", expected: "{ compress(data, level) }", actual: typeof encoder,
    });
  }
  return encoder;
}

// The default encoder of `compress` when it is given none. It is only ever set to a loaded
// encoder, and a pending load is forgotten when it fails, so a failure never sticks.
let defaultEncoder: ZstdEncoder | undefined;
let pending: Promise<void> | undefined;

/**
 * Load the default zstd encoder of `compress` (once; concurrent calls share one attempt). A failed
 * attempt rejects and is forgotten, so the next call tries again. Required before
 * `compress(..., { cname: "zstd" })` unless the call passes its own `zstd` encoder; decompression
 * never needs it.
 *
 * @param loader - where the encoder comes from (default: libzstd 1.5.7 in WebAssembly).
 * @returns a promise that resolves when zstd compression is available.
 * @example
 * ```ts
 * await initZstd();
 * isZstdReady(); // true
 * ```
 */
export function initZstd(loader?: ZstdEncoderLoader): Promise<void> {
  if (defaultEncoder !== undefined) return Promise.resolve();
  pending ??= loadZstdEncoder(loader).then(
    (encoder) => {
      defaultEncoder = encoder;
      pending = undefined;
    },
    (error: unknown) => {
      pending = undefined;
      throw error;
    },
  );
  return pending;
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
  return defaultEncoder !== undefined;
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
 * The encoder {@link initZstd} loaded, for `compress` calls that bring none.
 *
 * @throws UsageError INVALID_ARGUMENT when {@link initZstd} has not completed.
 * @example
 * ```ts
 * await initZstd();
 * defaultZstdEncoder().compress(new Uint8Array(1000), 3); // 28 b5 2f fd ...
 * ```
 */
export function defaultZstdEncoder(): ZstdEncoder {
  if (defaultEncoder === undefined) {
    throw new UsageError("INVALID_ARGUMENT", "zstd compression needs an encoder: pass `zstd: await loadZstdEncoder()` or `await initZstd()` first", {
      field: "cparams.cname",
      expected: "options.zstd, or initZstd() resolved",
      actual: "zstd",
    });
  }
  return defaultEncoder;
}
