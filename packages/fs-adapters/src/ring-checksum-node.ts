/**
 * The write thread's ring as a shared WebAssembly memory, and the Adler-32 of bytes where they lie
 * in it (wasm/ring_checksum.c): the thread sums a queued format-2 chunk in the ring itself, where
 * @fmt/header's `adler32` would first copy it into its own module's memory, 64 KiB at a time. On
 * two cores that copy cost the thread about as much CPU as the sum (tools/bench/README.md, "Issue
 * 16, step by step (2026-12-02, evening session)").
 *
 * Where WebAssembly is missing (Node's `--jitless`) or a shared memory cannot be made, the ring is
 * a plain `SharedArrayBuffer` and the thread copies, as before; it copies out of the memory too
 * where the module cannot be instantiated over it (`WriteThread.sumsInRing` says which way).
 *
 * @example
 * ```ts
 * const memory = sharedRingMemory(8 << 20); // undefined without WebAssembly
 * const sumAt = memory === undefined ? undefined : ringAdler32(memory);
 * sumAt?.(0, 4096); // the Adler-32 of the ring's first 4 KiB
 * ```
 * @module
 */
import { RING_CHECKSUM_WASM_BASE64 } from "./wasm/ring-checksum.generated.js";

/** Bytes of a WebAssembly memory page. */
const PAGE_BYTES = 65536;

/**
 * A shared WebAssembly memory of `bytes` (a multiple of 64 KiB) that never grows, or `undefined`
 * where none can be made. Its `buffer` is a `SharedArrayBuffer` of exactly `bytes`.
 *
 * @example
 * ```ts
 * const ring = sharedRingMemory(8 << 20)?.buffer ?? new SharedArrayBuffer(8 << 20);
 * ```
 */
export function sharedRingMemory(bytes: number): WebAssembly.Memory | undefined {
  if (typeof WebAssembly !== "object" || bytes % PAGE_BYTES !== 0) return undefined;
  try {
    const pages = bytes / PAGE_BYTES;
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    return memory.buffer instanceof SharedArrayBuffer ? memory : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Adler-32 (RFC 1950) of `length` bytes at byte `at` of `memory`, through the module that
 * imports it; `undefined` when the module cannot be instantiated over it (no WebAssembly SIMD,
 * a memory that is not shared). The caller keeps `at + length` within the memory: the module
 * traps past its end.
 *
 * @example
 * ```ts
 * const sumAt = ringAdler32(memory)!;
 * sumAt(1024, 3); // the Adler-32 of bytes 1024..1026
 * ```
 */
export function ringAdler32(memory: WebAssembly.Memory): ((at: number, length: number) => number) | undefined {
  try {
    const module = new WebAssembly.Module(Buffer.from(RING_CHECKSUM_WASM_BASE64, "base64"));
    const { adler32 } = new WebAssembly.Instance(module, { env: { memory } }).exports as { adler32: (at: number, length: number, previous: number) => number };
    return (at, length) => adler32(at, length, 1) >>> 0;
  } catch {
    return undefined;
  }
}
