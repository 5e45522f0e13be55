/**
 * zlib (RFC 1950) stream decoder for Blosc codec format code 3, on top of `fflate`, and the
 * interface through which a faster zlib (Node's own, from `@fmt/blosc/node`) can be handed to
 * `compress` and `decompress` per call.
 *
 * @example
 * ```ts
 * import { decodeZlib } from "./zlib.js";
 * const out = new Uint8Array(neblock);
 * decodeZlib(stream, out);
 * ```
 * @module
 */
import { unzlibSync } from "fflate";
import { BcolzError, FormatError } from "@fmt/errors";
import { adler32 } from "@fmt/header";

/**
 * Decode one zlib stream into exactly `dst.length` bytes of `dst`.
 *
 * fflate neither checks the Adler-32 trailer nor reports output that did not fit a caller's
 * buffer (it drops those bytes), so the trailer is verified here: it covers the whole output the
 * stream encodes, which makes it catch both corrupt data and streams longer than `dst` — the
 * checks zlib's own `uncompress` (used by c-blosc) performs.
 *
 * @param src - the stream bytes (`csize` bytes after the size prefix).
 * @param dst - output, sized to the expected length.
 * @param path - file name for error messages.
 * @returns `dst.length`.
 * @throws FormatError CORRUPT_STREAM (fields `zlib.*`).
 * @example
 * ```ts
 * decodeZlib(Uint8Array.of(0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27), new Uint8Array(3)); // "abc"
 * ```
 */
export function decodeZlib(src: Uint8Array, dst: Uint8Array, path?: string): number {
  if (src.length < 6) {
    throw new FormatError("CORRUPT_STREAM", "zlib stream is shorter than its header and trailer", { path, field: "zlib.stream", expected: ">= 6 bytes", actual: src.length });
  }
  let produced: number;
  try {
    produced = unzlibSync(src, { out: dst }).length;
  } catch (e) {
    if (e instanceof BcolzError) throw e;
    throw new FormatError("CORRUPT_STREAM", `zlib stream does not inflate: ${e instanceof Error ? e.message : String(e)}`, { path, field: "zlib.stream", cause: e });
  }
  if (produced !== dst.length) {
    throw new FormatError("CORRUPT_STREAM", "zlib stream decodes to the wrong length", { path, field: "zlib.length", expected: dst.length, actual: produced });
  }
  const n = src.length;
  const stored = ((src[n - 4]! << 24) | (src[n - 3]! << 16) | (src[n - 2]! << 8) | src[n - 1]!) >>> 0;
  const actual = adler32(dst);
  if (stored !== actual) {
    throw new FormatError("CORRUPT_STREAM", "zlib Adler-32 trailer does not match the decoded data", { path, field: "zlib.adler32", expected: stored, actual });
  }
  return produced;
}

/**
 * A zlib implementation handed to `compress` / `decompress` per call (option `zlib`), e.g.
 * `nodeZlib` from `@fmt/blosc/node`, which runs Node's built-in zlib. Absent, fflate is used.
 *
 * @example
 * ```ts
 * import { nodeZlib } from "@fmt/blosc/node";
 * const chunk = compress(bytes, { typesize: 8, clevel: 5, shuffle: 1, cname: "zlib", zlib: nodeZlib });
 * decompress(chunk, { zlib: nodeZlib });
 * ```
 */
export interface ZlibCodec {
  /** One zlib stream (RFC 1950) of `src` at `level` (1..9). */
  deflate(src: Uint8Array, level: number): Uint8Array;
  /**
   * Inflate one zlib stream, checking its Adler-32 trailer, into `dst`; returns the bytes
   * written. Must throw (anything) when the stream is corrupt or would produce more than
   * `dst.length` bytes, and must not do work beyond what `dst.length` output needs.
   */
  inflate(src: Uint8Array, dst: Uint8Array): number;
}

/**
 * The stream decoder that runs `codec.inflate` with the same checks and error codes as
 * {@link decodeZlib}.
 *
 * @example
 * ```ts
 * const decode = zlibDecoderOf(nodeZlib);
 * decode(stream, new Uint8Array(neblock), "data/__0.blp");
 * ```
 */
export function zlibDecoderOf(codec: ZlibCodec): (src: Uint8Array, dst: Uint8Array, path?: string) => number {
  return (src, dst, path) => {
    let produced: number;
    try {
      produced = codec.inflate(src, dst);
    } catch (e) {
      if (e instanceof BcolzError) throw e;
      throw new FormatError("CORRUPT_STREAM", `zlib stream does not inflate: ${e instanceof Error ? e.message : String(e)}`, { path, field: "zlib.stream", cause: e });
    }
    if (produced !== dst.length) {
      throw new FormatError("CORRUPT_STREAM", "zlib stream decodes to the wrong length", { path, field: "zlib.length", expected: dst.length, actual: produced });
    }
    return produced;
  };
}
