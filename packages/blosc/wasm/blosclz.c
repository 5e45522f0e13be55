/*
 * BloscLZ stream decoder and encoder, written from the grammar of format-facts section 2.
 *
 * Decoder: bounds-checked; like c-blosc <= 1.18 it also executes a match that ends the stream
 * (c-blosc 1.21 rejects such streams, older writers never produce them).
 * Encoder: greedy single-probe hash matcher; streams start with a literal run whose first control
 * byte carries the 0x20 marker, never start a match in the last 12 bytes and always end with a
 * literal run, which is what the strict c-blosc 1.21 decoder requires.
 */
#include "common.h"
#include "copy.h"
#include "lz_tables.h"

#define BLZ_MAX_NEAR 8191
#define BLZ_MAX_FAR (8192 + 65535)
#define BLZ_MIN_MATCH 4
#define BLZ_MIN_FAR_MATCH 6
#define BLZ_START_LIMIT 12 /* no match starts in the last 12 bytes */
#define BLZ_TAIL 4         /* matches stop 4 bytes before the end: the final literal run */

/* Like lz4_decode_upto: stops once `want` bytes are out when want <= dstcap. */
INLINE i32 blosclz_decode_upto(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 want) {
  const u8 *ip = src;
  const u8 *const iend = src + srclen;
  u8 *op = dst;
  const u8 *const oend = dst + dstcap;
  if (srclen == 0) return ERR_CORRUPT;
  u32 ctrl = *ip++ & 31; /* the top 3 bits of byte 0 are a format marker */
  for (;;) {
    if (ctrl < 32) {
      u32 run = ctrl + 1;
      if (UNLIKELY(run > (u32)(iend - ip))) return ERR_SRC_TRUNCATED;
      if (UNLIKELY(run > (u32)(oend - op))) return ERR_DST_SMALL;
      copy_literals(op, ip, run, oend, iend);
      op += run;
      ip += run;
    } else {
      u32 len = (ctrl >> 5) - 1;
      u32 high = ctrl & 31;
      if (len == 6) {
        u32 e;
        do {
          if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED;
          e = *ip++;
          len += e;
          if (UNLIKELY(len > dstcap)) return ERR_DST_SMALL;
        } while (e == 255);
      }
      len += 3;
      if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED;
      u32 d = *ip++;
      u32 dist;
      if (high == 31 && d == 255) {
        if (UNLIKELY(iend - ip < 2)) return ERR_SRC_TRUNCATED;
        dist = 8192 + ((u32)ip[0] << 8) + ip[1]; /* big-endian */
        ip += 2;
      } else {
        dist = (high << 8) + d + 1;
      }
      if (UNLIKELY(dist > (u32)(op - dst))) return ERR_CORRUPT;
      if (UNLIKELY(len > (u32)(oend - op))) return ERR_DST_SMALL;
      copy_match(op, dist, len, oend);
      op += len;
    }
    if (ip >= iend) break;
    if ((u32)(op - dst) >= want) break;
    ctrl = *ip++;
  }
  return (i32)(op - dst);
}

i32 fmt_blosclz_decode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap) {
  return blosclz_decode_upto(src, srclen, dst, dstcap, 0xffffffffu);
}

i32 fmt_blosclz_decode_prefix(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 want) {
  return blosclz_decode_upto(src, srclen, dst, dstcap, want);
}

typedef struct {
  u8 *op;
  u8 *oend;
} blz_out;

static int blz_literals(blz_out *o, const u8 *lit, u32 n) {
  if ((u32)(o->oend - o->op) < n + (n + 31) / 32) return 0;
  u8 *op = o->op;
  while (n > 0) {
    u32 run = n > 32 ? 32 : n;
    *op++ = (u8)(run - 1);
    __builtin_memcpy(op, lit, run);
    op += run;
    lit += run;
    n -= run;
  }
  o->op = op;
  return 1;
}

static int blz_match(blz_out *o, u32 len, u32 dist) {
  u32 need = 4 + (len >= 9 ? 1 + (len - 9) / 255 : 0);
  if ((u32)(o->oend - o->op) < need) return 0;
  u8 *op = o->op;
  u32 far = dist > BLZ_MAX_NEAR;
  u32 high = far ? 31 : (dist - 1) >> 8;
  if (len <= 8) {
    *op++ = (u8)(((len - 2) << 5) | high);
  } else {
    *op++ = (u8)((7 << 5) | high);
    u32 e = len - 9;
    while (e >= 255) {
      *op++ = 255;
      e -= 255;
    }
    *op++ = (u8)e;
  }
  if (far) {
    u32 f = dist - 8192;
    *op++ = 255;
    *op++ = (u8)(f >> 8);
    *op++ = (u8)f;
  } else {
    *op++ = (u8)(dist - 1);
  }
  o->op = op;
  return 1;
}

u32 fmt_blosclz_encode(const u8 *src, u32 n, u8 *dst, u32 dstcap, u32 clevel) {
  blz_out o = {dst, dst + dstcap};
  u32 anchor = 0;
  /* Lower levels skip ahead faster over incompressible input. */
  u32 acceleration = clevel >= 5 ? 1 : 6 - clevel;
  if (n == 0) return 0;
  if (n > BLZ_START_LIMIT + 1) {
    u32 hashlog = choose_hashlog(n);
    u32 shift = 32 - hashlog;
    u32 *table = HASH_TABLE;
    __builtin_memset(table, 0, sizeof(u32) << hashlog);
    const u32 start_limit = n - BLZ_START_LIMIT;
    const u32 match_limit = n - BLZ_TAIL;
    u32 ip = 1;
    for (;;) {
      u32 ref, len;
      u32 search = acceleration << 6;
      for (;;) {
        if (ip >= start_limit) goto last_literals;
        u32 seq = load_u32le(src + ip);
        u32 h = hash4(seq, shift);
        ref = table[h];
        table[h] = ip;
        if (ref < ip && ip - ref <= BLZ_MAX_FAR && load_u32le(src + ref) == seq) {
          len = BLZ_MIN_MATCH + match_length(src, ip + BLZ_MIN_MATCH, ref + BLZ_MIN_MATCH, match_limit);
          if (ip - ref <= BLZ_MAX_NEAR || len >= BLZ_MIN_FAR_MATCH) break;
        }
        ip += search++ >> 6;
      }
      while (ip > anchor && ref > 0 && src[ip - 1] == src[ref - 1]) {
        ip--;
        ref--;
        len++;
      }
      if (!blz_literals(&o, src + anchor, ip - anchor)) return 0;
      if (!blz_match(&o, len, ip - ref)) return 0;
      ip += len;
      anchor = ip;
      if (ip >= start_limit) break;
      u32 back = ip - 2;
      table[hash4(load_u32le(src + back), shift)] = back;
    }
  }
last_literals:
  if (!blz_literals(&o, src + anchor, n - anchor)) return 0;
  dst[0] |= 0x20;
  return (u32)(o.op - dst);
}

EXPORT(blosclz_decode) i32 blosclz_decode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap) {
  return fmt_blosclz_decode(src, srclen, dst, dstcap);
}
EXPORT(blosclz_encode) u32 blosclz_encode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 clevel) {
  return fmt_blosclz_encode(src, srclen, dst, dstcap, clevel);
}
