/*
 * Literal and match copies shared by the LZ4 and BloscLZ decoders.
 *
 * The fast paths store whole 16-byte vectors and may write up to 15 bytes past the copy's end, so
 * they are only taken when the destination (and, for literals, the source) has that much room
 * left; the tails near the end of a buffer fall back to exact byte copies.
 */
#ifndef FMT_BLOSC_COPY_H
#define FMT_BLOSC_COPY_H
#include "common.h"

/* For a match distance d < 16: byte k of the 16-byte pattern is source byte k mod d. */
static const u8 PATTERN_INDEX[16][16] __attribute__((aligned(16))) = {
    {0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
    {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0},
    {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0},
    {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1},
    {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2, 3, 4},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1, 2},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0},
};
/* Largest multiple of d that is <= 16: how far a stored pattern can advance and stay in phase. */
static const u8 PATTERN_STEP[16] = {0, 16, 16, 15, 16, 15, 12, 14, 16, 9, 10, 11, 12, 13, 14, 15};

/* Copy len literal bytes; the caller checked len <= iend - ip and len <= oend - op. */
INLINE void copy_literals(u8 *op, const u8 *ip, u32 len, const u8 *oend, const u8 *iend) {
  if (LIKELY(len <= 32 && (u32)(oend - op) >= 32 && (u32)(iend - ip) >= 32)) {
    wasm_v128_store(op, wasm_v128_load(ip));
    if (len > 16) wasm_v128_store(op + 16, wasm_v128_load(ip + 16));
    return;
  }
  /* memory.copy is a runtime call in V8; a vector loop wins for the medium runs LZ streams hold. */
  if (len <= 1024 && (u32)(oend - op) >= len + 16 && (u32)(iend - ip) >= len + 16) {
    u8 *e = op + len;
    do {
      wasm_v128_store(op, wasm_v128_load(ip));
      op += 16;
      ip += 16;
    } while (op < e);
    return;
  }
  __builtin_memcpy(op, ip, len);
}

/*
 * Copy a match of len bytes starting dist bytes back, with forward (repeating) semantics. The
 * caller checked 1 <= dist <= op - (start of output) and len <= oend - op.
 */
INLINE void copy_match(u8 *op, u32 dist, u32 len, const u8 *oend) {
  const u8 *m = op - dist;
  if (LIKELY((u32)(oend - op) >= len + 16)) {
    u8 *e = op + len;
    if (dist >= 16) {
      do {
        wasm_v128_store(op, wasm_v128_load(m));
        op += 16;
        m += 16;
      } while (op < e);
    } else {
      /* Bytes m[dist..16) are not the pattern yet but are inside the destination (op+16 <= oend). */
      v128_t pattern = wasm_i8x16_swizzle(wasm_v128_load(m), wasm_v128_load(PATTERN_INDEX[dist]));
      u32 step = PATTERN_STEP[dist];
      do {
        wasm_v128_store(op, pattern);
        op += step;
      } while (op < e);
    }
    return;
  }
  /*
   * Near the end of the destination (typically a match that fills a split up to its last byte):
   * whole vectors while 16 bytes of the copy remain, then at most 15 single bytes.
   */
  u8 *e = op + len;
  if (len >= 16) {
    if (dist >= 16) {
      do {
        wasm_v128_store(op, wasm_v128_load(op - dist));
        op += 16;
      } while ((u32)(e - op) >= 16);
    } else {
      v128_t pattern = wasm_i8x16_swizzle(wasm_v128_load(m), wasm_v128_load(PATTERN_INDEX[dist]));
      u32 step = PATTERN_STEP[dist];
      do {
        wasm_v128_store(op, pattern);
        op += step;
      } while ((u32)(e - op) >= 16);
    }
  }
  for (; op < e; op++) *op = *(op - dist);
}

#endif
