/*
 * A chunk's values compared with a constant on their byte planes, without unshuffling them.
 *
 * A byte-shuffled block holds its n values as typesize planes of n bytes, plane b holding byte b
 * of every value (format-facts 1.6); a split block stores each plane as its own stream. Mapped to
 * an order-preserving key (unsigned integers as they are; signed ones with the sign bit flipped;
 * floats with every bit flipped when negative, the sign bit otherwise), values compare as their
 * keys' bytes read from the most significant plane down. Most values of real data already differ
 * from the constant in the first plane or two: a split block's top plane is decoded first, and
 * decides the block alone when none of its values ties with the constant there (nor, for floats,
 * has a top byte of all exponent bits, where infinity and NaN lie); otherwise the
 * plane below it is decoded and the two are compared at once, and a plane below those only when
 * some 16 values still tie with the constant above it (or hold a float whose exponent is all
 * ones, infinity or NaN, told apart by the lower planes). Counting without a mask, a top plane
 * stored as an LZ4 stream whose literals all lie on one side of the constant decides the block
 * without being decoded (top_stream_decides). A block stored as one stream (a short last block,
 * too few values to split) is decoded whole. No block is unshuffled.
 *
 * NaN compares as IEEE 754 says (only != holds); the caller passes no NaN float constant and no
 * zero float constant (-0 and +0 are equal but their keys differ).
 */
#include "common.h"

#define KIND_UNSIGNED 0
#define KIND_SIGNED 1
#define KIND_FLOAT 2

/* The operators (OP_EQ ... OP_GE), numbered as @fmt/expr numbers them. */
#include "compare_ops.h"

#define MAX_PLANES 8

typedef struct {
  u32 typesize;
  u32 kind;
  u32 op;
  v128_t key[MAX_PLANES];  /* the constant's key bytes, most significant first, in every lane */
  v128_t top_flip;         /* what maps a top byte to its key byte (floats: per lane, see below) */
  v128_t exp_top, exp_next; /* float exponent bits in the top plane and the one below (all ones: inf or NaN) */
  v128_t want_gt, want_eq, want_lt; /* which outcomes the operator accepts: all ones or zero */
} comparison;

/* The key byte of plane `from_top` (0: most significant) of a value whose top byte is `top`. */
INLINE u8 key_byte(u32 kind, u8 byte, u8 top, u32 from_top) {
  if (kind == KIND_UNSIGNED) return byte;
  if (kind == KIND_SIGNED) return from_top == 0 ? (u8)(byte ^ 0x80) : byte;
  u8 sign = (top & 0x80) ? 0xff : 0x00;
  return from_top == 0 ? (u8)(byte ^ (sign | 0x80)) : (u8)(byte ^ sign);
}

/*
 * Compares lanes [0, 16) of planes[] (most significant first, `avail` of them, each pointing at
 * the lanes' bytes) and returns the result mask, or sets *more when `avail` planes do not decide
 * some lane of `valid` (the lanes that hold values).
 */
