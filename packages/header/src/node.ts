/**
 * Node-only fast path of `@fmt/header`: {@link useNativeCrc32} makes its CRC-32 (the checksum
 * format-2 readers verify over every chunk) run on Node's native `zlib.crc32` where the running
 * Node has it (20.15 and later, 22.2 and later), about five times the speed of the built-in
 * TypeScript code. Nothing happens on import; the browser-safe entry `@fmt/header` never imports
 * this file.
 *
 * @example
 * ```ts
 * import { useNativeCrc32 } from "@fmt/header/node";
 * useNativeCrc32(); // true on Node 20.15+
 * ```
 * @module
 */
import * as zlib from "node:zlib";
import { useCrc32 } from "./checksum.js";
import type { Crc32Function } from "./checksum.js";

/**
 * Node's native CRC-32, or `undefined` on a Node without `zlib.crc32`.
 *
 * @example
 * ```ts
 * nativeCrc32?.(new TextEncoder().encode("123456789")); // 0xcbf43926
 * ```
 */
export const nativeCrc32: Crc32Function | undefined = (zlib as unknown as { crc32?: Crc32Function }).crc32;

/**
 * Makes `crc32` of `@fmt/header` (and so every format-2 checksum of this process) use
 * {@link nativeCrc32}, after checking it against the built-in code; resolves to whether it did.
 * Programs call it once at start-up (the `bcolz-ts` command and the conformance adapter do).
 *
 * @example
 * ```ts
 * if (!useNativeCrc32()) console.warn("CRC-32 in TypeScript: format-2 reads verify more slowly");
 * ```
 */
export function useNativeCrc32(): boolean {
  return useCrc32(nativeCrc32);
}
