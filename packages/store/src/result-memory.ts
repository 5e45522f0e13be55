/**
 * Memory for the results of large reads.
 *
 * Why: a whole-array read returns a new buffer, and the first write to each of its pages is a
 * page fault. glibc maps allocations of 32 MiB and more afresh each time, at a 4 KiB boundary.
 * With transparent huge pages (glibc's `hugetlb` tunable, or the kernel set to `always`) each
 * 2 MiB-aligned stretch of such a mapping is one fault instead of 512, and the unaligned ends, up
 * to ~2 MiB together, fault 4 KiB at a time. Linux (6.7 and later) aligns a new anonymous mapping
 * on 2 MiB when its length is a multiple of 2 MiB, and glibc's length is the request plus a few
 * bytes rounded up to 4 KiB; asking for a size that makes that length a multiple of 2 MiB leaves
 * no unaligned ends. A 40 MB ctable column read took 568 → 33–43 page faults and 25.6 / 30.3 /
 * 28.9 → 23.4 / 26.4 / 24.5 ms on a virtual machine where a fault costs ~8–15 µs; an 80 MB
 * read-all 625 → 139–336 faults, its time unchanged within the noise (tools/bench/README.md).
 * Elsewhere (other allocators, browsers, older kernels, huge pages off) the result's buffer only
 * holds less than 2 MiB it does not use.
 *
 * @module
 */

/** Results from this size on are rounded: glibc maps them afresh (its largest mmap threshold). */
export const ROUNDED_FROM_BYTES = 32 << 20;
const HUGE_PAGE_BYTES = 2 << 20;
/**
 * How far below a multiple of 2 MiB the buffer ends. glibc's mapping for a request of `n` bytes is
 * {@link glibcMappingBytes}, a multiple of 2 MiB for any `n` from 24 to about 4,000 bytes below one; 33
 * makes the buffer's length odd, so that `new Float64Array(result.buffer)` throws instead of
 * silently holding the unused bytes as extra elements.
 */
const BELOW_HUGE_PAGE = 33;

/**
 * The length of the mapping glibc's `malloc`/`calloc` makes for a request of `n` bytes above its
 * mmap threshold: the chunk (`n` plus 8 bytes, rounded up to 16) plus 8 bytes, rounded up to
 * 4 KiB (`request2size`, `sysmalloc_mmap`). @internal
 *
 * @example
 * ```ts
 * glibcMappingBytes(80_000_000); // 80_003_072
 * ```
 */
export function glibcMappingBytes(n: number): number {
  const chunk = Math.ceil((n + 8) / 16) * 16;
  return Math.ceil((chunk + 8) / 4096) * 4096;
}

/**
 * The buffer length {@link resultBytes} allocates for a result of `size` bytes under the limit
 * `maxBytes`. @internal
 *
 * @example
 * ```ts
 * resultBufferBytes(80_000_000); // 81_788_895
 * ```
 */
export function resultBufferBytes(size: number, maxBytes = Infinity): number {
  if (size < ROUNDED_FROM_BYTES) return size;
  const rounded = Math.ceil((size + BELOW_HUGE_PAGE) / HUGE_PAGE_BYTES) * HUGE_PAGE_BYTES - BELOW_HUGE_PAGE;
  return rounded > maxBytes ? size : rounded;
}

/**
 * A zeroed `Uint8Array` of `size` bytes for a read's result. From {@link ROUNDED_FROM_BYTES} on,
 * it views the start of a buffer less than 2 MiB longer (see the module comment): `byteOffset`
 * is 0 and `buffer.byteLength` exceeds `length`, unless that would pass `maxBytes`.
 *
 * @example
 * ```ts
 * const out = resultBytes(80_000_000); // out.length === 80_000_000; out.buffer.byteLength === 81_788_895
 * ```
 */
export function resultBytes(size: number, maxBytes = Infinity): Uint8Array {
  const length = resultBufferBytes(size, maxBytes);
  return length === size ? new Uint8Array(size) : new Uint8Array(new ArrayBuffer(length), 0, size);
}
