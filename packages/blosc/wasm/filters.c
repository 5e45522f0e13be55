/*
 * Byte shuffle (format-facts 1.10) and bit shuffle (1.12) of one Blosc block.
 *
 * Both filters are transpositions. The SIMD paths treat a group of 16 elements of a T-byte type
 * (T = 2, 4, 8, 16) as a stream of 16*T bytes held in T vectors. Byte-interleaving the first half
 * of the vectors with the second half rotates every byte's stream index left by one bit, so
 * log2(T) interleave rounds turn "plane-major" (j*16 + e) into "element-major" (e*T + j) order
 * and four rounds go back. On x86 each round is one punpck per vector.
 *
 * The bit shuffle of a block is a byte shuffle followed by a bit transpose of each byte plane: the
 * n bytes of plane j become 8 rows of n/8 bytes, row b holding bit b of every byte. Eight bytes of a
 * plane form an 8x8 bit matrix that three masked delta swaps transpose (two matrices per vector).
 */
#include "common.h"

INLINE v128_t interleave_lo(v128_t a, v128_t b) {
  return wasm_i8x16_shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
}
INLINE v128_t interleave_hi(v128_t a, v128_t b) {
  return wasm_i8x16_shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
}
/* Plane-major -> element-major for T vectors (T a power of two, 2..16). */
INLINE void rotate_to_elements(v128_t *v, u32 T) {
  v128_t w[16];
  for (u32 s = T; s > 1; s >>= 1) {
    for (u32 k = 0; k < T / 2; k++) {
      w[2 * k] = interleave_lo(v[k], v[k + T / 2]);
      w[2 * k + 1] = interleave_hi(v[k], v[k + T / 2]);
    }
    for (u32 k = 0; k < T; k++) v[k] = w[k];
  }
}

/*
 * Element-major -> plane-major for T vectors holding 16 elements. Interleave rounds rotate the
 * (log2(T) + 4)-bit stream index left, so four rounds move the element bits below the byte bits.
 * (Even/odd de-interleaving needs fewer rounds but compiles to slower shuffles on x86.)
 */
INLINE void rotate_to_planes(v128_t *v, u32 T) {
  v128_t w[16];
  for (u32 s = 0; s < 4; s++) {
    for (u32 k = 0; k < T / 2; k++) {
      w[2 * k] = interleave_lo(v[k], v[k + T / 2]);
      w[2 * k + 1] = interleave_hi(v[k], v[k + T / 2]);
    }
    for (u32 k = 0; k < T; k++) v[k] = w[k];
  }
}

static void shuffle_scalar(u32 T, u32 n, u32 from, const u8 *src, u8 *dst) {
  for (u32 j = 0; j < T; j++) {
    u8 *out = dst + (size_t)j * n;
    const u8 *in = src + j;
    for (u32 i = from; i < n; i++) out[i] = in[(size_t)i * T];
  }
}

static void unshuffle_scalar(u32 T, u32 n, u32 from, const u8 *src, u8 *dst) {
  for (u32 j = 0; j < T; j++) {
    const u8 *in = src + (size_t)j * n;
    u8 *out = dst + j;
    for (u32 i = from; i < n; i++) out[(size_t)i * T] = in[i];
  }
}

INLINE void shuffle_simd(u32 T, u32 n, const u8 *src, u8 *dst) {
  u32 groups = n / 16;
  for (u32 g = 0; g < groups; g++) {
    v128_t v[16];
    const u8 *in = src + (size_t)g * 16 * T;
    for (u32 k = 0; k < T; k++) v[k] = wasm_v128_load(in + 16 * k);
    rotate_to_planes(v, T);
    for (u32 k = 0; k < T; k++) wasm_v128_store(dst + (size_t)k * n + 16 * g, v[k]);
  }
  shuffle_scalar(T, n, groups * 16, src, dst);
}

INLINE void unshuffle_simd(u32 T, u32 n, const u8 *src, u8 *dst) {
  u32 groups = n / 16;
  for (u32 g = 0; g < groups; g++) {
    v128_t v[16];
    for (u32 k = 0; k < T; k++) v[k] = wasm_v128_load(src + (size_t)k * n + 16 * g);
    rotate_to_elements(v, T);
    u8 *out = dst + (size_t)g * 16 * T;
    for (u32 k = 0; k < T; k++) wasm_v128_store(out + 16 * k, v[k]);
  }
  unshuffle_scalar(T, n, groups * 16, src, dst);
}

