/*
 * Raw LZ4 block decoder (bounds-checked) and two encoders (greedy single-probe "fast" with an
 * acceleration factor, which makes LZ4's own fast compressor's choices, and a hash-chain "high
 * compression" variant), written from the LZ4 block format description (format-facts 3.1).
 */
#include "common.h"
#include "copy.h"
#include "lz_tables.h"

#define LZ4_MIN_MATCH 4
#define LZ4_LAST_LITERALS 5 /* the last 5 bytes of a block are always literals */
#define LZ4_MFLIMIT 12      /* no match may start in the last 12 bytes */
#define LZ4_MAX_DISTANCE 65535

/*
 * Decodes until the stream ends or, when want <= dstcap, until at least `want` bytes are out
 * (a single element of a block needs only the stream's prefix up to it). The full decoder
 * passes want = UINT32_MAX, so its checks stay those of a whole stream. fmt_lz4_byte_values
 * repeats the general path's checks without the writes: change both together.
 */
INLINE i32 lz4_decode_upto(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 want) {
  const u8 *ip = src;
  const u8 *const iend = src + srclen;
  u8 *op = dst;
  const u8 *const oend = dst + dstcap;
  if (srclen == 0) return ERR_CORRUPT;
  for (;;) {
    if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED; /* the block ended with a match */
    u32 token = *ip++;
    u32 lit = token >> 4;
    /*
     * The common short sequence (under 15 literals, a match of at most 18 bytes at least 8 back)
     * far from both ends: one 16-byte store for the literals and three stores for the match,
     * without the length loops or the end-of-buffer cases. Data with many short matches (small
     * integers, sign bytes) is decoded almost entirely here. With 32 bytes left after the token,
     * the literals (<= 14), the offset and the stores (<= 18 bytes past op) all stay in bounds,
     * and the stream cannot end inside the sequence.
     */
    if (LIKELY(lit < 15 && (u32)(iend - ip) >= 32 && (u32)(oend - op) >= 32)) {
      wasm_v128_store(op, wasm_v128_load(ip));
      op += lit;
      ip += lit;
      if (UNLIKELY((u32)(op - dst) >= want)) break;
      u32 dist = load_u16le(ip);
      u32 code = token & 15;
      if (LIKELY(code < 15 && dist >= 8 && dist <= (u32)(op - dst))) {
        ip += 2;
        const u8 *m = op - dist;
        if (dist >= 16) {
          wasm_v128_store(op, wasm_v128_load(m));
        } else {
          store_u64(op, load_u64(m));
          store_u64(op + 8, load_u64(m + 8));
        }
        store_u16le(op + 16, load_u16le(m + 16));
        op += code + LZ4_MIN_MATCH;
        if (UNLIKELY((u32)(op - dst) >= want)) break;
        continue;
      }
      /* A longer or closer match, or a corrupt offset: the general code below checks it. */
      lit = 0;
    } else if (lit == 15) {
      u32 b;
      do {
        if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED;
        b = *ip++;
        lit += b;
        if (UNLIKELY(lit > srclen)) return ERR_SRC_TRUNCATED;
      } while (b == 255);
    }
    if (lit != 0) {
      if (UNLIKELY(lit > (u32)(iend - ip))) return ERR_SRC_TRUNCATED;
      if (UNLIKELY(lit > (u32)(oend - op))) return ERR_DST_SMALL;
      copy_literals(op, ip, lit, oend, iend);
      op += lit;
      ip += lit;
      if (ip == iend) break; /* last sequence: literals only */
      if ((u32)(op - dst) >= want) break;
    } else if (ip == iend) {
      break; /* a last sequence of zero literals */
    }
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
    if ((u32)(op - dst) >= want) break;
  }
  return (i32)(op - dst);
}

i32 fmt_lz4_decode(const u8 *src, u32 srclen, u8 *dst, u32 dstcap) { return lz4_decode_upto(src, srclen, dst, dstcap, 0xffffffffu); }

i32 fmt_lz4_decode_prefix(const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 want) {
  return lz4_decode_upto(src, srclen, dst, dstcap, want);
}