INLINE v128_t compare_vector(const comparison *c, const u8 *const *planes, u32 avail, u32 at, v128_t valid, int *more) {
  const v128_t zero = wasm_i8x16_splat(0);
  const int is_float = c->kind == KIND_FLOAT;
  v128_t top = wasm_v128_load(planes[0] + at);
  /* Floats: a negative value's bytes are all flipped (its top byte's sign bit too, by 0x80). */
  v128_t sign = is_float ? wasm_i8x16_lt(top, zero) : zero;
  v128_t k = wasm_v128_xor(top, is_float ? wasm_v128_or(sign, c->top_flip) : c->top_flip);
  v128_t gt = wasm_u8x16_gt(k, c->key[0]);
  v128_t eq = wasm_i8x16_eq(k, c->key[0]);
  v128_t special = zero;
  if (is_float) {
    special = wasm_i8x16_eq(wasm_v128_and(top, c->exp_top), c->exp_top);
    /* With the top plane alone (top_plane_decides' last values), a top byte of all exponent bits
       may be infinity or NaN: undecided, as the plane below that tells is not decoded. */
    if (c->typesize > 2 && avail > 1) {
      v128_t next = wasm_v128_load(planes[1] + at);
      special = wasm_v128_and(special, wasm_i8x16_eq(wasm_v128_and(next, c->exp_next), c->exp_next));
    }
  }
  for (u32 p = 1; p < avail && wasm_v128_any_true(eq); p++) {
    k = wasm_v128_xor(wasm_v128_load(planes[p] + at), sign);
    gt = wasm_v128_or(gt, wasm_v128_and(eq, wasm_u8x16_gt(k, c->key[p])));
    eq = wasm_v128_and(eq, wasm_i8x16_eq(k, c->key[p]));
  }
  if (avail < c->typesize && wasm_v128_any_true(wasm_v128_and(wasm_v128_or(eq, special), valid))) {
    *more = 1;
    return zero;
  }
  v128_t lt = wasm_v128_not(wasm_v128_or(gt, eq));
  v128_t result = wasm_v128_or(wasm_v128_or(wasm_v128_and(gt, c->want_gt), wasm_v128_and(eq, c->want_eq)), wasm_v128_and(lt, c->want_lt));
  if (is_float && wasm_v128_any_true(special)) {
    /* Exponent all ones: NaN when any mantissa bit is set (every plane is here by now). */
    v128_t mantissa = wasm_v128_andnot(top, wasm_v128_or(c->exp_top, wasm_i8x16_splat((signed char)0x80)));
    for (u32 p = 1; p < c->typesize; p++) {
      v128_t raw = wasm_v128_load(planes[p] + at);
      mantissa = wasm_v128_or(mantissa, p == 1 ? wasm_v128_andnot(raw, c->exp_next) : raw);
    }
    v128_t nan = wasm_v128_and(special, wasm_i8x16_ne(mantissa, zero));
    result = c->op == OP_NE ? wasm_v128_or(result, nan) : wasm_v128_andnot(result, nan);
  }
  return result;
}

/* One block's planes: the first `avail` (most significant first) are decoded, of n values each. */
typedef struct {
  const u8 *planes[MAX_PLANES];
  u32 avail;
  u32 n;
} block_planes;

