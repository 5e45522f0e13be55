/**
 * A whole chunk's values compared with a constant on its byte planes (wasm/compare_planes.c), in
 * a kernels instance's memory: the chunk where it lies when it was read into the instance's
 * reserved inputs, else copied in. Browser-safe: no `node:` imports, no `Buffer`.
 *
 * @example
 * ```ts
 * const count = compareChunkIn(arena, chunk, plan.header, false, { kind: "float", op: ">", value: bytesOf(2.5) }, undefined);
 * ```
 * @module
 */
import { ERR_ARGUMENT, ERR_CODEC, ERR_NOT_READ, kernelError } from "./kernel-abi.js";
import type { KernelArena } from "./kernel-abi.js";

/**
 * A comparison of every value of a chunk with a constant, as the plane kernel takes it: the
 * values' kind, the operator and the constant as the values' own little-endian bytes (typesize of
 * them). The kernel orders floats as IEEE 754 does, NaN values included; a float constant must be
 * neither NaN nor zero (its caller compares those otherwise). @internal
 *
 * @example
 * ```ts
 * const c: PlaneComparison = { kind: "signed", op: "<", value: new Uint8Array(new Int32Array([0]).buffer) };
 * ```
 */
export interface PlaneComparison {
  /** How the values' bytes are ordered: unsigned or two's complement integers, or IEEE 754 floats. */
  readonly kind: "unsigned" | "signed" | "float";
  /** `value op constant` is what is counted. */
  readonly op: "==" | "!=" | "<" | "<=" | ">" | ">=";
  /** The constant's little-endian bytes, as many as the chunk's typesize. */
  readonly value: Uint8Array;
  /**
   * The first stream of each split block whose bytes the caller read (default 0: all). The
   * streams before it hold only their size prefixes (a reader that fetched the top planes of a
   * chunk file and nothing else); a chunk that needs one of them gives `undefined`.
   */
  readonly readFrom?: number;
}

const KINDS = { unsigned: 0, signed: 1, float: 2 } as const;
/** The operator numbers of compare_planes.c (those of @fmt/expr's compare kernels). */
const OPS = { "==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5 } as const;

/**
 * How many of a chunk's values compare true; with `mask`, a 0/1 byte per value written there too.
 * `undefined` when the kernel does not compare this chunk on planes (a typesize other than 1, 2,
 * 4 or 8; values of more than one byte that are not byte-shuffled; bit-shuffled; memcpyed; a
 * codec other than BloscLZ or LZ4), or when it needs a stream before `comparison.readFrom`: the
 * caller decodes it then.
 *
 * @example
 * ```ts
 * const mask = new Uint8Array(plan.header.nbytes / 8);
 * const count = compareChunkIn(arena, chunk, plan.header, false, { kind: "float", op: "<", value }, mask);
 * ```
 *
 * @param inPlace - whether `chunk` lies in the instance's reserved inputs (then it is not copied).
 * @throws FormatError CORRUPT_STREAM (or TRUNCATED-like kernel errors) for a stream that does not decode.
 */
export function compareChunkIn(
  arena: KernelArena,
  chunk: Uint8Array,
  header: { readonly nbytes: number; readonly blocksize: number; readonly cbytes: number; readonly typesize: number },
  inPlace: boolean,
  comparison: PlaneComparison,
  mask: Uint8Array | undefined,
  path?: string,
): number | undefined {
  const { nbytes, blocksize, cbytes, typesize } = header;
  if (comparison.value.length !== typesize || typesize === 0) return undefined;
  const srclen = Math.min(chunk.length, cbytes);
  const values = nbytes / typesize;
  // Taken before the arena is reserved: a memory that grows detaches the chunk's view (its bytes
  // stay where they were).
  const offset = chunk.byteOffset;
  // Input (unless in place), the constant, the mask (unless counting only), and the scratch: the
  // planes of a block and the list of its undecided 16-value vectors (compare_planes.c).
  const block = Math.min(blocksize, nbytes);
  const scratch = Math.ceil(block / 16) * 16 + 4 * Math.ceil(block / typesize / 16);
  const [ps0 = 0, pv = 0, pm0 = 0, pscratch = 0] = arena.reserve(inPlace ? 0 : srclen, 16, mask === undefined ? 0 : values, scratch);
  const heap = arena.heap();
  const ps = inPlace ? offset : ps0;
  if (!inPlace) heap.set(srclen === chunk.length ? chunk : chunk.subarray(0, srclen), ps);
  heap.set(comparison.value, pv);
  const pm = mask === undefined ? 0 : pm0;
  const r = arena.exports.compare_chunk(ps, srclen, KINDS[comparison.kind], OPS[comparison.op], pv, pm, pscratch, comparison.readFrom ?? 0);
  if (r === ERR_ARGUMENT || r === ERR_CODEC || r === ERR_NOT_READ) return undefined;
  if (r < 0) throw kernelError(r, "blosc.stream", path);
  if (mask !== undefined) mask.set(heap.subarray(pm, pm + values));
  return r;
}