/*
 * The byte values an LZ4 block decodes to, without decoding it: every byte it decodes to is one
 * of its literals or a copy of an earlier byte, so `present[b]` is set to 1 for each literal b
 * (the caller clears it). Returns what fmt_lz4_decode would return for the same block and dstcap
 * (the decoded length, or the same error), with the same checks, so a block it accepts is one
 * the decoder accepts. compare_chunk decides a block whose top plane's values all lie on one
 * side of the constant from its literals: on the store benchmark's float64 walk, a few hundred
 * of them where decoding wrote 64 KiB.
 *
 * Its checks are lz4_decode_upto's general path, line for line, without the writes: a change to
 * either changes both. They stay two functions so that the decoder's loop, the codec's hot path,
 * carries nothing for the scan. compare-planes.test.ts pins the two together: counts taken from
 * the literals and counts taken from the decoded plane, over streams overwritten at random, give
 * the same number or the same error.
 */
i32 fmt_lz4_byte_values(const u8 *src, u32 srclen, u32 dstcap, u8 *present) {
  const u8 *ip = src;
  const u8 *const iend = src + srclen;
  u32 out = 0;
  if (srclen == 0) return ERR_CORRUPT;
  for (;;) {
    if (UNLIKELY(ip >= iend)) return ERR_SRC_TRUNCATED;
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
    if (lit != 0) {
      if (UNLIKELY(lit > (u32)(iend - ip))) return ERR_SRC_TRUNCATED;
      if (UNLIKELY(lit > dstcap - out)) return ERR_DST_SMALL;
      for (u32 i = 0; i < lit; i++) present[ip[i]] = 1;
      out += lit;
      ip += lit;
      if (ip == iend) break;
    } else if (ip == iend) {
      break;
    }
    if (UNLIKELY(iend - ip < 2)) return ERR_SRC_TRUNCATED;
    u32 dist = load_u16le(ip);
    ip += 2;
    if (UNLIKELY(dist == 0 || dist > out)) return ERR_CORRUPT;
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
    if (UNLIKELY(len > dstcap - out)) return ERR_DST_SMALL;
    out += len;
  }
  return (i32)out;
}

/* ---- encoders ---- */

typedef struct {
  u8 *op;
  u8 *oend;
} lz4_out;

/* Append one sequence (literals, then a match unless len == 0). Returns 0 when it does not fit. */
static int lz4_emit_general(lz4_out *o, const u8 *lit, u32 nlit, u32 dist, u32 len, const u8 *iend);

/*
 * Short literal run and short match with room to spare on both sides (the common case): one
 * 16-byte vector store for the literals, no length extension bytes.
 */
INLINE int lz4_emit(lz4_out *o, const u8 *lit, u32 nlit, u32 dist, u32 len, const u8 *iend) {
  u8 *op = o->op;
  if (LIKELY(nlit < 15 && len - LZ4_MIN_MATCH < 15 && len != 0 && (u32)(o->oend - op) >= 32 &&
             (u32)(iend - lit) >= 16)) {
    *op = (u8)((nlit << 4) | (len - LZ4_MIN_MATCH));
    wasm_v128_store(op + 1, wasm_v128_load(lit));
    op += 1 + nlit;
    store_u16le(op, (u16)dist);
    o->op = op + 2;
    return 1;
  }
  return lz4_emit_general(o, lit, nlit, dist, len, iend);
}

/*
 * LZ4 refuses a sequence with a match unless 6 bytes more than it needs are free when the room is
 * below its worst-case bound. That margin never changes the outcome: the last 5 bytes are always
 * literals, so the block's last sequence needs those 6 bytes anyway. Fitting exactly is the rule.
 */
