/*
 * Comparison of a column block with a scalar, the innermost loop of `where` (numexpr's `>` etc.
 * opcodes): one mask byte per row, 1 where the comparison holds, 0 elsewhere (NaN compares
 * unordered, so only `!=` holds for it, as in JavaScript and numexpr).
 *
 * The caller (src/compare-wasm.ts) lays out the region `reserve` returns as mask, input block and
 * room for row numbers; it copies each compared block in and calls its kernel, which sets the mask
 * or combines it with & or | (or only counts), then takes the count, the row numbers
 * (`mask_rows`) or a copy of the mask. Sixteen rows at a time: the lane masks (all ones or
 * all zeros) are narrowed to bytes with saturating packs, counted through their bitmask and
 * masked to 0/1.
 */
#include <wasm_simd128.h>

typedef unsigned char u8;
typedef unsigned int u32;

extern unsigned char __heap_base;

/* Operation numbers (OP_EQ ... OP_GE), shared with src/compare-wasm.ts. */
#include "compare_ops.h"

#define EXPORT(name) __attribute__((export_name(#name)))

/*
 * A region of `bytes` bytes at the heap's base, 16-aligned, growing memory when needed; 0 when
 * memory cannot grow. One region serves one evaluation (one or several kernel calls); growing
 * memory detaches the caller's views of the last one.
 */
EXPORT(reserve)
u32 reserve(u32 bytes) {
  u32 base = ((u32)&__heap_base + 15u) & ~15u;
  u32 have = (u32)__builtin_wasm_memory_size(0) * 65536u;
  if (bytes > 0xffffffffu - base) return 0;
  u32 end = base + bytes;
  if (end > have) {
    u32 pages = (end - have + 65535u) / 65536u;
    if (__builtin_wasm_memory_grow(0, pages) == (unsigned long)-1) return 0;
  }
  return base;
}

/* Four vectors of four 32-bit lane masks -> sixteen byte masks (0xff or 0). */
static inline v128_t lanes_of_4x4(v128_t m0, v128_t m1, v128_t m2, v128_t m3) {
  v128_t lo = wasm_i16x8_narrow_i32x4(m0, m1);
  v128_t hi = wasm_i16x8_narrow_i32x4(m2, m3);
  return wasm_i8x16_narrow_i16x8(lo, hi);
}

/* Eight vectors of two 64-bit lane masks -> sixteen byte masks: each 64-bit mask is two equal
   32-bit halves, so packing to 16 and 8 bits doubles every byte, and a shuffle keeps one. */
