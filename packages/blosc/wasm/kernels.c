/*
 * Whole-block and whole-chunk entry points, and the linear-memory arena.
 *
 * A block (format-facts 1.3-1.6) is a sequence of streams, each an i32 csize prefix followed by
 * csize bytes: raw filtered bytes when csize equals the split length, a codec stream otherwise.
 * Streams are decoded into scratch and unfiltered into the destination in one call, so a JS
 * caller pays one boundary crossing per block (decode_block) or per chunk (decode_chunk).
 */
#include "common.h"
#include "lz_tables.h"
#include "adler32.h"

u32 HASH_TABLE[1 << MAX_HASH_LOG];
u16 CHAIN_TABLE[1 << 16];

/* Codec numbers of encode_block / decode_block: the header's format code, plus 8 for lz4hc. */
#define CODEC_BLOSCLZ 0
#define CODEC_LZ4 1
#define CODEC_LZ4HC 8

#define FILTER_NONE 0
#define FILTER_SHUFFLE 1
#define FILTER_BITSHUFFLE 2

static int filter_active(u32 filter, u32 typesize, u32 bsize) {
  if (filter == FILTER_SHUFFLE) return typesize > 1;
  if (filter == FILTER_BITSHUFFLE) return bsize >= typesize;
  return 0;
}

/*
 * Decode one block of bsize bytes whose streams start at offset bstart of src (srclen bytes
 * readable) into dst. scratch must hold 2*bsize bytes. Returns bsize or a negative error.
 */
EXPORT(decode_block)
i32 decode_block(const u8 *src, u32 srclen, u32 bstart, u32 bsize, u32 typesize, u32 nsplits, u32 codec,
                 u32 filter, u8 *dst, u8 *scratch) {
  if (typesize == 0 || nsplits == 0 || bsize % nsplits != 0 || bsize > 0x7fffffffu) return ERR_ARGUMENT;
  u32 neblock = bsize / nsplits;
  int filtered = filter_active(filter, typesize, bsize);
  u8 *target = filtered ? scratch : dst;
  /*
   * A shuffled block split into one stream per byte plane: raw planes are read in place by the
   * unfilter instead of being copied into scratch first. (Bit shuffle transposes each plane on its
   * own only when the element count is a multiple of 8; otherwise the block is stored as is.)
   */
  int in_place = filtered && nsplits == typesize && nsplits > 1 &&
                 (filter == FILTER_SHUFFLE ? (typesize == 2 || typesize == 4 || typesize == 8 || typesize == 16)
                                           : neblock % 8 == 0);
  const u8 *planes[16];
  u32 pos = bstart;
  for (u32 s = 0; s < nsplits; s++) {
    if (pos > srclen || srclen - pos < 4) return ERR_SRC_TRUNCATED;
    u32 csize = load_u32le(src + pos);
    pos += 4;
    if (csize > 0x7fffffffu) return ERR_CORRUPT;
    if (csize > srclen - pos) return ERR_SRC_TRUNCATED;
    u8 *out = target + (size_t)s * neblock;
    if (csize == neblock) {
      if (in_place) planes[s] = src + pos;
      else __builtin_memcpy(out, src + pos, neblock);
    } else {
      i32 got;
      if (codec == CODEC_BLOSCLZ) got = fmt_blosclz_decode(src + pos, csize, out, neblock);
      else if (codec == CODEC_LZ4) got = fmt_lz4_decode(src + pos, csize, out, neblock);
      else return ERR_CODEC;
      if (got < 0) return got;
      if ((u32)got != neblock) return ERR_SIZE_MISMATCH;
      if (in_place) planes[s] = out;
    }
    pos += csize;
  }
  if (in_place) {
    if (filter == FILTER_SHUFFLE) fmt_unshuffle_planes(typesize, neblock, planes, dst);
    else fmt_bitunshuffle_planes(typesize, neblock, planes, dst, scratch + bsize);
  } else if (filtered) {
    if (filter == FILTER_SHUFFLE) fmt_unshuffle(typesize, bsize, scratch, dst);
    else fmt_bitunshuffle(typesize, bsize, scratch, dst, scratch + bsize);
  }
  return (i32)bsize;
}

/* The filtered position of byte p of a block of bsize bytes (shuffle: byte planes of n items). */
INLINE u32 filtered_position(u32 p, u32 shuffled, u32 typesize, u32 n) {
  if (!shuffled || p >= n * typesize) return p; /* the tail past whole items is not shuffled */
  return (p % typesize) * n + p / typesize;
}

