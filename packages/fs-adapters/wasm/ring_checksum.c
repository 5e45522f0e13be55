/*
 * Adler-32 of bytes where they lie in a shared WebAssembly memory that the module imports: the
 * write thread's ring (write-thread-node.ts), where the calling thread copies each queued chunk.
 * The thread sums a format-2 chunk there before it writes it. Through @fmt/header's module it
 * first copied the chunk, 64 KiB at a time, out of the ring into that module's own memory: on the
 * store benchmark's format-2 create that took the thread about twice the CPU of the sum alone
 * (tools/bench/README.md, "Issue 16, step by step (2026-12-02, evening session)").
 *
 * The module only reads the memory: no data, no stack use, no stores (a test checks that a sum
 * leaves every byte of the memory as it was), so the ring may start at its first byte.
 *
 * Adler-32: tools/wasm/include/adler32.h (shared with @fmt/header's and @fmt/blosc's modules).
 */
#include <stdint.h>
#include <wasm_simd128.h>
#include "adler32.h"

#define EXPORT(name) __attribute__((export_name(#name))) __attribute__((visibility("default")))

/* Adler-32 of n bytes at p, continuing from `previous` (1 for a new checksum). */
EXPORT(adler32) uint32_t adler32(const uint8_t *p, uint32_t n, uint32_t previous) { return fmt_adler32(p, n, previous); }
