/**
 * The zstd arena of a kernels instance: module memory for one zstd stream (the stream copied in,
 * room for its output, the sequence kernel's tables, the Huffman tables) and the calls that decode
 * into it. The TypeScript zstd decoder parses frames and tables; the kernels run the sequences and
 * the Huffman streams where the output lies. Browser-safe: no `node:` imports, no `Buffer`.
 *
 * @example
 * ```ts
 * const arena = kernels.zstdArena(stream, 65536); // WasmKernels.zstdArena calls zstdArenaIn
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import { checkTypesize } from "./kernel-abi.js";
import type { KernelArena } from "./kernel-abi.js";
import type { ZstdArena } from "./types.js";

/**
 * Module memory for one zstd stream of `src` decoding to `dstLength` bytes in `arena`'s
 * instance: the stream copied in, room for its output and for the sequence kernel's tables.
 * Valid until the next call on those kernels (the arena is reset per call).
 *
 * @example
 * ```ts
 * const zstd = zstdArenaIn(arena, stream, 65536);
 * ```
 */
export function zstdArenaIn(arena: KernelArena, src: Uint8Array, dstLength: number, unshuffleRoom = 0): ZstdArena {
  // The kernel reads 8 bytes at a time from the stream and 16 from the literals at the end of
  // the output; the padding keeps those reads inside the arena. Tables: symbol and bits bytes,
  // then base halfwords, for the three tables of at most 2^9 entries each. `unshuffleRoom`:
  // room for the unshuffled output (unshuffleInto), so that a byte-shuffled block is unshuffled
  // where it was decoded instead of copied out, in again and out again.
  const TABLE = 512;
  // The Huffman table of the literals (symbol bytes then bits bytes, 2^11 entries at most),
  // then the four streams' bounds and bits left.
  const HUFFMAN = 2048;
  const [ps = 0, pd = 0, pt = 0, pa = 0, pu = 0, ph = 0] = arena.reserve(src.length + 16, dstLength + 32, 3 * 4 * TABLE, 32 * 4, Math.max(1, unshuffleRoom), 2 * HUFFMAN + 9 * 4);
  const heap = arena.heap();
  heap.set(src, ps);
  heap.fill(0, ps + src.length, ps + src.length + 16);
  const ex = arena.exports;
  const buffer = heap.buffer;
  const args = new Uint32Array(buffer, pa, 21);
  const rep = new Uint32Array(buffer, pa + 21 * 4, 3);
  const result = new Int32Array(buffer, pa + 24 * 4, 5);
  args[0] = ps;
  args[4] = pd;
  // The table last copied in: the four streams of a block, and treeless blocks, share one.
  let huffmanIn: object | undefined;
  const huffmanTable = (table: { readonly maxBits: number; readonly symbol: Uint8Array; readonly bits: Uint8Array }): void => {
    if (huffmanIn === table) return;
    const n = 1 << table.maxBits;
    heap.set(table.symbol.subarray(0, n), ph);
    heap.set(table.bits.subarray(0, n), ph + HUFFMAN);
    huffmanIn = table;
  };
  const bounds = new Uint32Array(buffer, ph + 2 * HUFFMAN, 5);
  // Positions the kernels take as unsigned 32-bit numbers.
  const offsets = (...values: number[]): boolean => values.every((v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff);
  const left = new Int32Array(buffer, ph + 2 * HUFFMAN + 5 * 4, 4);
  return {
    src: heap.subarray(ps, ps + src.length),
    dst: heap.subarray(pd, pd + dstLength),
    run: (start, end, nbSeq, tables, literals, frameStart, blockStart, blockEnd, repeated) => {
      args[1] = start;
      args[2] = end;
      args[3] = nbSeq;
      args[5] = literals;
      args[6] = frameStart;
      args[7] = blockStart;
      args[8] = blockEnd;
      tables.forEach((t, k) => {
        const at = pt + k * 4 * TABLE;
        const n = 1 << t.accuracy;
        heap.set(t.symbol.subarray(0, n), at);
        heap.set(t.bits.subarray(0, n), at + TABLE);
        new Uint16Array(buffer, at + 2 * TABLE, n).set(t.base.subarray(0, n));
        args[9 + 4 * k] = at;
        args[10 + 4 * k] = at + TABLE;
        args[11 + 4 * k] = at + 2 * TABLE;
        args[12 + 4 * k] = t.accuracy;
      });
      rep[0] = repeated[0];
      rep[1] = repeated[1];
      rep[2] = repeated[2];
      const code = ex.zstd_sequences(pa, pa + 21 * 4, pa + 24 * 4);
      repeated[0] = rep[0]!;
      repeated[1] = rep[1]!;
      repeated[2] = rep[2]!;
      return { code, out: result[0]!, lit: result[1]!, a: result[2]!, b: result[3]!, done: result[4]! };
    },
    huffman: (start, end, table, from, to) => {
      const n = 1 << table.maxBits;
      if (!offsets(start, end, from, to) || table.maxBits < 1 || n > HUFFMAN || end > src.length || start >= end || from > to || to > dstLength) {
        throw new UsageError("INVALID_ARGUMENT", "Huffman stream or table outside the arena", { field: "huffman", actual: [start, end, table.maxBits, from, to] });
      }
      huffmanTable(table);
      return ex.zstd_huffman(ps, start, end, ph, ph + HUFFMAN, table.maxBits, pd, from, to);
    },
    huffman4: (streams, table, base, segment, end) => {
      let fits = offsets(...streams, base, segment, end) && table.maxBits >= 1 && 1 << table.maxBits <= HUFFMAN && streams.length === 5 && base + 3 * segment <= end && end - base - 3 * segment <= segment && end <= dstLength;
      for (let k = 0; k < 4; k++) fits &&= streams[k]! < streams[k + 1]! && streams[k + 1]! <= src.length;
      if (!fits) throw new UsageError("INVALID_ARGUMENT", "Huffman streams or table outside the arena", { field: "huffman", actual: [...streams, table.maxBits, base, segment, end] });
      huffmanTable(table);
      bounds.set(streams);
      ex.zstd_huffman4(ps, ph + 2 * HUFFMAN, ph, ph + HUFFMAN, table.maxBits, pd, base, segment, end, ph + 2 * HUFFMAN + 5 * 4);
      return [left[0]!, left[1]!, left[2]!, left[3]!];
    },
    unshuffleInto: (typesize, out) => {
      checkTypesize(typesize);
      if (out.length > unshuffleRoom || out.length > dstLength) {
        throw new UsageError("INVALID_ARGUMENT", "unshuffle larger than the arena's room", { field: "out.length", expected: `<= ${Math.min(unshuffleRoom, dstLength)}`, actual: out.length });
      }
      ex.unshuffle(typesize, out.length, pd, pu);
      out.set(heap.subarray(pu, pu + out.length));
    },
  };
}
