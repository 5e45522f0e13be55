/**
 * Helpers of {@link S3Store}'s dataset locks: the marker of the conditional-write probe's scratch
 * key (which `list` hides), the random suffix that makes that key unique, and the byte comparison
 * of a lock's read-back and release. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

// A scratch key for the conditional-write probe; `list` hides it.
export const PROBE_MARKER = ".fmt-probe-";

/** 16 random hex digits (crypto-strength), e.g. `"9f3a0c1b7e2d4a65"`, that make a probe key unique. */
export function randomHex(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether `a` and `b` hold the same bytes: `sameBytes(readBack, written)` confirms a lock is ours. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