/* The result of the 16 values from `at` (past n: false), or *more when they are not decided. */
INLINE v128_t vector_at(const comparison *c, const block_planes *b, u32 at, int *more) {
  if (at + 16 <= b->n) return compare_vector(c, b->planes, b->avail, at, wasm_i8x16_splat(-1), more);
  /* The last values, through 16-byte copies of their planes (zeros after them). */
  u32 left = b->n - at;
  u8 tail[MAX_PLANES][16];
  const u8 *tails[MAX_PLANES];
  for (u32 p = 0; p < b->avail; p++) {
    __builtin_memset(tail[p], 0, 16);
    __builtin_memcpy(tail[p], b->planes[p] + at, left);
    tails[p] = tail[p];
  }
  /* The zeros after the values must not ask for more planes (they may tie with the constant). */
  const v128_t lanes = wasm_i8x16_make(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  v128_t valid = wasm_i8x16_lt(lanes, wasm_i8x16_splat((signed char)left));
  return wasm_v128_and(compare_vector(c, tails, b->avail, 0, valid, more), valid);
}

/* Counts a decided vector's true values and writes their 0/1 bytes to mask (when not 0). */
INLINE u32 emit(v128_t r, u8 *mask, u32 at, u32 n) {
  if (mask) {
    if (at + 16 <= n) {
      wasm_v128_store(mask + at, wasm_v128_and(r, wasm_i8x16_splat(1)));
    } else {
      u8 out[16];
      wasm_v128_store(out, wasm_v128_and(r, wasm_i8x16_splat(1)));
      __builtin_memcpy(mask + at, out, n - at);
    }
  }
  return (u32)__builtin_popcount(wasm_i8x16_bitmask(r));
}

/*
 * The first pass over a block's top two planes, for values of 4 or 8 bytes (`is_float` a
 * constant at each call, so that each loop is compiled for its kind): the vectors of 16 whole
 * values in order, each decided by those planes compared at once, with no loop over planes. Keys
 * are compared as signed bytes (key ^ 0x80), which x64 compares in one instruction where an
 * unsigned comparison takes three. A vector with a value still tied with the constant, or a float whose
 * top byte could hold an exponent of all ones, goes through compare_vector (which may leave it
 * undecided, for the next planes). Returns the first value not looked at (the short last vector).
 */
INLINE u32 first_two_planes(const comparison *c, const block_planes *b, int is_float, u8 *mask, u32 *undecided, u32 *pending, u32 *count) {
  const u8 *p0 = b->planes[0], *p1 = b->planes[1];
  const u32 n = b->n, full = n & ~15u;
  const v128_t zero = wasm_i8x16_splat(0), high = wasm_i8x16_splat((signed char)0x80), low7 = wasm_i8x16_splat(0x7f);
  const v128_t all = wasm_i8x16_splat(-1);
  /* Unsigned integers' top bytes are keys already: flipped to compare signed. */
  const v128_t flip0 = c->kind == KIND_UNSIGNED ? high : zero;
  const v128_t k0 = wasm_v128_xor(c->key[0], high), k1 = wasm_v128_xor(c->key[1], high);
  const v128_t want_gt = c->want_gt, want_lt = c->want_lt;
  u32 matches = 0, waiting = *pending;
  for (u32 v = 0; v < full; v += 16) {
    v128_t top = wasm_v128_load(p0 + v), next = wasm_v128_load(p1 + v);
    v128_t x0, x1, odd;
    if (is_float) {
      /* A negative float's key is every bit flipped; the top byte's sign bit is not, here. */
      v128_t sign = wasm_i8x16_lt(top, zero);
      x0 = wasm_v128_xor(top, wasm_v128_and(sign, low7));
      x1 = wasm_v128_xor(next, wasm_v128_xor(sign, high));
      odd = wasm_i8x16_eq(wasm_v128_and(top, low7), low7);
    } else {
      x0 = wasm_v128_xor(top, flip0);
      x1 = wasm_v128_xor(next, high);
      odd = zero;
    }
    v128_t eq0 = wasm_i8x16_eq(x0, k0);
    v128_t gt = wasm_v128_or(wasm_i8x16_gt(x0, k0), wasm_v128_and(eq0, wasm_i8x16_gt(x1, k1)));
    v128_t tie = wasm_v128_or(wasm_v128_and(eq0, wasm_i8x16_eq(x1, k1)), odd);
    v128_t r;
    if (wasm_v128_any_true(tie)) {
      int more = 0;
      r = compare_vector(c, b->planes, b->avail, v, all, &more);
      if (more) {
        undecided[waiting++] = v;
        continue;
      }
    } else {
      /* Decided by the two planes: greater or less, never equal. */
      r = wasm_v128_bitselect(want_gt, want_lt, gt);
    }
    matches += emit(r, mask, v, n);
  }
  *pending = waiting;
  *count += matches;
  return full;
}

/*
 * A split block's values decided by their top plane alone (`is_float` a constant at each call, as
 * for first_two_planes), when none of them ties with the constant's top key byte and, for floats,
 * none has a top byte whose exponent bits are all ones (infinity or NaN, told apart below): adds
 * their matches to *count, writes their mask and returns 1. At the first 16 values where one
 * does, returns 0 having counted nothing (the mask written so far is written again by the pass
 * over two planes). In real data whole blocks often lie apart from the constant in their top
 * byte: in the store benchmark's float64 walk, 62 of 76 chunks against its 90th percentile. Their
 * second plane is then never decoded.
 */
INLINE int top_plane_decides(const comparison *c, const block_planes *b, int is_float, u8 *mask, u32 *count) {
  const u8 *p0 = b->planes[0];
  const u32 n = b->n, full = n & ~15u;
  const v128_t zero = wasm_i8x16_splat(0), high = wasm_i8x16_splat((signed char)0x80), low7 = wasm_i8x16_splat(0x7f);
  /* Keys compared as signed bytes, as in first_two_planes. */
  const v128_t flip0 = c->kind == KIND_UNSIGNED ? high : zero;
  const v128_t k0 = wasm_v128_xor(c->key[0], high);
  const v128_t want_gt = c->want_gt, want_lt = c->want_lt;
  u32 matches = 0;
  for (u32 v = 0; v < full; v += 16) {
    v128_t top = wasm_v128_load(p0 + v), x0, undecided;
    if (is_float) {
      x0 = wasm_v128_xor(top, wasm_v128_and(wasm_i8x16_lt(top, zero), low7));
      undecided = wasm_v128_or(wasm_i8x16_eq(x0, k0), wasm_i8x16_eq(wasm_v128_and(top, c->exp_top), c->exp_top));
    } else {
      x0 = wasm_v128_xor(top, flip0);
      undecided = wasm_i8x16_eq(x0, k0);
    }
    if (wasm_v128_any_true(undecided)) return 0;
    matches += emit(wasm_v128_bitselect(want_gt, want_lt, wasm_i8x16_gt(x0, k0)), mask, v, n);
  }
  if (full < n) {
    int more = 0;
    v128_t r = vector_at(c, b, full, &more);
    if (more) return 0;
    matches += emit(r, mask, full, n);
  }
  *count += matches;
  return 1;
}

/*
 * For a count without a mask: how many of a split block's n values hold, when its top plane is
 * an LZ4 stream (at p, size bytes, of n bytes decoded) whose every value lies on one side of the
 * constant's top key byte, none tied with it and, for floats, none with all exponent bits in it
 * (infinity or NaN): n or 0, from the stream's literals alone (fmt_lz4_byte_values), the plane
 * never decoded. -1 when that does not decide (a value on each side, a tie, a stream the decoder
 * would refuse or that decodes to another length: the decoder then says so).
 */
static i32 top_stream_decides(const comparison *c, const u8 *p, u32 size, u32 n) {
  u8 present[256];
  __builtin_memset(present, 0, sizeof present);
  if (fmt_lz4_byte_values(p, size, n, present) != (i32)n) return -1;
  const u32 key0 = wasm_u8x16_extract_lane(c->key[0], 0);
  const u32 exp_top = wasm_u8x16_extract_lane(c->exp_top, 0);
  int above = 0, below = 0;
  for (u32 byte = 0; byte < 256; byte++) {
    if (!present[byte]) continue;
    u32 key = key_byte(c->kind, (u8)byte, (u8)byte, 0);
    if (key == key0 || (c->kind == KIND_FLOAT && (byte & exp_top) == exp_top)) return -1;
    if (key > key0) above = 1;
    else below = 1;
  }
  if (above == below) return -1;
  const int holds = above ? wasm_v128_any_true(c->want_gt) : wasm_v128_any_true(c->want_lt);
  return holds ? (i32)n : 0;
}

/*
 * Compares every value of a Blosc 1.x chunk (src, srclen readable bytes; header and bstarts
 * validated by the caller, streams checked again here) with the constant whose typesize
 * little-endian bytes are at `value`: `kind` 0 unsigned, 1 signed, 2 float (typesize 2, 4 or 8),
 * `op` as numbered above. Writes a 0/1 byte per value to mask (when not 0). scratch must hold
 * blocksize bytes rounded up to 16, plus 4 bytes for every 16 values of a block. Streams before
 * `read_from` (split blocks; their size prefixes are there, their bytes need not be) were not read
 * by the caller: a block that needs one of them gives ERR_NOT_READ. Returns the
 * number of values for which the comparison holds, ERR_ARGUMENT when the chunk is not one this
 * kernel compares (a typesize other than 1, 2, 4 or 8; values of more than one byte that are not
 * byte-shuffled; bit-shuffled; memcpyed; blocks that are not whole values), ERR_CODEC for a codec
 * other than BloscLZ and LZ4, or another negative error.
 */
EXPORT(compare_chunk)
i32 compare_chunk(const u8 *src, u32 srclen, u32 kind, u32 op, const u8 *value, u8 *mask, u8 *scratch, u32 read_from) {
  if (srclen < 16 || kind > KIND_FLOAT || op > OP_GE) return ERR_ARGUMENT;
  u32 flags = src[2], T = src[3];
  u32 nbytes = load_u32le(src + 4), blocksize = load_u32le(src + 8), cbytes = load_u32le(src + 12);
  if (src[0] != 2 || src[1] != 1 || (flags & 0x08) || blocksize == 0 || nbytes > 0x7fffffffu || blocksize > 0x7fffffffu || cbytes < 16) return ERR_HEADER;
  if ((flags & 0x02) || (flags & 0x04)) return ERR_ARGUMENT; /* memcpyed, bit-shuffled */
  if (T != 1 && T != 2 && T != 4 && T != 8) return ERR_ARGUMENT;
  if (T > 1 && !(flags & 0x01)) return ERR_ARGUMENT; /* not byte-shuffled */
  if (kind == KIND_FLOAT && T == 1) return ERR_ARGUMENT;
  if (nbytes % T != 0 || blocksize % T != 0) return ERR_ARGUMENT;
  u32 codec = flags >> 5;
  if (codec > 1) return ERR_CODEC;
  u32 limit = cbytes < srclen ? cbytes : srclen;
  u32 nblocks = nbytes / blocksize + (nbytes % blocksize ? 1 : 0);
  u32 leftover = nbytes % blocksize;
  if (nblocks > (limit - 16) / 4) return ERR_SRC_TRUNCATED;

  comparison c;
  c.typesize = T;
  c.kind = kind;
  c.op = op;
  u8 exp_top = 0, exp_next = 0;
  if (kind == KIND_FLOAT) {
    if (T == 2) exp_top = 0x7c;
    else if (T == 4) { exp_top = 0x7f; exp_next = 0x80; }
    else { exp_top = 0x7f; exp_next = 0xf0; }
  }
  c.exp_top = wasm_i8x16_splat((signed char)exp_top);
  c.exp_next = wasm_i8x16_splat((signed char)exp_next);
  c.top_flip = wasm_i8x16_splat(kind == KIND_UNSIGNED ? 0 : (signed char)0x80);
  for (u32 p = 0; p < T; p++) c.key[p] = wasm_i8x16_splat((signed char)key_byte(kind, value[T - 1 - p], value[T - 1], p));
  const v128_t all = wasm_i8x16_splat(-1), none = wasm_i8x16_splat(0);
  c.want_gt = op == OP_GT || op == OP_GE || op == OP_NE ? all : none;
  c.want_eq = op == OP_EQ || op == OP_GE || op == OP_LE ? all : none;
  c.want_lt = op == OP_LT || op == OP_LE || op == OP_NE ? all : none;

  u32 count = 0;
  for (u32 j = 0; j < nblocks; j++) {
    int is_leftover = leftover != 0 && j == nblocks - 1;
    u32 bsize = is_leftover ? leftover : blocksize;
    u32 n = bsize / T;
    u32 nsplits = (!(flags & 0x10) && T <= 16 && n >= 128 && !is_leftover) ? T : 1;
    u32 neblock = bsize / nsplits;
    u32 pos = load_u32le(src + 16 + 4 * j);
    /* Where each stream lies, and whether it is stored raw. */
    u32 at[MAX_PLANES], size[MAX_PLANES];
    for (u32 s = 0; s < nsplits; s++) {
      if (pos > limit || limit - pos < 4) return ERR_SRC_TRUNCATED;
      u32 csize = load_u32le(src + pos);
      pos += 4;
      if (csize > limit - pos) return ERR_SRC_TRUNCATED;
      at[s] = pos;
      size[s] = csize;
      pos += csize;
    }
    /* planes[p]: the plane of byte T-1-p (most significant first), decoded when first needed. */
    block_planes b;
    b.n = n;
    b.avail = 0;
    if (nsplits == 1) {
      if (read_from > 0) return ERR_NOT_READ;
      /* One stream holds the whole shuffled block: its planes lie one after another. */
      const u8 *block = src + at[0];
      if (size[0] != bsize) {
        i32 got = codec == 0 ? fmt_blosclz_decode(src + at[0], size[0], scratch, bsize) : fmt_lz4_decode(src + at[0], size[0], scratch, bsize);
        if (got < 0) return got;
        if ((u32)got != bsize) return ERR_SIZE_MISMATCH;
        block = scratch;
      }
      for (u32 p = 0; p < T; p++) b.planes[p] = block + (size_t)(T - 1 - p) * n;
      b.avail = T;
    }
    u8 *block_mask = mask ? mask + (size_t)j * (blocksize / T) : 0;
    /* The 16-value vectors the decoded planes leave undecided, by their first value. */
    u32 *undecided = (u32 *)(scratch + ((bsize + 15) & ~15u));
    u32 pending = 0;
    /* A split block first decodes its top plane alone, and the one below only if that does not
       decide every value (top_plane_decides); then the top two planes are compared at once. */
    const u32 first = T < 2 ? T : 2;
    for (u32 want = nsplits > 1 && first > 1 ? 1 : first;; want = want < first ? first : b.avail + 1) {
      /* Counting only: a top plane stored as an LZ4 stream may decide the block from its literals.
         Only a stream of at most a quarter of the plane: one of mostly literals would be walked
         byte by byte before being decoded anyway. */
      if (want < first && !block_mask && codec == 1 && size[T - 1] <= neblock / 4 && T - 1 >= read_from) {
        i32 held = top_stream_decides(&c, src + at[T - 1], size[T - 1], n);
        if (held >= 0) {
          count += (u32)held;
          break;
        }
      }
      for (; b.avail < want; b.avail++) {
        u32 s = T - 1 - b.avail;
        if (s < read_from) return ERR_NOT_READ;
        if (size[s] == neblock) {
          b.planes[b.avail] = src + at[s];
        } else {
          u8 *out = scratch + (size_t)s * neblock;
          i32 got = codec == 0 ? fmt_blosclz_decode(src + at[s], size[s], out, neblock) : fmt_lz4_decode(src + at[s], size[s], out, neblock);
          if (got < 0) return got;
          if ((u32)got != neblock) return ERR_SIZE_MISMATCH;
          b.planes[b.avail] = out;
        }
      }
      if (want < first) {
        if (kind == KIND_FLOAT ? top_plane_decides(&c, &b, 1, block_mask, &count) : top_plane_decides(&c, &b, 0, block_mask, &count)) break;
        continue;
      }
      if (want == first && pending == 0) {
        /* First pass: every vector. */
        u32 v = 0;
        if (T >= 4 && b.avail == 2) v = kind == KIND_FLOAT ? first_two_planes(&c, &b, 1, block_mask, undecided, &pending, &count) : first_two_planes(&c, &b, 0, block_mask, undecided, &pending, &count);
        for (; v < n; v += 16) {
          int more = 0;
          v128_t r = vector_at(&c, &b, v, &more);
          if (more) undecided[pending++] = v;
          else count += emit(r, block_mask, v, n);
        }
      } else {
        u32 keep = 0;
        for (u32 k = 0; k < pending; k++) {
          int more = 0;
          v128_t r = vector_at(&c, &b, undecided[k], &more);
          if (more) undecided[keep++] = undecided[k];
          else count += emit(r, block_mask, undecided[k], n);
        }
        pending = keep;
      }
      if (pending == 0) break;
      if (b.avail == T) return ERR_CORRUPT; /* cannot happen: every plane decides */
    }
  }
  return (i32)count;
}
