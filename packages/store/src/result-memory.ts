/**
 * Memory for the results of large reads.
 *
 * Why: a whole-array read returns a new buffer, and the first write to each of its pages is a
 * page fault. glibc maps allocations of 32 MiB and more afresh each time; with transparent huge
 * pages (glibc's `hugetlb` tunable, or the kernel set to `always`) each aligned 2 MiB of such a
 * mapping is one fault instead of 512. Linux aligns a new anonymous mapping on 2 MiB only when its
 * length is a multiple of 2 MiB, and glibc's length is the request plus its own few bytes rounded
 * to 4 KiB, so an 80 MB result got 39 huge pages and ~512 small faults at its two ends. Asking
 * for a size that makes glibc's length a multiple of 2 MiB removes those: a 40 MB ctable column
 * took 568 → 21 page faults and 27.7 / 29.4 → 22.8 / 25.4 ms on a virtual machine where a fault
 * costs ~8–15 µs (tools/bench/README.md). Elsewhere (other allocators, browsers, huge pages off)
 * the result only holds at most 2 MiB it does not use.
 *
 * @module
 */

/** Results from this size on are rounded: glibc maps them afresh (its largest mmap threshold). */
export const ROUNDED_FROM_BYTES = 32 << 20;
const HUGE_PAGE_BYTES = 2 << 20;
/**
 * Requested bytes below a multiple of 2 MiB that make glibc's mapping exactly that multiple: its
 * chunk is the request plus 8 bytes rounded up to 16, and the mapping that chunk plus 8 bytes
 * rounded up to 4 KiB (`sysmalloc_mmap`).
 */
const ALLOCATOR_BYTES = 32;

/**
 * A zeroed `Uint8Array` of `size` bytes for a read's result. From {@link ROUNDED_FROM_BYTES} on,
 * it views the start of a buffer up to 2 MiB longer (see the module comment): `byteOffset` is 0,
 * `buffer.byteLength` may exceed `length`.
 *
 * @example
 * ```ts
 * const out = resultBytes(80_000_000); // out.length === 80_000_000; out.buffer.byteLength === 81_788_896
 * ```
 */
export function resultBytes(size: number): Uint8Array {
  if (size < ROUNDED_FROM_BYTES) return new Uint8Array(size);
  const mapped = Math.ceil((size + ALLOCATOR_BYTES) / HUGE_PAGE_BYTES) * HUGE_PAGE_BYTES;
  return new Uint8Array(new ArrayBuffer(mapped - ALLOCATOR_BYTES), 0, size);
}
