/*
 * Raw LZ4 block decoder (bounds-checked) and two encoders (greedy single-probe "fast" with an
 * acceleration factor, and a hash-chain "high compression" variant), written from the LZ4 block
 * format description (format-facts 3.1).
 */
#include "common.h"
#include "copy.h"
#include "lz_tables.h"

#define LZ4_MIN_MATCH 4
#define LZ4_LAST_LITERALS 5 /* the last 5 bytes of a block are always literals */
#define LZ4_MFLIMIT 12      /* no match may start in the last 12 bytes */
#define LZ4_MAX_DISTANCE 65535

i32 fmt_lz4_decode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap) {
  const u8 *ip = src;
  const u8 *const iend = src + srclen;
  u8 *op = dst;
  const u8 *const oend = dst + dstcap;
  if (srclen == 0) return ERR_CORRUPT;
  for (;;) {
    if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED; /* the block ended with a match */
    u32 token = *ip++;
    u32 lit = token >> 4;
    if (lit == 15) {
      u32 b;
      do {
        if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED;
        b = *ip++;
        lit += b;
        if (UNLIKELY(lit > srclen)) return ERR_SRC_TRUNCATED;
      } while (b == 255);
    }
    if (UNLIKELY(lit > (u32)(iend - ip))) return ERR_SRC_TRUNCATED;
    if (UNLIKELY(lit > (u32)(oend - op))) return ERR_DST_SMALL;
    copy_literals(op, ip, lit, oend, iend);
    op += lit;
    ip += lit;
    if (ip == iend) break; /* last sequence: literals only */
    if (UNLIKELY(iend - ip < 2)) return ERR_SRC_TRUNCATED;
    u32 dist = load_u16le(ip);
    ip += 2;
    if (UNLIKELY(dist == 0 || dist > (u32)(op - dst))) return ERR_CORRUPT;
    u32 len = token & 15;
    if (len == 15) {
      u32 b;
      do {
        if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED;
        b = *ip++;
        len += b;
        if (UNLIKELY(len > dstcap)) return ERR_DST_SMALL;
      } while (b == 255);
    }
    len += LZ4_MIN_MATCH;
    if (UNLIKELY(len > (u32)(oend - op))) return ERR_DST_SMALL;
    copy_match(op, dist, len, oend);
    op += len;
  }
  return (i32)(op - dst);
}

/* ---- encoders ---- */

typedef struct {
  u8 *op;
  u8 *oend;
} lz4_out;

/* Append one sequence (literals, then a match unless len == 0). Returns 0 when it does not fit. */
static int lz4_emit(lz4_out *o, const u8 *lit, u32 nlit, u32 dist, u32 len) {
  u32 need = 1 + nlit + nlit / 255 + 1 + (len ? 2 + (len - LZ4_MIN_MATCH) / 255 + 1 : 0);
  if ((u32)(o->oend - o->op) < need) return 0;
  u8 *op = o->op;
  u8 *token = op++;
  u32 t;
  if (nlit >= 15) {
    t = 15 << 4;
    u32 rest = nlit - 15;
    while (rest >= 255) {
      *op++ = 255;
      rest -= 255;
    }
    *op++ = (u8)rest;
  } else {
    t = nlit << 4;
  }
  __builtin_memcpy(op, lit, nlit);
  op += nlit;
  if (len) {
    store_u16le(op, (u16)dist);
    op += 2;
    u32 m = len - LZ4_MIN_MATCH;
    if (m >= 15) {
      t |= 15;
      m -= 15;
      while (m >= 255) {
        *op++ = 255;
        m -= 255;
      }
      *op++ = (u8)m;
    } else {
      t |= m;
    }
  }
  *token = (u8)t;
  o->op = op;
  return 1;
}

