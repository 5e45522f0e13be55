/**
 * JSON pointers (RFC 6901), which name the field of a document that an error is about.
 *
 * @example
 * ```ts
 * import { jsonPointer } from "@fmt/meta";
 * jsonPointer(["columns", 0, "a/b"]); // "/columns/0/a~1b"
 * ```
 * @module
 */

/** One JSON pointer (RFC 6901) segment: `~` as `~0`, `/` as `~1` (internal). */
export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * A JSON pointer (RFC 6901) built from path segments.
 *
 * @example
 * ```ts
 * jsonPointer(["cparams", "clevel"]); // "/cparams/clevel"
 * jsonPointer([]);                    // ""
 * ```
 */
export function jsonPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => `/${escapePointer(String(s))}`).join("");
}
