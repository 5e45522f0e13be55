/*
 * Adler-32 (RFC 1950) in WebAssembly SIMD and CRC-32 (zlib's) with sixteen tables, for
 * @fmt/header's adler32 and crc32: the checksums of format-2 superchunks (Adler-32 the default),
 * computed over every chunk a writer stores and a reader decodes. The JavaScript loops run at
 * ~0.8 GB/s here; the Adler-32 kernel takes 32 bytes per step, the CRC-32 one 16 bytes per step
 * through sixteen lookups with no carried dependency between them.
 *
 * Adler-32:
 *
 * Over a run of bytes b_0..b_{n-1} with sums s1, s2 at its start, Adler-32 ends with
 *   s1' = s1 + sum(b_i)             s2' = s2 + n*s1 + sum((n - i) * b_i)
 * (mod 65521). Each 32-byte step adds its bytes to four s1 lanes (pairwise widening adds), the
 * bytes times their weights 32..1 to four s2 lanes (widening to 16 bits, then dot products), and
 * first the s1 lanes so far to a third set of lanes, which accounts for 32 * (bytes before this
 * step). Lanes are summed and reduced once per run of at most 5,536 bytes (zlib's NMAX, 5,552,
 * rounded down to whole steps). What bounds a run is `s2 + s1 * run` below 2^32 with s1, s2
 * below 65,536 (an unreduced `previous` included) and the sum of the four `before` lanes below
 * 2^32: both hold up to runs of 32,832 bytes, so 5,536 leaves a wide margin; the weighted total
 * is added up in 64 bits.
 *
 * CRC-32: slicing-by-16, table k mapping a byte to its contribution to the CRC k bytes further
 * on. The 16 KiB of tables are computed on the first call rather than stored in the module, so
 * that the module stays under the 4 KiB a browser's main thread compiles synchronously.
 *
 * The caller copies its bytes into input_buffer() (64 KiB) piece by piece and chains the pieces
 * through `previous`.
 */
#include <stdint.h>
#include <wasm_simd128.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#define EXPORT(name) __attribute__((export_name(#name))) __attribute__((visibility("default")))

#define ADLER_MOD 65521u
#define ADLER_NMAX 5552u
#define STEP 32u
#define RUN (ADLER_NMAX / STEP * STEP)
#define INPUT_BYTES 65536u

static u8 input[INPUT_BYTES] __attribute__((aligned(16)));
static u32 crc_tables[16][256];
static int crc_tables_ready;

/* Where the caller puts the bytes to checksum (INPUT_BYTES of room). */
EXPORT(input_buffer) u8 *input_buffer(void) { return input; }

static inline u32 lanes_sum(v128_t v) {
  return (u32)wasm_i32x4_extract_lane(v, 0) + (u32)wasm_i32x4_extract_lane(v, 1) + (u32)wasm_i32x4_extract_lane(v, 2) +
         (u32)wasm_i32x4_extract_lane(v, 3);
}

/* Adler-32 of n bytes at p, continuing from `previous` (1 for a new checksum). */
EXPORT(adler32) u32 adler32(const u8 *p, u32 n, u32 previous) {
  u32 s1 = previous & 0xffff;
  u32 s2 = previous >> 16;
  const v128_t w1 = wasm_i16x8_make(32, 31, 30, 29, 28, 27, 26, 25);
  const v128_t w2 = wasm_i16x8_make(24, 23, 22, 21, 20, 19, 18, 17);
  const v128_t w3 = wasm_i16x8_make(16, 15, 14, 13, 12, 11, 10, 9);
  const v128_t w4 = wasm_i16x8_make(8, 7, 6, 5, 4, 3, 2, 1);
  while (n >= STEP) {
    u32 run = n < RUN ? n - n % STEP : RUN;
    n -= run;
    s2 += s1 * run; /* s1 < 65536, run <= 5536: no overflow */
    v128_t v1 = wasm_i32x4_splat(0), v2 = wasm_i32x4_splat(0), before = wasm_i32x4_splat(0);
    for (u32 k = 0; k < run; k += STEP, p += STEP) {
      v128_t a = wasm_v128_load(p), b = wasm_v128_load(p + 16);
      before = wasm_i32x4_add(before, v1);
      v128_t pairs = wasm_i16x8_add(wasm_u16x8_extadd_pairwise_u8x16(a), wasm_u16x8_extadd_pairwise_u8x16(b));
      v1 = wasm_i32x4_add(v1, wasm_u32x4_extadd_pairwise_u16x8(pairs));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(a), w1));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(a), w2));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(b), w3));
      v2 = wasm_i32x4_add(v2, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(b), w4));
    }
    u64 t2 = (u64)s2 + (u64)STEP * lanes_sum(before) + lanes_sum(v2);
    s1 = (s1 + lanes_sum(v1)) % ADLER_MOD;
    s2 = (u32)(t2 % ADLER_MOD);
  }
  if (n > 0) {
    /* Fewer than 32 bytes: zlib's byte loop (its bound holds for any s1, s2 below 65536). */
    while (n--) {
      s1 += *p++;
      s2 += s1;
    }
    s1 %= ADLER_MOD;
    s2 %= ADLER_MOD;
  }
  return (s2 << 16) | s1;
}

static void build_crc_tables(void) {
  for (u32 n = 0; n < 256; n++) {
    u32 c = n;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_tables[0][n] = c;
  }
  for (u32 n = 0; n < 256; n++)
    for (int k = 1; k < 16; k++) crc_tables[k][n] = (crc_tables[k - 1][n] >> 8) ^ crc_tables[0][crc_tables[k - 1][n] & 0xff];
  crc_tables_ready = 1;
}

static inline u32 load_u32le(const u8 *p) {
  u32 v;
  __builtin_memcpy(&v, p, 4);
  return v; /* wasm is little-endian */
}

/* CRC-32 of n bytes at p, continuing from `previous` (0 for a new checksum). */
EXPORT(crc32) u32 crc32(const u8 *p, u32 n, u32 previous) {
  if (!crc_tables_ready) build_crc_tables();
  u32(*t)[256] = crc_tables;
  u32 c = ~previous;
  for (; n >= 16; n -= 16, p += 16) {
    u32 a = load_u32le(p) ^ c, b = load_u32le(p + 4), d = load_u32le(p + 8), e = load_u32le(p + 12);
    c = t[15][a & 0xff] ^ t[14][(a >> 8) & 0xff] ^ t[13][(a >> 16) & 0xff] ^ t[12][a >> 24] ^ t[11][b & 0xff] ^
        t[10][(b >> 8) & 0xff] ^ t[9][(b >> 16) & 0xff] ^ t[8][b >> 24] ^ t[7][d & 0xff] ^ t[6][(d >> 8) & 0xff] ^
        t[5][(d >> 16) & 0xff] ^ t[4][d >> 24] ^ t[3][e & 0xff] ^ t[2][(e >> 8) & 0xff] ^ t[1][(e >> 16) & 0xff] ^ t[0][e >> 24];
  }
  while (n--) c = t[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}