static int lz4_emit_general(lz4_out *o, const u8 *lit, u32 nlit, u32 dist, u32 len, const u8 *iend) {
  u32 need = 1 + nlit + (nlit + 240) / 255 + (len ? 2 + (len - LZ4_MIN_MATCH + 240) / 255 : 0);
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
  copy_literals(op, lit, nlit, o->oend, iend);
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

/*
 * Fast encoder: the algorithm of LZ4's LZ4_compress_fast (LZ4 1.9, which c-blosc 1.21 calls), so
 * that a split comes out byte for byte as c-blosc writes it (test/compress-lz4-cblosc.test.ts),
 * and the same as the TypeScript encodeLz4 (src/codecs/lz4.ts):
 *  - inputs below 64 KiB + 11 bytes: 2^13 16-bit slots, hashed from 4 bytes; above: 2^12 32-bit
 *    slots, hashed from 5 bytes ((the 8 bytes at p << 24) * 889523592379, top 12 bits) and
 *    candidates further back than 65535 bytes skipped;
 *  - the table starts zeroed, so an empty slot offers position 0 (a real candidate);
 *  - one probe per position; after a miss the next byte, then a step growing by one every 64
 *    misses, scaled by the acceleration; the search ends once the next probe would lie past
 *    n - 11;
 *  - the next probe's hash is computed before the current candidate is compared, which keeps the
 *    table load off the loop's critical path (a third less time on incompressible byte planes).
 */
#define LZ4_64K_LIMIT (65536u + 11u)
#define LZ4_HASH5_PRIME 889523592379ull

/* Always inlined with a constant `small`, so each table layout gets its own tight loop. */
INLINE u32 lz4_encode_fast(const u8 *src, u32 n, u8 *dst, u32 dstcap, u32 acceleration, const int small) {
  lz4_out o = {dst, dst + dstcap};
  u32 anchor = 0;
  if (n >= LZ4_MFLIMIT + 1) {
    u16 *const table16 = (u16 *)HASH_TABLE;
    u32 *const table32 = HASH_TABLE;
    __builtin_memset(HASH_TABLE, 0, small ? sizeof(u16) << 13 : sizeof(u32) << 12);
#define HASH_AT(p) (small ? (load_u32le(src + (p)) * 2654435761u) >> 19 : (u32)((load_u64(src + (p)) << 24) * LZ4_HASH5_PRIME >> 52))
#define TABLE_GET(h) (small ? (u32)table16[h] : table32[h])
#define TABLE_SET(h, v) (small ? (void)(table16[h] = (u16)(v)) : (void)(table32[h] = (v)))
#define USABLE(ref, at) (small || (at) - (ref) <= LZ4_MAX_DISTANCE)
    const u32 mf_limit = n - LZ4_MFLIMIT; /* last position where a match may start */
    const u32 match_limit = n - LZ4_LAST_LITERALS;
    TABLE_SET(HASH_AT(0), 0);
    u32 ip = 1;
    u32 forward_h = HASH_AT(1);
    for (;;) {
      u32 ref;
      u32 probes = acceleration << 6;
      u32 step = 1;
      u32 forward = ip;
      for (;;) {
        u32 h = forward_h;
        ip = forward;
        forward += step;
        step = probes++ >> 6;
        if (UNLIKELY(forward > mf_limit + 1)) goto last_literals;
        ref = TABLE_GET(h);
        forward_h = HASH_AT(forward);
        TABLE_SET(h, ip);
        if (USABLE(ref, ip) && load_u32le(src + ref) == load_u32le(src + ip)) break;
      }
      while (ip > anchor && ref > 0 && src[ip - 1] == src[ref - 1]) {
        ip--;
        ref--;
      }
      for (;;) {
        u32 len = LZ4_MIN_MATCH + match_length(src, ip + LZ4_MIN_MATCH, ref + LZ4_MIN_MATCH, match_limit);
        if (!lz4_emit(&o, src + anchor, ip - anchor, ip - ref, len, src + n)) return 0;
        ip += len;
        anchor = ip;
        if (ip > mf_limit) goto last_literals;
        TABLE_SET(HASH_AT(ip - 2), ip - 2);
        /* a match right at the new position continues without literals */
        u32 h = HASH_AT(ip);
        ref = TABLE_GET(h);
        TABLE_SET(h, ip);
        if (USABLE(ref, ip) && load_u32le(src + ref) == load_u32le(src + ip)) continue;
        ip++;
        forward_h = HASH_AT(ip);
        break;
      }
    }
  }
#undef HASH_AT
#undef TABLE_GET
#undef TABLE_SET
#undef USABLE
last_literals:
  if (!lz4_emit(&o, src + anchor, n - anchor, 0, 0, src + n)) return 0;
  return (u32)(o.op - dst);
}

u32 fmt_lz4_encode(const u8 *src, u32 n, u8 *dst, u32 dstcap, u32 acceleration) {
  if (acceleration < 1) acceleration = 1;
  if (acceleration > 65537) acceleration = 65537;
  if (n < LZ4_64K_LIMIT) return lz4_encode_fast(src, n, dst, dstcap, acceleration, 1);
  return lz4_encode_fast(src, n, dst, dstcap, acceleration, 0);
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
      if (!lz4_emit(&o, src + anchor, ip - anchor, ip - ref, best_len, src + n)) return 0;
      ip += best_len;
      anchor = ip;
    }
  }
  if (!lz4_emit(&o, src + anchor, n - anchor, 0, 0, src + n)) return 0;
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