/*
 * Bytes [p0, p1) of one block (same arguments as decode_block) into dst, decoding each stream
 * only as far as the wanted bytes lie in it: one element of a shuffled block costs on average
 * half the block's decoding, and streams holding none of the bytes are skipped by their csize.
 * Bit-shuffled blocks are refused with ERR_ARGUMENT (every element spans all of a plane's bits;
 * the caller decodes the whole block). scratch must hold bsize bytes. Returns p1 - p0 or a
 * negative error. A stream that ends before the wanted bytes is ERR_SIZE_MISMATCH, as in
 * decode_block; streams past the last wanted byte are not looked at.
 */
EXPORT(decode_block_range)
i32 decode_block_range(const u8 *src, u32 srclen, u32 bstart, u32 bsize, u32 typesize, u32 nsplits, u32 codec,
                       u32 filter, u32 p0, u32 p1, u8 *dst, u8 *scratch) {
  if (typesize == 0 || nsplits == 0 || nsplits > 16 || bsize % nsplits != 0 || bsize > 0x7fffffffu) return ERR_ARGUMENT;
  if (p0 > p1 || p1 > bsize || filter == FILTER_BITSHUFFLE) return ERR_ARGUMENT;
  if (p0 == p1) return 0;
  u32 neblock = bsize / nsplits;
  u32 shuffled = filter_active(filter, typesize, bsize);
  u32 n = bsize / typesize;
  /* How far into each stream the wanted bytes reach (0: the stream is not needed). */
  u32 want[16] = {0};
  u32 last = 0;
  for (u32 p = p0; p < p1; p++) {
    u32 q = filtered_position(p, shuffled, typesize, n);
    u32 s = q / neblock;
    u32 reach = q - s * neblock + 1;
    if (reach > want[s]) want[s] = reach;
    if (s > last) last = s;
  }
  const u8 *streams[16];
  u32 pos = bstart;
  for (u32 s = 0; s <= last; s++) {
    if (pos > srclen || srclen - pos < 4) return ERR_SRC_TRUNCATED;
    u32 csize = load_u32le(src + pos);
    pos += 4;
    if (csize > 0x7fffffffu) return ERR_CORRUPT;
    if (csize > srclen - pos) return ERR_SRC_TRUNCATED;
    if (want[s] != 0) {
      if (csize == neblock) {
        streams[s] = src + pos;
      } else {
        u8 *out = scratch + (size_t)s * neblock;
        i32 got;
        if (codec == CODEC_BLOSCLZ) got = fmt_blosclz_decode_prefix(src + pos, csize, out, neblock, want[s]);
        else if (codec == CODEC_LZ4) got = fmt_lz4_decode_prefix(src + pos, csize, out, neblock, want[s]);
        else return ERR_CODEC;
        if (got < 0) return got;
        if ((u32)got < want[s]) return ERR_SIZE_MISMATCH;
        streams[s] = out;
      }
    }
    pos += csize;
  }
  for (u32 p = p0; p < p1; p++) {
    u32 q = filtered_position(p, shuffled, typesize, n);
    u32 s = q / neblock;
    dst[p - p0] = streams[s][q - s * neblock];
  }
  return (i32)(p1 - p0);
}

/*
 * Decode one stream, or a prefix of it (srclen bytes), into dst until at least `want` bytes are
 * out. Returns the count out (it may pass `want`; fewer when the given bytes ended first, which
 * for a prefix means more of the stream is needed) or a negative error. The decoders never read
 * past srclen, so a prefix cut anywhere is safe.
 */
EXPORT(decode_stream_prefix)
i32 decode_stream_prefix(u32 codec, const u8 *src, u32 srclen, u8 *dst, u32 dstcap, u32 want) {
  if (codec == CODEC_BLOSCLZ) return fmt_blosclz_decode_prefix(src, srclen, dst, dstcap, want);
  if (codec == CODEC_LZ4) return fmt_lz4_decode_prefix(src, srclen, dst, dstcap, want);
  return ERR_CODEC;
}

/*
 * Decode blocks [first, end) of a Blosc 1.x chunk (src, srclen readable bytes) into dst, block j
 * going to dst + (j - first) * blocksize. Applies the decoder split rule of c-blosc 1.14-1.21.
 * scratch must hold 2 * blocksize bytes. Returns the number of bytes written or a negative error.
 * The JS caller validates the header first (readChunkHeader); the checks here keep memory safe.
 */
