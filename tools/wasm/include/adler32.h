/*
 * Adler-32 (RFC 1950) in WebAssembly SIMD, shared by the modules that checksum bytes where they
 * lie: @fmt/header's checksum module (bytes copied into it), @fmt/blosc's kernels (format-2
 * chunks read into, or encoded in, the decoder's memory, checksummed there without a copy) and
 * @fmt/fs-adapters' ring checksum (chunks in the write thread's shared ring, which it imports).
 * Included by their C sources (tools/wasm/build-module.sh puts this directory on the include path).
 *
 * Over a run of bytes b_0..b_{n-1} with sums s1, s2 at its start, Adler-32 ends with
 *   s1' = s1 + sum(b_i)             s2' = s2 + n*s1 + sum((n - i) * b_i)
 * (mod 65521). Each 32-byte step adds its bytes to four s1 lanes, first adds the s1 lanes so far to
 * a second set of lanes (which accounts for 32 * (bytes before this step)), and adds each byte to
 * the 16-bit column sum of its place in the step. The weights 32..1 of the places are applied to
 * the column sums once per run instead of to every byte: eight operations a step (four widenings,
 * four additions) where widening dot products took twelve. Each lane of a step's total sums four
 * bytes (at most 1,020, below 2^15), so its pairs are added as signed numbers: one instruction on
 * x86 (`pmaddwd`) and on Arm (`saddlp`), where the unsigned form takes three on x86. Lanes are
 * summed and reduced once per run of at most 5,536 bytes (zlib's NMAX, 5,552, rounded down to whole
 * steps). What bounds a run: a column sum below 2^16 (173 steps of 255 make 44,115; the limit is
 * 257 steps, 8,224 bytes), `s2 + s1 * run` below 2^32 with s1, s2 below 65,536 (an unreduced
 * `previous` included), the four `before` lanes together below 2^32 (121 M at most) and the
 * weighted lanes below 2^31 (6.4 M each). The total of s2, the `before` lanes times 32 and the
 * weighted lanes reaches 4.27e9, so it is added up in 64 bits.
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

/* sum((first - k) * column[k]) over the eight 16-bit column sums of `columns`. */
static inline v128_t fmt_adler_weighted(v128_t columns, int32_t first) {
  v128_t low = wasm_i32x4_mul(wasm_u32x4_extend_low_u16x8(columns), wasm_i32x4_make(first, first - 1, first - 2, first - 3));
  v128_t high = wasm_i32x4_mul(wasm_u32x4_extend_high_u16x8(columns), wasm_i32x4_make(first - 4, first - 5, first - 6, first - 7));
  return wasm_i32x4_add(low, high);
}

/* Adler-32 of n bytes at p, continuing from `previous` (1 for a new checksum). */
static inline uint32_t fmt_adler32(const uint8_t *p, uint32_t n, uint32_t previous) {
  uint32_t s1 = previous & 0xffff;
  uint32_t s2 = previous >> 16;
  while (n >= FMT_ADLER_STEP) {
    uint32_t run = n < FMT_ADLER_RUN ? n - n % FMT_ADLER_STEP : FMT_ADLER_RUN;
    n -= run;
    s2 += s1 * run; /* s1 < 65536, run <= 5536: no overflow */
    v128_t v1 = wasm_i32x4_splat(0), before = wasm_i32x4_splat(0);
    v128_t c0 = wasm_i32x4_splat(0), c1 = c0, c2 = c0, c3 = c0;
    for (uint32_t k = 0; k < run; k += FMT_ADLER_STEP, p += FMT_ADLER_STEP) {
      v128_t a = wasm_v128_load(p), b = wasm_v128_load(p + 16);
      v128_t a0 = wasm_u16x8_extend_low_u8x16(a), a1 = wasm_u16x8_extend_high_u8x16(a);
      v128_t b0 = wasm_u16x8_extend_low_u8x16(b), b1 = wasm_u16x8_extend_high_u8x16(b);
      c0 = wasm_i16x8_add(c0, a0);
      c1 = wasm_i16x8_add(c1, a1);
      c2 = wasm_i16x8_add(c2, b0);
      c3 = wasm_i16x8_add(c3, b1);
      before = wasm_i32x4_add(before, v1);
      v128_t step = wasm_i16x8_add(wasm_i16x8_add(a0, a1), wasm_i16x8_add(b0, b1));
      v1 = wasm_i32x4_add(v1, wasm_i32x4_extadd_pairwise_i16x8(step));
    }
    v128_t v2 = wasm_i32x4_add(wasm_i32x4_add(fmt_adler_weighted(c0, 32), fmt_adler_weighted(c1, 24)),
                               wasm_i32x4_add(fmt_adler_weighted(c2, 16), fmt_adler_weighted(c3, 8)));
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
