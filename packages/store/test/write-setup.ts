// A memcpy-only Blosc chunk writer (what c-blosc writes at clevel 0). It stood in for
// @fmt/blosc's `compress` before that existed; ctable-write.test.ts and where.test.ts still
// import it as a fallback (`real.compress ?? memcpyCompress`), so it stays available.
import { chunkFlags, writeChunkHeader } from "@fmt/header";
import type { CodecName } from "@fmt/header";

export function memcpyCompress(data: Uint8Array, o: { typesize: number; shuffle: 0 | 1 | 2; cname: CodecName }): Uint8Array {
  const out = new Uint8Array(16 + data.length);
  writeChunkHeader(
    { version: 2, versionlz: 1, flags: chunkFlags({ shuffle: o.shuffle, memcpyed: true, dontSplit: true, codec: o.cname }), typesize: o.typesize, nbytes: data.length, blocksize: Math.max(1, data.length), cbytes: 16 + data.length },
    out,
  );
  out.set(data, 16);
  return out;
}
