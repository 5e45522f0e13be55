/*
 * Match-finder state and helpers shared by the LZ4 and BloscLZ encoders. The kernels are
 * single-threaded and not re-entrant, so one static table set serves every encoder; each encode
 * call clears the part it uses, which keeps the output a pure function of the input.
 */
#ifndef FMT_BLOSC_LZ_TABLES_H
#define FMT_BLOSC_LZ_TABLES_H
#include "common.h"

#define MAX_HASH_LOG 16
#define HC_HASH_LOG 15

extern u32 HASH_TABLE[1 << MAX_HASH_LOG];
extern u16 CHAIN_TABLE[1 << 16];

INLINE u32 hash4(u32 v, u32 shift) { return (v * 2654435761u) >> shift; }

/* Enough buckets for the input without paying to clear a large table for a small input. */
INLINE u32 choose_hashlog(u32 n) {
  u32 log = 10;
  while (log < MAX_HASH_LOG && (1u << log) < n / 2) log++;
  return log;
}

/* Number of equal bytes at a and b, stopping before position limit (a > b, a < limit). */
INLINE u32 match_length(const u8 *src, u32 a, u32 b, u32 limit) {
  u32 start = a;
  if (a >= limit) return 0;
  while (a + 8 <= limit) {
    u64 x = load_u64(src + a) ^ load_u64(src + b);
    if (x) return a - start + ((u32)__builtin_ctzll(x) >> 3);
    a += 8;
    b += 8;
  }
  while (a < limit && src[a] == src[b]) {
    a++;
    b++;
  }
  return a - start;
}

INLINE void chain_insert(const u8 *src, u32 pos, u32 *head, u16 *chain, u32 shift) {
  u32 h = hash4(load_u32le(src + pos), shift);
  u32 prev = head[h];
  u32 d = (prev == 0xffffffffu || pos - prev > 65535) ? 0 : pos - prev;
  chain[pos & 0xffff] = (u16)d;
  head[h] = pos;
}

#endif
