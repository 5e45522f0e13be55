/*
 * Adler-32 (RFC 1950) in WebAssembly SIMD and CRC-32 (zlib's) with sixteen tables, for
 * @fmt/header's adler32 and crc32: the checksums of format-2 superchunks (Adler-32 the default),
 * computed over every chunk a writer stores and a reader decodes. The JavaScript loops run at
 * ~0.8 GB/s here; the Adler-32 kernel takes 32 bytes per step, the CRC-32 one 16 bytes per step
 * through sixteen lookups with no carried dependency between them.
 *
 * Adler-32: tools/wasm/include/adler32.h (shared with @fmt/blosc's kernels).
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
#include "adler32.h"

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#define EXPORT(name) __attribute__((export_name(#name))) __attribute__((visibility("default")))

#define INPUT_BYTES 65536u

static u8 input[INPUT_BYTES] __attribute__((aligned(16)));
static u32 crc_tables[16][256];
static int crc_tables_ready;

/* Where the caller puts the bytes to checksum (INPUT_BYTES of room). */
EXPORT(input_buffer) u8 *input_buffer(void) { return input; }

/* Adler-32 of n bytes at p, continuing from `previous` (1 for a new checksum). */
EXPORT(adler32) u32 adler32(const u8 *p, u32 n, u32 previous) { return fmt_adler32(p, n, previous); }

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