u32 fmt_lz4_encode(const u8 *src, u32 n, u8 *dst, u32 dstcap, u32 acceleration) {
  lz4_out o = {dst, dst + dstcap};
  u32 anchor = 0;
  if (acceleration < 1) acceleration = 1;
  if (acceleration > 65537) acceleration = 65537;
  if (n > LZ4_MFLIMIT) {
    u32 hashlog = choose_hashlog(n);
    u32 shift = 32 - hashlog;
    u32 *table = HASH_TABLE;
    __builtin_memset(table, 0, sizeof(u32) << hashlog);
    const u32 start_limit = n - LZ4_MFLIMIT;
    const u32 match_limit = n - LZ4_LAST_LITERALS;
    u32 ip = 1;
    for (;;) {
      u32 ref;
      u32 search = acceleration << 6;
      for (;;) {
        if (ip >= start_limit) goto last_literals;
        u32 seq = load_u32le(src + ip);
        u32 h = hash4(seq, shift);
        ref = table[h];
        table[h] = ip;
        if (ref < ip && ip - ref <= LZ4_MAX_DISTANCE && load_u32le(src + ref) == seq) break;
        ip += search++ >> 6;
      }
      while (ip > anchor && ref > 0 && src[ip - 1] == src[ref - 1]) {
        ip--;
        ref--;
      }
      u32 len = LZ4_MIN_MATCH + match_length(src, ip + LZ4_MIN_MATCH, ref + LZ4_MIN_MATCH, match_limit);
      if (!lz4_emit(&o, src + anchor, ip - anchor, ip - ref, len)) return 0;
      ip += len;
      anchor = ip;
      if (ip >= start_limit) break;
      u32 back = ip - 2;
      table[hash4(load_u32le(src + back), shift)] = back;
    }
  }
last_literals:
  if (!lz4_emit(&o, src + anchor, n - anchor, 0, 0)) return 0;
  return (u32)(o.op - dst);
}

/*
 * High-compression variant: every position goes into a hash chain (head table + 16-bit back
 * distances, valid because no match reaches further than 65535 bytes) and the longest match
 * among the first 2^level candidates wins; greedy parsing otherwise.
 */
u32 fmt_lz4hc_encode(const u8 *src, u32 n, u8 *dst, u32 dstcap, u32 level) {
  lz4_out o = {dst, dst + dstcap};
  u32 anchor = 0;
  if (level < 1) level = 1;
  if (level > 12) level = 12;
  u32 attempts = 1u << level;
  if (n > LZ4_MFLIMIT) {
    u32 hashlog = HC_HASH_LOG;
    u32 shift = 32 - hashlog;
    u32 *head = HASH_TABLE;
    u16 *chain = CHAIN_TABLE;
    __builtin_memset(head, 0xff, sizeof(u32) << hashlog);
    const u32 start_limit = n - LZ4_MFLIMIT;
    const u32 match_limit = n - LZ4_LAST_LITERALS;
    u32 next_insert = 0;
    u32 ip = 1;
    while (ip < start_limit) {
      while (next_insert < ip) chain_insert(src, next_insert++, head, chain, shift);
      u32 best_len = 0, best_ref = 0;
      u32 cand = head[hash4(load_u32le(src + ip), shift)];
      for (u32 a = 0; a < attempts && cand != 0xffffffffu && ip - cand <= LZ4_MAX_DISTANCE; a++) {
        if (src[cand + best_len] == src[ip + best_len] && load_u32le(src + cand) == load_u32le(src + ip)) {
          u32 len = LZ4_MIN_MATCH + match_length(src, ip + LZ4_MIN_MATCH, cand + LZ4_MIN_MATCH, match_limit);
          if (len > best_len) {
            best_len = len;
            best_ref = cand;
            if (ip + len >= match_limit) break;
          }
        }
        u32 d = chain[cand & 0xffff];
        if (d == 0 || d > cand) break;
        cand -= d;
      }
      if (best_len < LZ4_MIN_MATCH) {
        ip++;
        continue;
      }
      u32 ref = best_ref;
      while (ip > anchor && ref > 0 && src[ip - 1] == src[ref - 1]) {
        ip--;
        ref--;
        best_len++;
      }
      if (!lz4_emit(&o, src + anchor, ip - anchor, ip - ref, best_len)) return 0;
      ip += best_len;
      anchor = ip;
    }
  }
  if (!lz4_emit(&o, src + anchor, n - anchor, 0, 0)) return 0;
  return (u32)(o.op - dst);
}

EXPORT(lz4_decode) i32 lz4_decode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap) {
  return fmt_lz4_decode(src, srclen, dst, dstcap);
}
EXPORT(lz4_encode) u32 lz4_encode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 acceleration) {
  return fmt_lz4_encode(src, srclen, dst, dstcap, acceleration);
}
EXPORT(lz4hc_encode) u32 lz4hc_encode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 level) {
  return fmt_lz4hc_encode(src, srclen, dst, dstcap, level);
}