/* Like unshuffle_simd, but byte plane k is read from planes[k] (n bytes each). */
INLINE void unshuffle_planes_simd(u32 T, u32 n, const u8 *const *planes, u8 *dst) {
  u32 groups = n / 16;
  for (u32 g = 0; g < groups; g++) {
    v128_t v[16];
    for (u32 k = 0; k < T; k++) v[k] = wasm_v128_load(planes[k] + 16 * g);
    rotate_to_elements(v, T);
    u8 *out = dst + (size_t)g * 16 * T;
    for (u32 k = 0; k < T; k++) wasm_v128_store(out + 16 * k, v[k]);
  }
  for (u32 k = 0; k < T; k++)
    for (u32 i = groups * 16; i < n; i++) dst[(size_t)i * T + k] = planes[k][i];
}

/*
 * Unshuffle n elements of T bytes whose byte planes lie in separate places (a split block whose raw
 * streams are read in place instead of being copied next to the decoded ones first).
 * Returns 0 when T has no SIMD kernel (the caller then gathers the planes and uses fmt_unshuffle).
 */
int fmt_unshuffle_planes(u32 T, u32 n, const u8 *const *planes, u8 *dst) {
  switch (T) {
    case 2: unshuffle_planes_simd(2, n, planes, dst); return 1;
    case 4: unshuffle_planes_simd(4, n, planes, dst); return 1;
    case 8: unshuffle_planes_simd(8, n, planes, dst); return 1;
    case 16: unshuffle_planes_simd(16, n, planes, dst); return 1;
    default: return 0;
  }
}

void fmt_shuffle(u32 T, u32 size, const u8 *src, u8 *dst) {
  u32 n = T ? size / T : 0;
  if (T <= 1 || n == 0) {
    __builtin_memmove(dst, src, size);
    return;
  }
  switch (T) {
    case 2: shuffle_simd(2, n, src, dst); break;
    case 4: shuffle_simd(4, n, src, dst); break;
    case 8: shuffle_simd(8, n, src, dst); break;
    case 16: shuffle_simd(16, n, src, dst); break;
    default: shuffle_scalar(T, n, 0, src, dst); break;
  }
  u32 body = n * T;
  __builtin_memcpy(dst + body, src + body, size - body);
}

void fmt_unshuffle(u32 T, u32 size, const u8 *src, u8 *dst) {
  u32 n = T ? size / T : 0;
  if (T <= 1 || n == 0) {
    __builtin_memmove(dst, src, size);
    return;
  }
  switch (T) {
    case 2: unshuffle_simd(2, n, src, dst); break;
    case 4: unshuffle_simd(4, n, src, dst); break;
    case 8: unshuffle_simd(8, n, src, dst); break;
    case 16: unshuffle_simd(16, n, src, dst); break;
    default: unshuffle_scalar(T, n, 0, src, dst); break;
  }
  u32 body = n * T;
  __builtin_memcpy(dst + body, src + body, size - body);
}

/* ---- bit transpose ---- */

/* Transpose the 8x8 bit matrix in each 64-bit lane (byte index = row, bit index = column). */
INLINE v128_t transpose_bits_x2(v128_t x) {
  v128_t t;
  t = wasm_v128_and(wasm_v128_xor(x, wasm_u64x2_shr(x, 7)), wasm_i64x2_splat(0x00AA00AA00AA00AAULL));
  x = wasm_v128_xor(x, wasm_v128_xor(t, wasm_i64x2_shl(t, 7)));
  t = wasm_v128_and(wasm_v128_xor(x, wasm_u64x2_shr(x, 14)), wasm_i64x2_splat(0x0000CCCC0000CCCCULL));
  x = wasm_v128_xor(x, wasm_v128_xor(t, wasm_i64x2_shl(t, 14)));
  t = wasm_v128_and(wasm_v128_xor(x, wasm_u64x2_shr(x, 28)), wasm_i64x2_splat(0x00000000F0F0F0F0ULL));
  x = wasm_v128_xor(x, wasm_v128_xor(t, wasm_i64x2_shl(t, 28)));
  return x;
}

INLINE u64 transpose_bits(u64 x) {
  u64 t;
  t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
  x ^= t ^ (t << 28);
  return x;
}