static inline v128_t lanes_of_8x2(const v128_t *m) {
  v128_t a = wasm_i16x8_narrow_i32x4(m[0], m[1]);
  v128_t b = wasm_i16x8_narrow_i32x4(m[2], m[3]);
  v128_t c = wasm_i16x8_narrow_i32x4(m[4], m[5]);
  v128_t d = wasm_i16x8_narrow_i32x4(m[6], m[7]);
  v128_t x = wasm_i8x16_narrow_i16x8(a, b);
  v128_t y = wasm_i8x16_narrow_i16x8(c, d);
  return wasm_i8x16_shuffle(x, y, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

/* How a loop treats `out`: counting only (out is 0), or storing each row's 0/1 there, alone or
   combined with what `out` already holds (a condition of several comparisons built in place). */
#define MODE_SET 0
#define MODE_AND 1
#define MODE_OR 2

/* Sixteen rows' byte masks: stored (by `mode`) when `out` is set, and the 1s of the result counted. */
static inline u32 emit(v128_t lanes, u8 *out, u32 mode) {
  if (!out) return (u32)__builtin_popcount(wasm_i8x16_bitmask(lanes));
  v128_t bits = wasm_v128_and(lanes, wasm_i8x16_splat(1));
  if (mode == MODE_SET) {
    wasm_v128_store(out, bits);
    return (u32)__builtin_popcount(wasm_i8x16_bitmask(lanes));
  }
  v128_t before = wasm_v128_load(out);
  bits = mode == MODE_AND ? wasm_v128_and(bits, before) : wasm_v128_or(bits, before);
  wasm_v128_store(out, bits);
  return (u32)__builtin_popcount(wasm_i8x16_bitmask(wasm_i8x16_shl(bits, 7)));
}

static inline u8 emit_one(u8 r, u8 *out, u32 mode) {
  if (!out) return r;
  if (mode == MODE_AND) r &= *out;
  else if (mode == MODE_OR) r |= *out;
  *out = r;
  return r;
}

/*
 * Each loop writes the mask when `out` is not 0 (by `mode`) and returns how many rows of the
 * result hold either way (a count needs no mask). The entries below call each loop once with
 * `out` and once with a literal 0, so the compiler makes a copy of the loop without the stores.
 */
#define F64_LOOP(NAME, VOP, SOP)                                                   \
  static u32 NAME(const double *a, u32 n, double b, u8 *out, u32 mode) {           \
    v128_t s = wasm_f64x2_splat(b);                                                \
    u32 count = 0;                                                                 \
    u32 i = 0;                                                                     \
    for (; i + 16 <= n; i += 16) {                                                 \
      v128_t m[8];                                                                 \
      for (int k = 0; k < 8; k++) m[k] = VOP(wasm_v128_load(a + i + 2 * k), s);    \
      count += emit(lanes_of_8x2(m), out ? out + i : 0, mode);                     \
    }                                                                              \
    for (; i < n; i++) count += emit_one(a[i] SOP b, out ? out + i : 0, mode);     \
    return count;                                                                  \
  }

#define X4_LOOP(NAME, T, SPLAT, VOP, SOP)                                          \
  static u32 NAME(const T *a, u32 n, T b, u8 *out, u32 mode) {                     \
    v128_t s = SPLAT(b);                                                           \
    u32 count = 0;                                                                 \
    u32 i = 0;                                                                     \
    for (; i + 16 <= n; i += 16) {                                                 \
      v128_t m0 = VOP(wasm_v128_load(a + i), s);                                   \
      v128_t m1 = VOP(wasm_v128_load(a + i + 4), s);                               \
      v128_t m2 = VOP(wasm_v128_load(a + i + 8), s);                               \
      v128_t m3 = VOP(wasm_v128_load(a + i + 12), s);                              \
      count += emit(lanes_of_4x4(m0, m1, m2, m3), out ? out + i : 0, mode);        \
    }                                                                              \
    for (; i < n; i++) count += emit_one(a[i] SOP b, out ? out + i : 0, mode);     \
    return count;                                                                  \
  }

F64_LOOP(f64_eq, wasm_f64x2_eq, ==)
F64_LOOP(f64_ne, wasm_f64x2_ne, !=)
F64_LOOP(f64_lt, wasm_f64x2_lt, <)
F64_LOOP(f64_le, wasm_f64x2_le, <=)
F64_LOOP(f64_gt, wasm_f64x2_gt, >)
F64_LOOP(f64_ge, wasm_f64x2_ge, >=)
X4_LOOP(f32_eq, float, wasm_f32x4_splat, wasm_f32x4_eq, ==)
X4_LOOP(f32_ne, float, wasm_f32x4_splat, wasm_f32x4_ne, !=)
X4_LOOP(f32_lt, float, wasm_f32x4_splat, wasm_f32x4_lt, <)
X4_LOOP(f32_le, float, wasm_f32x4_splat, wasm_f32x4_le, <=)
X4_LOOP(f32_gt, float, wasm_f32x4_splat, wasm_f32x4_gt, >)
X4_LOOP(f32_ge, float, wasm_f32x4_splat, wasm_f32x4_ge, >=)
X4_LOOP(i32_eq, int, wasm_i32x4_splat, wasm_i32x4_eq, ==)
X4_LOOP(i32_ne, int, wasm_i32x4_splat, wasm_i32x4_ne, !=)
X4_LOOP(i32_lt, int, wasm_i32x4_splat, wasm_i32x4_lt, <)
X4_LOOP(i32_le, int, wasm_i32x4_splat, wasm_i32x4_le, <=)
X4_LOOP(i32_gt, int, wasm_i32x4_splat, wasm_i32x4_gt, >)
X4_LOOP(i32_ge, int, wasm_i32x4_splat, wasm_i32x4_ge, >=)

/*
 * The exported entry of one element type: a: n elements at a 16-aligned offset; out: n bytes
 * (16-aligned), or 0 to count only; mode: MODE_SET, or MODE_AND / MODE_OR to combine with the
 * mask already at `out`. Returns how many rows of the result hold (at most n < 2^31), or -1 for
 * an unknown op or mode. The caller passes b for float32 and int32 blocks only when it is a value
 * of that type, so comparing in that type is exact.
 */
#define COMPARE_ENTRY(NAME, P, T)                                                          \
  EXPORT(NAME)                                                                             \
  int NAME(u32 op, const T *a, u32 n, T b, u8 *out, u32 mode) {                            \
    if (mode > MODE_OR) return -1;                                                         \
    switch (op) {                                                                          \
      case OP_EQ: return out ? (int)P##_eq(a, n, b, out, mode) : (int)P##_eq(a, n, b, 0, 0); \
      case OP_NE: return out ? (int)P##_ne(a, n, b, out, mode) : (int)P##_ne(a, n, b, 0, 0); \
      case OP_LT: return out ? (int)P##_lt(a, n, b, out, mode) : (int)P##_lt(a, n, b, 0, 0); \
      case OP_LE: return out ? (int)P##_le(a, n, b, out, mode) : (int)P##_le(a, n, b, 0, 0); \
      case OP_GT: return out ? (int)P##_gt(a, n, b, out, mode) : (int)P##_gt(a, n, b, 0, 0); \
      case OP_GE: return out ? (int)P##_ge(a, n, b, out, mode) : (int)P##_ge(a, n, b, 0, 0); \
    }                                                                                      \
    return -1;                                                                             \
  }

COMPARE_ENTRY(compare_f64, f64, double)
COMPARE_ENTRY(compare_f32, f32, float)
COMPARE_ENTRY(compare_i32, i32, int)

/* The number of 1 bytes of a 0/1 mask of n bytes (a combined condition's matches). */
EXPORT(count_ones)
u32 count_ones(const u8 *mask, u32 n) {
  u32 count = 0;
  u32 i = 0;
  v128_t one = wasm_i8x16_splat(1);
  for (; i + 16 <= n; i += 16) count += (u32)__builtin_popcount(wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(mask + i), one)));
  for (; i < n; i++) count += mask[i] == 1;
  return count;
}

/*
 * The row numbers of the 1 bytes of a 0/1 mask of n bytes, `first` + position, as float64 (the
 * form of where's result, exact up to 2^53), in increasing order, into out (room for n); returns
 * their count. Sixteen mask bytes are tested at once, and only the set bits of their bitmask are
 * visited: a selective query's mask is mostly zero vectors. Writing the result's own form here
 * spares the caller a loop over every row found.
 */
EXPORT(mask_rows)
u32 mask_rows(const u8 *mask, u32 n, double first, double *out) {
  u32 count = 0;
  u32 i = 0;
  v128_t one = wasm_i8x16_splat(1);
  for (; i + 16 <= n; i += 16) {
    u32 bits = wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(mask + i), one));
    while (bits != 0) {
      out[count++] = first + (double)(i + (u32)__builtin_ctz(bits));
      bits &= bits - 1;
    }
  }
  for (; i < n; i++)
    if (mask[i] == 1) out[count++] = first + (double)i;
  return count;
}
