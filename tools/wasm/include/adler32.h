/*
 * Adler-32 (RFC 1950) in WebAssembly SIMD, shared by the modules that checksum bytes where they
 * lie: @fmt/header's checksum module (bytes copied into it) and @fmt/blosc's kernels (format-2
 * chunks read into, or encoded in, the decoder's memory, checksummed there without a copy).
 * Included by their C sources (tools/wasm/build-module.sh puts this directory on the include path).
 *
 * Over a run of bytes b_0..b_{n-1} with sums s1, s2 at its start, Adler-32 ends with
 *   s1' = s1 + sum(b_i)             s2' = s2 + n*s1 + sum((n - i) * b_i)
 * (mod 65521). Each 32-byte step adds its bytes to four s1 lanes (pairwise widening adds), the
 * bytes times their weights 32..1 to four s2 lanes (widening to 16 bits, then dot products), and
 * first the s1 lanes so far to a third set of lanes, which accounts for 32 * (bytes before this
 * step). Lanes are summed and reduced once per run of at most 5,536 bytes (zlib's NMAX, 5,552,
 * rounded down to whole steps). What bounds a run is `s2 + s1 * run` below 2^32 with s1, s2
 * below 65,536 (an unreduced `previous` included) and the sum of the four `before` lanes below
 * 2^32: both hold up to runs of 32,832 bytes, so 5,536 leaves a wide margin; the weighted total
 * is added up in 64 bits.
 */
#ifndef FMT_ADLER32_H
#define FMT_ADLER32_H

#include <stdint.h>
#include <wasm_simd128.h>

#define FMT_ADLER_MOD 65521u
#define FMT_ADLER_STEP 32u
#define FMT_ADLER_RUN (5552u / FMT_ADLER_STEP * FMT_ADLER_STEP)

static inline uint32_t fmt_adler_lanes_sum(v128_t v) {
  return (uint32_t)wasm_i32x4_extract_lane(v, 0) + (uint32_t)wasm_i32x4_extract_lane(v, 1) +
         (uint32_t)wasm_i32x4_extract_lane(v, 2) + (uint32_t)wasm_i32x4_extract_lane(v, 3);
}

/* Adler-32 of n bytes at p, continuing from `previous` (1 for a new checksum). */
static inline uint32_t fmt_adler32(const uint8_t *p, uint32_t n, uint32_t previous) {
  uint32_t s1 = previous & 0xffff;
  uint32_t s2 = previous >> 16;
  const v128_t w1 = wasm_i16x8_make(32, 31, 30, 29, 28, 27, 26, 25);
  const v128_t w2 = wasm_i16x8_make(24, 23, 22, 21, 20, 19, 18, 17);
  const v128_t w3 = wasm_i16x8_make(16, 15, 14, 13, 12, 11, 10, 9);
  const v128_t w4 = wasm_i16x8_make(8, 7, 6, 5, 4, 3, 2, 1);
  while (n >= FMT_ADLER_STEP) {
    uint32_t run = n < FMT_ADLER_RUN ? n - n % FMT_ADLER_STEP : FMT_ADLER_RUN;
    n -= run;
    s2 += s1 * run; /* s1 < 65536, run <= 5536: no overflow */
    v128_t v1 = wasm_i32x4_splat(0), v2 = wasm_i32x4_splat(0), before = wasm_i32x4_splat(0);
    for (uint32_t k = 0; k < run; k += FMT_ADLER_STEP, p += FMT_ADLER_STEP) {
      v128_t a = wasm_v128_load(p), b = wasm_v128_load(p + 16);
      before = wasm_i32x4_add(before, v1);
      v128_t pairs = wasm_i16x8_add(wasm_u16x8_extadd_pairwise_u8x16(a), wasm_u16x8_extadd_pairwise_u8x16(b));
      v1 = wasm_i32x4_add(v1, wasm_u32x4_extadd_pairwise_u16x8(pairs));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(a), w1));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(a), w2));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(b), w3));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(b), w4));
    }
    uint64_t t2 = (uint64_t)s2 + (uint64_t)FMT_ADLER_STEP * fmt_adler_lanes_sum(before) + fmt_adler_lanes_sum(v2);
    s1 = (s1 + fmt_adler_lanes_sum(v1)) % FMT_ADLER_MOD;
    s2 = (uint32_t)(t2 % FMT_ADLER_MOD);
  }
  if (n > 0) {
    /* Fewer than 32 bytes: zlib's byte loop (its bound holds for any s1, s2 below 65536). */
    while (n--) {
      s1 += *p++;
      s2 += s1;
    }
    s1 %= FMT_ADLER_MOD;
    s2 %= FMT_ADLER_MOD;
  }
  return (s2 << 16) | s1;
}

#endif
