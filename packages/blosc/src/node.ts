/**
 * Node-only fast paths for `@fmt/blosc`, handed to `compress` / `decompress` per call: nothing here
 * is imported by the browser-safe core, and nothing is registered globally.
 *
 * `nodeZlib` runs Node's built-in zlib (native code) instead of fflate: about twice as fast at
 * inflating Blosc's zlib streams and faster at deflating them (see the package README).
 *
 * @example
 * ```ts
 * import { compress, decompress } from "@fmt/blosc";
 * import { nodeZlib } from "@fmt/blosc/node";
 * const chunk = compress(bytes, { typesize: 8, clevel: 5, shuffle: 1, cname: "zlib", zlib: nodeZlib });
 * decompress(chunk, { zlib: nodeZlib });
 * ```
 * @module
 */
import { deflateSync, inflateSync } from "node:zlib";
import type { ZlibCodec } from "./zlib.js";

export type { ZlibCodec } from "./zlib.js";

/**
 * zlib through `node:zlib`. Inflating is capped at the destination's size (`maxOutputLength`), so
 * a stream that would produce more stops as soon as it passes that size and fails; the Adler-32
 * trailer is checked by zlib itself.
 *
 * @example
 * ```ts
 * const out = new Uint8Array(neblock);
 * nodeZlib.inflate(stream, out); // neblock, or throws
 * ```
 */
export const nodeZlib: ZlibCodec = Object.freeze({
  deflate(src: Uint8Array, level: number): Uint8Array {
    const stream = deflateSync(src, { level });
    return new Uint8Array(stream.buffer, stream.byteOffset, stream.length);
  },
  inflate(src: Uint8Array, dst: Uint8Array): number {
    // maxOutputLength must be at least 1; one byte more than an empty destination still fails below
    const decoded = inflateSync(src, { maxOutputLength: Math.max(1, dst.length) });
    dst.set(decoded);
    return decoded.length;
  },
});