/* n bytes (n % 8 == 0) -> 8 rows of n/8 bytes; row b, byte g, bit i = bit b of in[8g + i]. */
static void bits_to_rows(const u8 *in, u8 *out, u32 n) {
  u32 stride = n / 8;
  u32 blocks = n / 128;
  for (u32 c = 0; c < blocks; c++) {
    v128_t v[8];
    for (u32 k = 0; k < 8; k++) v[k] = transpose_bits_x2(wasm_v128_load(in + 128 * c + 16 * k));
    rotate_to_planes(v, 8);
    for (u32 b = 0; b < 8; b++) wasm_v128_store(out + (size_t)b * stride + 16 * c, v[b]);
  }
  for (u32 g = blocks * 16; g < stride; g++) {
    u64 x = transpose_bits(load_u64(in + 8 * (size_t)g));
    for (u32 b = 0; b < 8; b++) out[(size_t)b * stride + g] = (u8)(x >> (8 * b));
  }
}

/* Inverse of bits_to_rows. */
static void rows_to_bits(const u8 *in, u8 *out, u32 n) {
  u32 stride = n / 8;
  u32 blocks = n / 128;
  for (u32 c = 0; c < blocks; c++) {
    v128_t v[8];
    for (u32 b = 0; b < 8; b++) v[b] = wasm_v128_load(in + (size_t)b * stride + 16 * c);
    rotate_to_elements(v, 8);
    for (u32 k = 0; k < 8; k++) wasm_v128_store(out + 128 * c + 16 * k, transpose_bits_x2(v[k]));
  }
  for (u32 g = blocks * 16; g < stride; g++) {
    u64 x = 0;
    for (u32 b = 0; b < 8; b++) x |= (u64)in[(size_t)b * stride + g] << (8 * b);
    store_u64(out + 8 * (size_t)g, transpose_bits(x));
  }
}

/*
 * Bit-unshuffle n elements of T bytes (n % 8 == 0, T >= 2) whose T bit-transposed planes lie in
 * separate places; tmp holds n * T bytes.
 */
void fmt_bitunshuffle_planes(u32 T, u32 n, const u8 *const *planes, u8 *dst, u8 *tmp) {
  for (u32 j = 0; j < T; j++) rows_to_bits(planes[j], tmp + (size_t)j * n, n);
  fmt_unshuffle(T, n * T, tmp, dst);
}

void fmt_bitshuffle(u32 T, u32 size, const u8 *src, u8 *dst, u8 *tmp) {
  u32 n = T ? size / T : 0;
  if (T == 0 || n % 8 != 0 || n == 0) {
    __builtin_memmove(dst, src, size);
    return;
  }
  u32 body = n * T;
  if (T == 1) {
    bits_to_rows(src, dst, n);
  } else {
    fmt_shuffle(T, body, src, tmp);
    for (u32 j = 0; j < T; j++) bits_to_rows(tmp + (size_t)j * n, dst + (size_t)j * n, n);
  }
  __builtin_memcpy(dst + body, src + body, size - body);
}

void fmt_bitunshuffle(u32 T, u32 size, const u8 *src, u8 *dst, u8 *tmp) {
  u32 n = T ? size / T : 0;
  if (T == 0 || n % 8 != 0 || n == 0) {
    __builtin_memmove(dst, src, size);
    return;
  }
  u32 body = n * T;
  if (T == 1) {
    rows_to_bits(src, dst, n);
  } else {
    for (u32 j = 0; j < T; j++) rows_to_bits(src + (size_t)j * n, tmp + (size_t)j * n, n);
    fmt_unshuffle(T, body, tmp, dst);
  }
  __builtin_memcpy(dst + body, src + body, size - body);
}

EXPORT(shuffle) void shuffle(u32 typesize, u32 size, const u8 *src, u8 *dst) { fmt_shuffle(typesize, size, src, dst); }
EXPORT(unshuffle) void unshuffle(u32 typesize, u32 size, const u8 *src, u8 *dst) { fmt_unshuffle(typesize, size, src, dst); }
EXPORT(bitshuffle) void bitshuffle(u32 typesize, u32 size, const u8 *src, u8 *dst, u8 *tmp) {
  fmt_bitshuffle(typesize, size, src, dst, tmp);
}
EXPORT(bitunshuffle) void bitunshuffle(u32 typesize, u32 size, const u8 *src, u8 *dst, u8 *tmp) {
  fmt_bitunshuffle(typesize, size, src, dst, tmp);
}