EXPORT(decode_chunk)
i32 decode_chunk(const u8 *src, u32 srclen, u32 first, u32 end, u8 *dst, u32 dstcap, u8 *scratch) {
  if (srclen < 16) return ERR_HEADER;
  u32 flags = src[2], typesize = src[3];
  u32 nbytes = load_u32le(src + 4), blocksize = load_u32le(src + 8), cbytes = load_u32le(src + 12);
  if (nbytes > 0x7fffffffu || blocksize > 0x7fffffffu || cbytes > 0x7fffffffu) return ERR_HEADER;
  if (nbytes == 0) return 0;
  if (src[0] != 2 || (flags & 0x08) || typesize == 0 || blocksize == 0) return ERR_HEADER;
  if (cbytes < 16) return ERR_HEADER;
  u32 limit = cbytes < srclen ? cbytes : srclen;
  u32 nblocks = nbytes / blocksize + (nbytes % blocksize ? 1 : 0);
  u32 leftover = nbytes % blocksize;
  if (first > end || end > nblocks) return ERR_ARGUMENT;
  u32 start_byte = first * blocksize;
  u32 end_byte = end == nblocks ? nbytes : end * blocksize;
  if (end_byte - start_byte > dstcap) return ERR_DST_SMALL;
  if (flags & 0x02) {
    if (cbytes != nbytes + 16) return ERR_HEADER;
    if (limit < cbytes) return ERR_SRC_TRUNCATED;
    __builtin_memcpy(dst, src + 16 + start_byte, end_byte - start_byte);
    return (i32)(end_byte - start_byte);
  }
  if (src[1] != 1) return ERR_HEADER;
  u32 codec = flags >> 5;
  if (codec > 4) return ERR_HEADER;
  if (nblocks > (cbytes - 16) / 4) return ERR_HEADER;
  if (limit < 16 + 4 * nblocks) return ERR_SRC_TRUNCATED;
  u32 filter = (flags & 0x01) ? FILTER_SHUFFLE : (flags & 0x04) ? FILTER_BITSHUFFLE : FILTER_NONE;
  for (u32 j = first; j < end; j++) {
    int is_leftover = leftover != 0 && j == nblocks - 1;
    u32 bsize = is_leftover ? leftover : blocksize;
    u32 nsplits = (!(flags & 0x10) && typesize <= 16 && bsize / typesize >= 128 && !is_leftover) ? typesize : 1;
    /* Real writers keep blocksize a multiple of typesize; c-blosc would leave the tail unset. */
    if (bsize % nsplits != 0) return ERR_HEADER;
    u32 bstart = load_u32le(src + 16 + 4 * j);
    if (bstart > 0x7fffffffu) return ERR_CORRUPT;
    i32 r = decode_block(src, limit, bstart, bsize, typesize, nsplits, codec, filter,
                         dst + (size_t)(j - first) * blocksize, scratch);
    if (r < 0) return r;
  }
  return (i32)(end_byte - start_byte);
}

/*
 * Encode one block: filter src (bsize bytes) into scratch (needs 2*bsize bytes), cut it into
 * nsplits streams and write each as i32 csize + bytes into dst (dstcap bytes). A stream that does
 * not come out shorter than its split is stored raw. codec: 0 blosclz, 1 lz4, 8 lz4hc; level is the
 * Blosc clevel 1..9 (lz4: acceleration 10 - clevel; lz4hc: chain depth 2^clevel).
 * Returns the bytes written or a negative error (ERR_DST_SMALL when the block does not fit).
 */
EXPORT(encode_block)
i32 encode_block(const u8 *src, u32 bsize, u32 typesize, u32 nsplits, u32 codec, u32 filter, u32 level, u8 *dst,
                 u32 dstcap, u8 *scratch) {
  if (typesize == 0 || nsplits == 0 || bsize % nsplits != 0 || bsize > 0x7fffffffu) return ERR_ARGUMENT;
  if (codec != CODEC_BLOSCLZ && codec != CODEC_LZ4 && codec != CODEC_LZ4HC) return ERR_CODEC;
  const u8 *in = src;
  if (filter_active(filter, typesize, bsize)) {
    if (filter == FILTER_SHUFFLE) fmt_shuffle(typesize, bsize, src, scratch);
    else fmt_bitshuffle(typesize, bsize, src, scratch, scratch + bsize);
    in = scratch;
  }
  u32 neblock = bsize / nsplits;
  u32 op = 0;
  for (u32 s = 0; s < nsplits; s++) {
    if (dstcap - op < 4) return ERR_DST_SMALL;
    u32 room = dstcap - op - 4;
    u32 cap = neblock - 1 < room ? neblock - 1 : room;
    const u8 *part = in + (size_t)s * neblock;
    u8 *out = dst + op + 4;
    u32 csize = 0;
    if (neblock > 1) {
      if (codec == CODEC_BLOSCLZ) csize = fmt_blosclz_encode(part, neblock, out, cap, level);
      else if (codec == CODEC_LZ4) csize = fmt_lz4_encode(part, neblock, out, cap, level >= 9 ? 1 : 10 - level);
      else csize = fmt_lz4hc_encode(part, neblock, out, cap, level);
    }
    if (csize == 0 || csize >= neblock) {
      if (room < neblock) return ERR_DST_SMALL;
      __builtin_memcpy(out, part, neblock);
      csize = neblock;
    }
    store_u32le(dst + op, csize);
    op += 4 + csize;
  }
  return (i32)op;
}

