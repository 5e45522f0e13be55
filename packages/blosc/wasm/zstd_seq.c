/*
 * The sequence execution of the zstd decoder (RFC 8878 §3.1.1.3.2 and §3.1.1.4) and its Huffman
 * literal streams (§4.2.2): the hot loops of src/zstd.ts, which parses everything else (frames,
 * literals headers, tables) in TypeScript and runs these kernels when the stream and its output
 * live in the module's memory (src/zstd-wasm.ts).
 *
 * Same checks, same order, same results as executeSequences in src/zstd.ts: it returns 0, or a
 * SEQ_* code with the two numbers of its error message in result[2..3], and the output and
 * literal positions in result[0..1], the sequences executed in result[4].
 */
#include "common.h"
#include "copy.h"

#define SEQ_BITS_EARLY 1     /* result[2] = nbSeq, result[3] = sequence index */
#define SEQ_LITERALS 2       /* literals left, ll */
#define SEQ_ROOM 3           /* lit - out, ll + ml + literals left */
#define SEQ_OFFSET 4         /* out - frameStart, offset */
#define SEQ_BITS_LEFT 5      /* 0, remaining bits (as i32) */

static const u32 LL_BASE[36] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11,  12,   13,   14,   15,   16,    18,
                                20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
static const u8 LL_BITS[36] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const u32 ML_BASE[53] = {3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,  15,  16,  17,  18,   19,   20,
                                21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,  33,  34,  35,  37,   39,   41,
                                43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
static const u8 ML_BITS[53] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                               0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* One FSE decoding table: 1 << accuracy entries of symbol, bits and base. */
typedef struct {
  const u8 *symbol;
  const u8 *bits;
  const u16 *base;
  u32 accuracy;
} fse_table;

/*
 * The backward bit stream of src[start, end): `remaining` bits not consumed (negative after
 * reading past the start; the bits past the start read as zeros). The caller leaves 8 readable
 * bytes after `end`.
 */
typedef struct {
  const u8 *start;
  i32 remaining;
} back_bits;

INLINE u32 bits_read(back_bits *b, u32 n) {
  i32 pos = b->remaining - (i32)n;
  u32 mask = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
  u32 v;
  if (LIKELY(pos >= 0)) {
    v = (u32)(load_u64(b->start + (pos >> 3)) >> (pos & 7)) & mask;
  } else if (b->remaining <= 0) {
    v = 0;
  } else {
    /* fewer than n bits left: they are the high bits, zeros below */
    u32 low = (u32)load_u64(b->start) & ((1u << b->remaining) - 1u);
    v = (low << (u32)(-pos)) & mask;
  }
  b->remaining = pos;
  return v;
}

/*
 * args (u32): src, start, end, nbSeq, dst, literals, frameStart, blockStart, blockEnd, then for
 * ll, of, ml: symbol, bits, base, accuracy. rep: the three repeated offsets (in and out).
 * result: out, lit, and the two numbers of an error.
 */
EXPORT(zstd_sequences)
i32 zstd_sequences(const u32 *args, u32 *rep, i32 *result) {
  const u8 *src = (const u8 *)(size_t)args[0];
  u32 start = args[1], end = args[2], nbSeq = args[3];
  u8 *dst = (u8 *)(size_t)args[4];
  u32 lit = args[5], frameStart = args[6], out = args[7];
  const u32 litEnd = args[8];
  fse_table ll = {(const u8 *)(size_t)args[9], (const u8 *)(size_t)args[10], (const u16 *)(size_t)args[11], args[12]};
  fse_table of = {(const u8 *)(size_t)args[13], (const u8 *)(size_t)args[14], (const u16 *)(size_t)args[15], args[16]};
  fse_table ml = {(const u8 *)(size_t)args[17], (const u8 *)(size_t)args[18], (const u16 *)(size_t)args[19], args[20]};
  u8 last = src[end - 1]; /* non-zero: checked by the caller */
  back_bits b = {src + start, (i32)((end - start - 1) * 8 + (31 - __builtin_clz((u32)last)))};
  u32 llState = bits_read(&b, ll.accuracy);
  u32 ofState = bits_read(&b, of.accuracy);
  u32 mlState = bits_read(&b, ml.accuracy);
  u32 r0 = rep[0], r1 = rep[1], r2 = rep[2];
  i32 code = 0;
  u32 i = 0;
  for (; i < nbSeq; i++) {
    u32 ofCode = of.symbol[ofState];
    u32 mlCode = ml.symbol[mlState];
    u32 llCode = ll.symbol[llState];
    u32 offsetValue = (1u << ofCode) + bits_read(&b, ofCode);
    u32 mlen = ML_BASE[mlCode] + bits_read(&b, ML_BITS[mlCode]);
    u32 llen = LL_BASE[llCode] + bits_read(&b, LL_BITS[llCode]);
    if (i + 1 < nbSeq) {
      llState = ll.base[llState] + bits_read(&b, ll.bits[llState]);
      mlState = ml.base[mlState] + bits_read(&b, ml.bits[mlState]);
      ofState = of.base[ofState] + bits_read(&b, of.bits[ofState]);
    }
    if (UNLIKELY(b.remaining < 0)) {
      code = SEQ_BITS_EARLY;
      result[2] = (i32)nbSeq;
      result[3] = (i32)i;
      break;
    }
    u32 offset;
    if (offsetValue > 3) {
      offset = offsetValue - 3;
      r2 = r1;
      r1 = r0;
      r0 = offset;
    } else {
      u32 index = offsetValue - 1 + (llen == 0 ? 1 : 0);
      if (index == 0) {
        offset = r0;
      } else {
        offset = index == 3 ? r0 - 1 : index == 1 ? r1 : r2;
        if (index != 1) r2 = r1;
        r1 = r0;
        r0 = offset;
      }
    }
    if (UNLIKELY(llen > litEnd - lit)) {
      code = SEQ_LITERALS;
      result[2] = (i32)(litEnd - lit);
      result[3] = (i32)llen;
      break;
    }
    if (UNLIKELY(out + mlen > lit)) {
      code = SEQ_ROOM;
      result[2] = (i32)(lit - out);
      result[3] = (i32)(llen + mlen + (litEnd - lit));
      break;
    }
    /* Literals move down (out <= lit). With at least 16 bytes between them, 16-byte vectors
       never overwrite a literal not read yet, and the last one's excess lands in free room
       below the literals; closer, bytes are moved one by one (forward is safe: out < lit). */
    if (lit - out >= 16) {
      u8 *op = dst + out;
      const u8 *ip = dst + lit;
      u8 *e = op + llen;
      while (op < e) {
        wasm_v128_store(op, wasm_v128_load(ip));
        op += 16;
        ip += 16;
      }
    } else {
      for (u32 k = 0; k < llen; k++) dst[out + k] = dst[lit + k];
    }
    lit += llen;
    out += llen;
    /* offset 0 can only come from a repeated offset of 0 (rep[0] - 1 with rep[0] = 1) */
    if (UNLIKELY(offset == 0 || offset > out - frameStart)) {
      code = SEQ_OFFSET;
      result[2] = (i32)(out - frameStart);
      result[3] = (i32)offset;
      break;
    }
    /* The literals not used yet start at lit: the match may not write past them (copy_match
       stores whole vectors only when 16 bytes of room follow the match). */
    copy_match(dst + out, offset, mlen, dst + lit);
    out += mlen;
  }
  if (code == 0 && b.remaining != 0) {
    code = SEQ_BITS_LEFT;
    result[2] = 0;
    result[3] = b.remaining;
  }
  rep[0] = r0;
  rep[1] = r1;
  rep[2] = r2;
  result[0] = (i32)out;
  result[1] = (i32)lit;
  result[4] = (i32)i;
  return code;
}

/*
 * Huffman-coded literal streams (RFC 8878 §4.2.2), decoded as decodeHuffmanStream of
 * src/zstd-entropy.ts decodes one: each byte peeks maxBits bits (bits past the stream's start
 * read as zeros), writes the table entry's symbol and consumes the entry's bits; a valid stream
 * ends with exactly 0 bits left. The caller has checked each stream's end marker and leaves 8
 * readable bytes after the last stream.
 */
typedef struct {
  const u8 *base;  /* the stream's first byte */
  i32 remaining;   /* bits not consumed yet; negative after reading past the start */
} huff_stream;

INLINE huff_stream huff_open(const u8 *src, u32 start, u32 end) {
  u8 last = src[end - 1]; /* non-zero: checked by the caller */
  huff_stream h = {src + start, (i32)((end - start - 1) * 8 + (31 - __builtin_clz((u32)last)))};
  return h;
}

/* Four symbols from one 64-bit load; the caller made sure remaining >= 4 * maxBits (<= 44 bits,
   all within the 57 bits a load shifted by at most 7 holds). */
INLINE void huff_four(huff_stream *h, const u8 *symbol, const u8 *bits, u32 maxBits, u32 mask, u8 *out) {
  u32 shift = 4 * maxBits;
  i32 pos = h->remaining - (i32)shift;
  u64 word = load_u64(h->base + (pos >> 3)) >> (pos & 7);
  for (int k = 0; k < 4; k++) {
    u32 index = (u32)(word >> (shift - maxBits)) & mask;
    out[k] = symbol[index];
    shift -= bits[index]; /* each symbol uses at most maxBits bits: shift stays >= maxBits */
  }
  h->remaining = pos + (i32)shift;
}

/* Symbols one by one into out[from, to), with every case of the stream's start. */
INLINE void huff_tail(huff_stream *h, const u8 *symbol, const u8 *bits, u32 maxBits, u32 mask, u8 *out, u32 from, u32 to) {
  i32 remaining = h->remaining;
  for (u32 i = from; i < to; i++) {
    i32 pos = remaining - (i32)maxBits;
    u32 index;
    if (LIKELY(pos >= 0)) {
      index = (u32)(load_u64(h->base + (pos >> 3)) >> (pos & 7)) & mask;
    } else if (remaining <= 0) {
      index = 0;
    } else {
      /* fewer than maxBits bits left: they are the high bits, zeros below */
      index = (((u32)load_u64(h->base) & ((1u << remaining) - 1u)) << (u32)(-pos)) & mask;
    }
    out[i] = symbol[index];
    remaining -= bits[index];
  }
  h->remaining = remaining;
}

/* One stream src[start, end) into out[from, to); returns the bits left. */
EXPORT(zstd_huffman)
i32 zstd_huffman(const u8 *src, u32 start, u32 end, const u8 *symbol, const u8 *bits, u32 maxBits, u8 *out, u32 from, u32 to) {
  huff_stream h = huff_open(src, start, end);
  const u32 mask = (1u << maxBits) - 1u;
  const i32 span = (i32)(4 * maxBits);
  u32 i = from;
  for (; to - i >= 4 && h.remaining >= span; i += 4) huff_four(&h, symbol, bits, maxBits, mask, out + i);
  huff_tail(&h, symbol, bits, maxBits, mask, out, i, to);
  return h.remaining;
}

/*
 * The four streams of a literals section (bounds[0..4] delimit them in src) into out from `base`:
 * streams 0-2 get `segment` bytes each, stream 3 the rest up to `end`. The streams are
 * independent, so they are decoded side by side (four chains of table lookups in flight instead
 * of one) while each has bits and bytes for four more symbols, then each is finished alone.
 * left[k]: stream k's bits left.
 */
EXPORT(zstd_huffman4)
void zstd_huffman4(const u8 *src, const u32 *bounds, const u8 *symbol, const u8 *bits, u32 maxBits, u8 *out, u32 base, u32 segment, u32 end, i32 *left) {
  huff_stream h[4];
  u32 from[4], to[4];
  for (int k = 0; k < 4; k++) {
    h[k] = huff_open(src, bounds[k], bounds[k + 1]);
    from[k] = base + (u32)k * segment;
    to[k] = k == 3 ? end : base + (u32)(k + 1) * segment;
  }
  const u32 mask = (1u << maxBits) - 1u;
  const i32 span = (i32)(4 * maxBits);
  u32 done = 0; /* bytes written by each stream so far */
  u32 shortest = to[3] - from[3]; /* stream 3 is never longer than the others */
  while (shortest - done >= 4 && h[0].remaining >= span && h[1].remaining >= span && h[2].remaining >= span && h[3].remaining >= span) {
    huff_four(&h[0], symbol, bits, maxBits, mask, out + from[0] + done);
    huff_four(&h[1], symbol, bits, maxBits, mask, out + from[1] + done);
    huff_four(&h[2], symbol, bits, maxBits, mask, out + from[2] + done);
    huff_four(&h[3], symbol, bits, maxBits, mask, out + from[3] + done);
    done += 4;
  }
  for (int k = 0; k < 4; k++) {
    u32 i = from[k] + done;
    for (; to[k] - i >= 4 && h[k].remaining >= span; i += 4) huff_four(&h[k], symbol, bits, maxBits, mask, out + i);
    huff_tail(&h[k], symbol, bits, maxBits, mask, out, i, to[k]);
    left[k] = h[k].remaining;
  }
}
