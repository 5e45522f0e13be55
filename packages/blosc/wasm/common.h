/*
 * Shared definitions of the @fmt/blosc WebAssembly kernels.
 *
 * The kernels are freestanding (no libc): every buffer is a pointer into the module's linear
 * memory that the JavaScript wrapper filled, and every length is an unsigned 32-bit count.
 * Copies use __builtin_memcpy / __builtin_memset, which -mbulk-memory lowers to the
 * memory.copy / memory.fill instructions instead of library calls.
 */
#ifndef FMT_BLOSC_COMMON_H
#define FMT_BLOSC_COMMON_H

#include <stdint.h>
#include <stddef.h>
#include <wasm_simd128.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t i32;

#define EXPORT(name) __attribute__((export_name(#name))) __attribute__((visibility("default")))
#define INLINE static inline __attribute__((always_inline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Error codes returned (negated) by every entry point; index.ts maps them to messages. */
#define ERR_CORRUPT -1        /* malformed codec stream */
#define ERR_DST_SMALL -2      /* output does not fit the destination */
#define ERR_SRC_TRUNCATED -3  /* a stream or size prefix runs past the end of the input */
#define ERR_SIZE_MISMATCH -4  /* a stream decoded to a length other than the expected one */
#define ERR_CODEC -5          /* codec not implemented in WebAssembly (snappy, zlib, zstd) */
#define ERR_ARGUMENT -6       /* invalid argument (typesize 0, split count that does not divide...) */
#define ERR_HEADER -7         /* chunk header inconsistent */
#define ERR_NOMEM -8          /* linear memory could not grow */
#define ERR_NOT_READ -9       /* a stream the caller did not read is needed (compare_chunk) */

INLINE u32 load_u32le(const u8 *p) {
  u32 v;
  __builtin_memcpy(&v, p, 4);
  return v; /* wasm is little-endian */
}
INLINE void store_u32le(u8 *p, u32 v) { __builtin_memcpy(p, &v, 4); }
INLINE u16 load_u16le(const u8 *p) {
  u16 v;
  __builtin_memcpy(&v, p, 2);
  return v;
}
INLINE void store_u16le(u8 *p, u16 v) { __builtin_memcpy(p, &v, 2); }
INLINE u64 load_u64(const u8 *p) {
  u64 v;
  __builtin_memcpy(&v, p, 8);
  return v;
}
INLINE void store_u64(u8 *p, u64 v) { __builtin_memcpy(p, &v, 8); }

/* shuffle.c */
void fmt_shuffle(u32 typesize, u32 size, const u8 *src, u8 *dst);
void fmt_unshuffle(u32 typesize, u32 size, const u8 *src, u8 *dst);
int fmt_unshuffle_planes(u32 typesize, u32 n, const u8 *const *planes, u8 *dst);
/* bitshuffle.c: tmp must hold `size` bytes */
void fmt_bitshuffle(u32 typesize, u32 size, const u8 *src, u8 *dst, u8 *tmp);
void fmt_bitunshuffle(u32 typesize, u32 size, const u8 *src, u8 *dst, u8 *tmp);
void fmt_bitunshuffle_planes(u32 typesize, u32 n, const u8 *const *planes, u8 *dst, u8 *tmp);
/* lz4.c */
i32 fmt_lz4_decode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap);
i32 fmt_lz4_decode_prefix(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 want);
i32 fmt_lz4_byte_values(const u8 *src, u32 srclen, u32 dstcap, u8 *present);
u32 fmt_lz4_encode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 acceleration);
u32 fmt_lz4hc_encode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 level);
/* blosclz.c */
i32 fmt_blosclz_decode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap);
i32 fmt_blosclz_decode_prefix(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 want);
u32 fmt_blosclz_encode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 clevel);
/* matchcopy.h helpers are header-only */

#endif