/* ---- arena ---- */

extern u8 __heap_base;
static u32 arena_top;

/*
 * Reserve n bytes (16-byte aligned, followed by 64 bytes of slack) from the arena, growing the
 * memory when needed. Returns 0 when memory cannot grow. JS must re-read memory.buffer afterwards.
 */
EXPORT(alloc) u32 alloc(u32 n) {
  if (arena_top == 0) arena_top = (u32)(size_t)&__heap_base;
  u64 p = ((u64)arena_top + 15) & ~(u64)15;
  u64 end = p + n + 64;
  if (end > 0xffff0000ull) return 0;
  u64 have = (u64)__builtin_wasm_memory_size(0) << 16;
  if (end > have) {
    u64 pages = (end - have + 65535) >> 16;
    if (__builtin_wasm_memory_grow(0, (size_t)pages) == (size_t)-1) return 0;
  }
  arena_top = (u32)(p + n);
  return (u32)p;
}

/* Release everything alloc handed out. */
EXPORT(reset) void reset(void) { arena_top = (u32)(size_t)&__heap_base; }

/* ---- reductions over decoded data ---- */

/*
 * numpy's pairwise summation of float64 (pairwise_sum in numpy's loops): below 8 values a plain
 * running sum, up to 128 eight running sums (here four two-lane vectors: the same additions
 * lane by lane) combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) plus the tail, above that two
 * halves cut at a multiple of 8. No reassociation: the result is numpy's to the last bit.
 */
static double pairwise_f64(const double *a, u32 n) {
  if (n < 8) {
    double res = 0;
    for (u32 i = 0; i < n; i++) res += a[i];
    return res;
  }
  if (n <= 128) {
    v128_t r01 = wasm_v128_load(a), r23 = wasm_v128_load(a + 2), r45 = wasm_v128_load(a + 4), r67 = wasm_v128_load(a + 6);
    u32 whole = n - n % 8;
    u32 i = 8;
    for (; i < whole; i += 8) {
      r01 = wasm_f64x2_add(r01, wasm_v128_load(a + i));
      r23 = wasm_f64x2_add(r23, wasm_v128_load(a + i + 2));
      r45 = wasm_f64x2_add(r45, wasm_v128_load(a + i + 4));
      r67 = wasm_f64x2_add(r67, wasm_v128_load(a + i + 6));
    }
    double res = ((wasm_f64x2_extract_lane(r01, 0) + wasm_f64x2_extract_lane(r01, 1)) +
                  (wasm_f64x2_extract_lane(r23, 0) + wasm_f64x2_extract_lane(r23, 1))) +
                 ((wasm_f64x2_extract_lane(r45, 0) + wasm_f64x2_extract_lane(r45, 1)) +
                  (wasm_f64x2_extract_lane(r67, 0) + wasm_f64x2_extract_lane(r67, 1)));
    for (; i < n; i++) res += a[i];
    return res;
  }
  u32 half = n / 2;
  half -= half % 8;
  return pairwise_f64(a, half) + pairwise_f64(a + half, n - half);
}

/* start + the sum of a[0..n) as numpy's np.sum adds them: buffers of 8192 values, each pairwise. */
EXPORT(sum_f64_like_numpy)
double sum_f64_like_numpy(const double *a, u32 n, double start) {
  if (n == 0) return start;
  double chunk = pairwise_f64(a, n < 8192 ? n : 8192);
  for (u32 at = 8192; at < n; at += 8192) chunk += pairwise_f64(a + at, n - at < 8192 ? n - at : 8192);
  return start + chunk;
}

/*
 * Adler-32 of n bytes at p (in this memory), continuing from `previous`: the checksum of a
 * format-2 chunk read into this memory or encoded here, computed where it lies instead of being
 * copied into @fmt/header's checksum module first (a chunk's worth of bytes per chunk).
 */
EXPORT(adler32)
u32 adler32(const u8 *p, u32 n, u32 previous) { return fmt_adler32(p, n, previous); }
