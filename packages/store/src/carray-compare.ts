/**
 * A carray's rows compared with a constant as they are stored, for `CTable.where` (its
 * `compareColumn`): each chunk @fmt/blosc's plane kernel takes (byte-shuffled or one-byte values,
 * BloscLZ or LZ4) is compared on its byte planes, which are decoded only as far as they decide and
 * never unshuffled; any other chunk (memcpyed, bit-shuffled, zlib, zstd or snappy, rows in memory
 * or in the cache) is decoded and compared here. Written once for both format versions over the
 * read engine.
 *
 * @example
 * ```ts
 * await compareStoredOf(ctx, { column: "price", op: ">", value: 2.5 }, { start: 0, stop: ctx.length, masks: false }, (first, n) => (count += n));
 * ```
 * @module
 */
import { comparePlanned, planChunkHead, ResidentInputs } from "@fmt/blosc";
import type { ChunkPlan, PlaneComparison } from "@fmt/blosc";
import { UsageError } from "@fmt/errors";
import { READ_BUFFER_OFFSET } from "@fmt/fs-adapters";
import { decodeValues } from "@fmt/expr";
import type { StoredComparison } from "@fmt/expr";
import type { DType } from "@fmt/meta";
import { splitCount } from "@fmt/header";
import { ChunkPlanOptions } from "./carray-read.js";
import type { ChunkReader } from "./carray-read.js";
import type { LoadedChunk } from "./carray-read-types.js";
import type { ScanContext } from "./carray-scan.js";
import type { PartialChunkAccess } from "./layout.js";
import { pathed } from "./internal.js";

/** `visit` of {@link compareStoredOf}: a run of rows, its matches and (when asked) its 0/1 mask. */
export type ComparedRows = (first: number, matches: number, mask: Uint8Array | undefined) => void;

/**
 * The plane kernel's form of `comparison` on values of `dtype`, or `undefined` when it would not
 * compare exactly as the expression does: a dtype other than little-endian int8–int64,
 * uint8–uint32, float32 or float64 of one value per row; a constant outside the dtype's values;
 * a NaN or zero float constant (−0 and +0 are equal, their bytes are not).
 *
 * @example
 * ```ts
 * planeComparisonOf(parseDtype("<i4"), 1, { column: "qty", op: "<", value: 10 }); // { kind: "signed", op: "<", value: Uint8Array [10, 0, 0, 0] }
 * ```
 */
export function planeComparisonOf(dtype: DType, itemsPerRow: number, comparison: StoredComparison): PlaneComparison | undefined {
  const { kind, itemsize, str } = dtype;
  const { op, value } = comparison;
  if (itemsPerRow !== 1 || !(str.startsWith("<") || itemsize === 1)) return undefined;
  if (kind === "f" && (itemsize === 4 || itemsize === 8)) {
    if (typeof value !== "number" || Number.isNaN(value) || value === 0) return undefined;
    if (itemsize === 4 && Math.fround(value) !== value) return undefined;
    const bytes = itemsize === 4 ? new Float32Array([value]) : new Float64Array([value]);
    return { kind: "float", op, value: new Uint8Array(bytes.buffer) };
  }
  const integral = (kind === "i" && (itemsize === 1 || itemsize === 2 || itemsize === 4 || itemsize === 8)) || (kind === "u" && (itemsize === 1 || itemsize === 2 || itemsize === 4));
  if (!integral) return undefined;
  if (typeof value === "number" && !Number.isSafeInteger(value)) return undefined;
  const big = BigInt(value);
  const bits = BigInt(8 * itemsize);
  const min = kind === "i" ? -(1n << (bits - 1n)) : 0n;
  const max = kind === "i" ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (big < min || big > max) return undefined;
  const bytes = new Uint8Array(itemsize);
  let rest = BigInt.asUintN(8 * itemsize, big);
  for (let i = 0; i < itemsize; i++, rest >>= 8n) bytes[i] = Number(rest & 0xffn);
  return { kind: kind === "i" ? "signed" : "unsigned", op, value: bytes };
}

const OPERATORS: ReadonlySet<string> = new Set(["==", "!=", "<", "<=", ">", ">="]);

/**
 * `values[i] op value` into `mask` (0/1 per value); the number of 1s. NaN is unordered. One loop
 * per operator: the operator is not looked at again for every value.
 */
function compareValues(values: ArrayLike<number | bigint>, op: StoredComparison["op"], value: number | bigint, mask: Uint8Array): number {
  const n = values.length;
  switch (op) {
    case "==":
      for (let i = 0; i < n; i++) mask[i] = values[i] === value ? 1 : 0;
      break;
    case "!=":
      for (let i = 0; i < n; i++) mask[i] = values[i] !== value ? 1 : 0;
      break;
    case "<":
      for (let i = 0; i < n; i++) mask[i] = values[i]! < value ? 1 : 0;
      break;
    case "<=":
      for (let i = 0; i < n; i++) mask[i] = values[i]! <= value ? 1 : 0;
      break;
    case ">":
      for (let i = 0; i < n; i++) mask[i] = values[i]! > value ? 1 : 0;
      break;
    case ">=":
      for (let i = 0; i < n; i++) mask[i] = values[i]! >= value ? 1 : 0;
      break;
  }
  let matches = 0;
  for (let i = 0; i < n; i++) matches += mask[i]!;
  return matches;
}

/**
 * Reads of a full chunk's top byte planes (streams `from` and up of its one block) into a slot of
 * WebAssembly memory, at their chunk offsets, through one `ranges` call: the file's head, a small
 * window around the size prefix of each stream below `from` (where it lies if those streams are
 * stored raw or nearly), and one window from stream `from` to the file's end (the last streams
 * are the top planes). A class whose objects are kept with their chunk reader (see
 * {@link planeReaders}), not closures made per pass: V8 drops optimized code that refers to
 * objects a garbage collection freed, and `--trace-opt` showed the per-pass closures optimized
 * anew in every pass after a collection (the bench collects before each run).
 */
class PlaneReader {
  /** Streams before this one were not read (the kernel's `readFrom`). */
  readonly from: number;
  /** In this pass, chunks this reader compared, and chunks it did not (laid out otherwise, not decided). */
  #hits = 0;
  #misses = 0;
  readonly #reader: ChunkReader;
  readonly #ranges: NonNullable<PartialChunkAccess["ranges"]>;
  readonly #neblock: number;
  readonly #atom: number;
  readonly #slack: number;
  readonly #pieces: { offset: number; length: number }[];
  /** This pass's slot, and each piece's place in it. */
  #slot: Uint8Array = new Uint8Array(0);
  #lent: Uint8Array[] = [];
  /** The chunk {@link planOf} placed last, as far as the slot holds it (its top planes). */
  chunk: Uint8Array = new Uint8Array(0);
  /** Whether a pass is reading with it (another pass on the same array at once makes its own). */
  busy = false;
  /** The options each chunk's head is planned with (see `ChunkPlanOptions`). */
  readonly #planOptions: ChunkPlanOptions;

  constructor(reader: ChunkReader, ranges: NonNullable<PartialChunkAccess["ranges"]>, neblock: number, atom: number, from: number) {
    this.#reader = reader;
    this.#planOptions = new ChunkPlanOptions(reader);
    this.#ranges = ranges;
    this.from = from;
    this.#neblock = neblock;
    this.#atom = atom;
    // Low planes of measured values are nearly random but not quite: LZ4 finds a few matches in
    // them, so a stream stored compressed may be a few hundred bytes short of `neblock`, which
    // moves every later stream. Each stream below the ones read may fall short by up to `slack`
    // bytes: the window of a size prefix starts that much earlier for each stream before it.
    this.#slack = neblock >> 6;
    const pieces = [{ offset: 0, length: HEAD_LENGTH }];
    for (let s = 1; s < from; s++) pieces.push({ offset: this.#windowAt(s), length: s * this.#slack + 4 });
    // To the file's end: the store clips the window there.
    pieces.push({ offset: this.#windowAt(from), length: this.#prefixAt(atom) - this.#windowAt(from) });
    this.#pieces = pieces;
  }

  /**
   * Starts a pass reading into `slot` (the chunk's streams all raw fit there): each piece is lent
   * its place in it, so that a store that reads there (local files) leaves nothing to copy.
   */
  begin(slot: Uint8Array): void {
    this.#slot = slot;
    this.#lent = this.#pieces.map((p) => slot.subarray(p.offset, p.offset + p.length));
    this.#hits = 0;
    this.#misses = 0;
    this.busy = true;
  }

  /** Ends the pass: the slot goes back to its owner, and nothing here holds it. */
  end(): void {
    this.#slot = new Uint8Array(0);
    this.chunk = this.#slot;
    this.#lent = [];
    this.busy = false;
  }

  /** Whether trying it still pays: it missed at most a few more chunks than it compared. */
  get worth(): boolean {
    return this.#misses < 4 || this.#misses <= this.#hits;
  }

  /** Counts a chunk this reader compared (`true`) or did not. */
  record(compared: boolean): void {
    if (compared) this.#hits++;
    else this.#misses++;
  }

  /** Where stream `s`'s size prefix lies if the streams before it are stored raw. */
  #prefixAt(s: number): number {
    return BLOCK_START + s * (4 + this.#neblock);
  }

  /** Where the window read for stream `s` starts. */
  #windowAt(s: number): number {
    return this.#prefixAt(s) - s * this.#slack;
  }

  /** `got`'s first `length` bytes at `at` in the slot, unless the store read them there. */
  #place(got: Uint8Array, at: number, length: number): void {
    const slot = this.#slot;
    if (got.buffer !== slot.buffer || got.byteOffset !== slot.byteOffset + at) slot.set(got.subarray(0, length), at);
  }

  /**
   * The pieces of chunk `g` (see {@link planOf}), `undefined` for a journaled chunk. Not an
   * async function: each async call allocates its frame and promise, and a young process pays
   * for every allocation of a pass in page faults (tools/bench/README.md); the caller awaits the
   * store's own promise.
   */
  read(g: number): Promise<Uint8Array[] | undefined> {
    return this.#ranges(g, this.#pieces, true, this.#lent);
  }

  /**
   * The plan of chunk `g` from `got`, the pieces {@link read} read of it, placed in the slot: its
   * top planes are then {@link chunk}. `undefined` when the chunk is not laid out as guessed.
   */
  planOf(g: number, got: Uint8Array[]): ChunkPlan | undefined {
    const reader = this.#reader;
    const { from } = this;
    const atom = this.#atom;
    const neblock = this.#neblock;
    const nbytes = neblock * atom;
    const key = reader.chunkKey(g);
    const head = got[0]!;
    const tail = got[got.length - 1]!;
    if (head.length < HEAD_LENGTH) return undefined;
    // The head is checked as any chunk's is (header, the reader's nbytes, the block start); only
    // a chunk laid out as guessed is compared from what was read.
    const cbytes = readI32(head, 12) >>> 0;
    // One block (blocksize = nbytes) or the head read holds too little of its block starts.
    if (readI32(head, 4) !== nbytes || readI32(head, 8) !== nbytes) return undefined;
    let plan;
    try {
      // A full chunk of `neblock` rows, whose `nbytes` is also the most it may declare.
      plan = planChunkHead(head, Math.max(cbytes, head.length), this.#planOptions.set(key, nbytes, false, neblock, nbytes));
    } catch (error) {
      throw pathed(error, key);
    }
    const { header } = plan;
    if (plan.nblocks !== 1 || header.memcpyed || header.typesize !== atom || header.nbytes !== nbytes || splitCount(header, header.blocksize, false) !== atom || plan.bstarts[0] !== BLOCK_START) return undefined;
    // Each size prefix where the sizes before it put it, inside its window; the streams read
    // start in the last window, which holds them to the chunk's end.
    let at = BLOCK_START;
    let size = readI32(head, at);
    for (let s = 1; s <= from; s++) {
      if (size < 0 || size > neblock) return undefined;
      at += 4 + size;
      if (s === from) break;
      const window = got[s]!;
      if (at < this.#windowAt(s) || at + 4 > this.#windowAt(s) + window.length) return undefined;
      size = readI32(window, at - this.#windowAt(s));
    }
    const last = this.#windowAt(from);
    if (at < last || cbytes < at + 4 * (atom - from) || cbytes > this.#prefixAt(atom) || tail.length < cbytes - last) return undefined;
    // The pieces at their offsets in the slot (the low planes' bytes are not there).
    this.#place(head, 0, head.length);
    for (let s = 1; s < from; s++) this.#place(got[s]!, this.#windowAt(s), got[s]!.length);
    this.#place(tail, last, cbytes - last);
    this.chunk = this.#slot.subarray(0, cbytes);
    return plan;
  }
}

/** The chunk offset of a one-block chunk's block: the 16-byte header, then its one block start. */
const BLOCK_START = 20;
/** What a plane reader reads of a chunk's head: up to stream 0's size prefix. */
const HEAD_LENGTH = BLOCK_START + 4;

/**
 * Readers of full chunks' top byte planes, for values of 4 or 8 bytes in format 1 on a store
 * where several small windows of a file cost about one read (`PartialChunkAccess.cheapRanges`),
 * tried in order: the top two planes, then for eight-byte values the top four (about 40 % of a
 * float64 chunk file whose low planes are stored raw). In the bench's float64 random walk the top
 * two planes of a 512 KiB chunk compress to 3 KiB (36 KiB at most) and decide all but 0.3 % of
 * its groups of 16 values. All read into one slot of WebAssembly memory. `undefined` where that does not
 * apply, or without WebAssembly memory to read into.
 */
function planeReaders(ctx: ScanContext): { readers: PlaneReader[]; release(): void } | undefined {
  const reader = ctx.reader;
  const partial = reader.layout.partial;
  const atom = ctx.atomSize;
  if (partial?.ranges === undefined || partial.cheapRanges !== true || (atom !== 8 && atom !== 4)) return undefined;
  const neblock = ctx.chunklen;
  const nbytes = neblock * atom;
  // A chunk of one block of split planes: 128 values at least (c-blosc's split rule), blocks of
  // at most 1 MiB (what c-blosc and this library's writer make).
  if (neblock < 128 || nbytes > 1 << 20) return undefined;
  // The largest chunk a reader takes: every stream stored raw (`read` refuses a larger cbytes).
  const slotBytes = BLOCK_START + atom * (4 + neblock);
  const inputs = ResidentInputs.acquire({ slotBytes, slots: 1, chunkBytes: nbytes, slotOffset: READ_BUFFER_OFFSET });
  const slot = inputs?.take(slotBytes);
  if (inputs === undefined || slot === undefined) {
    inputs?.release();
    return undefined;
  }
  // The readers of a carray are made once and kept with its chunk reader, so that what their
  // optimized code refers to outlives a garbage collection (see PlaneReader). A pass running
  // while another reads with them makes readers of its own.
  let readers = readersOf.get(reader);
  if (readers === undefined || readers[0]!.busy) {
    const ranges = partial.ranges.bind(partial);
    const made = [new PlaneReader(reader, ranges, neblock, atom, atom - 2)];
    if (atom === 8) made.push(new PlaneReader(reader, ranges, neblock, atom, 4));
    if (readers === undefined) readersOf.set(reader, made);
    readers = made;
  }
  for (const r of readers) r.begin(slot);
  const kept = readers;
  return {
    readers,
    release() {
      for (const r of kept) r.end();
      inputs.giveBack(slot);
      inputs.release();
    },
  };
}

/** The plane readers of each chunk reader (see {@link planeReaders}). */
const readersOf = new WeakMap<ChunkReader, PlaneReader[]>();

/** The little-endian int32 at `at`. */
function readI32(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
}

/**
 * One pass of {@link compareStoredOf}: each chunk compared by the kernel where it takes it, or
 * decoded and compared here. A class rather than closures made per pass (see
 * {@link PlaneReader}; `--trace-opt` shows its methods optimized once).
 */
class ComparisonPass {
  readonly #ctx: ScanContext;
  readonly #op: StoredComparison["op"];
  /** The constant as the decoded values hold it: a bigint for int64, a number otherwise. */
  readonly #value: number | bigint;
  readonly #plane: PlaneComparison;
  readonly #start: number;
  readonly #stop: number;
  readonly #masks: boolean;
  readonly #visit: ComparedRows;
  #mask = new Uint8Array(0);
  #scratch = new Uint8Array(0);

  constructor(ctx: ScanContext, comparison: StoredComparison, plane: PlaneComparison, options: { start: number; stop: number; masks: boolean }, visit: ComparedRows) {
    this.#ctx = ctx;
    this.#op = comparison.op;
    this.#value = ctx.dtype.itemsize === 8 && ctx.dtype.kind !== "f" ? BigInt(comparison.value) : Number(comparison.value);
    this.#plane = plane;
    this.#start = options.start;
    this.#stop = options.stop;
    this.#masks = options.masks;
    this.#visit = visit;
  }

  #maskOf(values: number): Uint8Array {
    if (this.#mask.length < values) this.#mask = new Uint8Array(Math.max(values, this.#ctx.chunklen));
    return this.#mask.subarray(0, values);
  }

  /**
   * The kernel on a chunk of `rows` rows from `firstRow` (their part in `[start, stop)` asked
   * for), streams before `readFrom` not read; false when it declines.
   */
  compareInKernel(chunk: Uint8Array, plan: ChunkPlan, firstRow: number, rows: number, readFrom: number): boolean {
    const from = Math.max(this.#start, firstRow) - firstRow;
    const to = Math.min(this.#stop, firstRow + rows) - firstRow;
    // A chunk of more values than its rows (a lenient leftover chunk), or only some of its rows
    // asked for: the kernel's mask, cut to those rows.
    const all = plan.header.nbytes / this.#ctx.atomSize;
    const whole = from === 0 && to === all;
    const masks = this.#masks;
    const chunkMask = masks || !whole ? this.#maskOf(all) : undefined;
    const matches = comparePlanned(chunk, plan, readFrom === 0 ? this.#plane : { ...this.#plane, readFrom }, chunkMask);
    if (matches === undefined) return false;
    if (whole) {
      this.#visit(firstRow, matches, chunkMask);
    } else {
      const part = chunkMask!.subarray(from, to);
      let n = 0;
      for (let i = 0; i < part.length; i++) n += part[i]!;
      this.#visit(firstRow + from, n, masks ? part : undefined);
    }
    return true;
  }

  /** A chunk the reader loaded: by the kernel where it takes it, else decoded and compared here. */
  compareLoaded(loaded: LoadedChunk): void {
    const ctx = this.#ctx;
    const reader = ctx.reader;
    const atom = ctx.atomSize;
    const plan = loaded.plan;
    if (plan !== undefined && loaded.decoded === undefined && reader.cache.chunk(loaded.index) === undefined && plan.header.typesize === atom) {
      if (this.compareInKernel(loaded.chunk, plan, loaded.firstRow, loaded.rows, 0)) return;
    }
    const from = Math.max(this.#start, loaded.firstRow) - loaded.firstRow;
    const to = Math.min(this.#stop, loaded.firstRow + loaded.rows) - loaded.firstRow;
    const size = (to - from) * atom;
    if (this.#scratch.length < size) this.#scratch = new Uint8Array(Math.max(size, ctx.chunklen * atom));
    const bytes = this.#scratch.subarray(0, size);
    reader.decodeRowsInto(loaded, from, to, bytes, 0);
    const part = this.#maskOf(to - from);
    const matches = compareValues(decodeValues(bytes, ctx.dtype) as ArrayLike<number | bigint>, this.#op, this.#value, part);
    this.#visit(loaded.firstRow + from, matches, this.#masks ? part : undefined);
  }
}

/**
 * Rows `[start, stop)` of the carray of `ctx` compared with a constant as they are stored, chunk
 * by chunk (`CTable.where` through `compareColumn`): `visit` gets each chunk's run of rows in
 * order, with its number of matches and, with `masks`, a 0/1 byte per row (valid only during the
 * call). Resolves to `false`, having read nothing, when the column or the constant is not one
 * this compares exactly ({@link planeComparisonOf}). The call limits apply as to `iterBlocks`.
 *
 * @throws UsageError INVALID_ARGUMENT for an unknown operator or a constant that is not a number
 * or bigint; OUT_OF_RANGE for rows outside the array; SIZE_LIMIT and the other call limits.
 *
 * @example
 * ```ts
 * let count = 0;
 * await compareStoredOf(ctx, { column: "x", op: ">", value: 2.5 }, { start: 0, stop: ctx.length, masks: false }, (first, n) => (count += n));
 * ```
 */
export async function compareStoredOf(ctx: ScanContext, comparison: StoredComparison, options: { start: number; stop: number; masks: boolean }, visit: ComparedRows): Promise<boolean> {
  const { op, value: constant } = comparison;
  if (!OPERATORS.has(op)) throw new UsageError("INVALID_ARGUMENT", "unknown comparison operator", { path: ctx.path, field: "comparison.op", expected: [...OPERATORS].join(" "), actual: op });
  if (typeof constant !== "number" && typeof constant !== "bigint") {
    throw new UsageError("INVALID_ARGUMENT", "the constant must be a number or a bigint", { path: ctx.path, field: "comparison.value", expected: "number | bigint", actual: typeof constant });
  }
  const { start, stop } = options;
  ctx.checkBounds(start, stop);
  const plane = planeComparisonOf(ctx.dtype, ctx.itemsPerRow, comparison);
  if (plane === undefined) return false;
  ctx.checkWork(start, stop, 1);
  // A chunk's rows at a time, as iterBlocks would hold them.
  ctx.checkAllocation(Math.min(ctx.chunklen, stop - start));
  if (start === stop) return true;
  const reader = ctx.reader;
  const pass = new ComparisonPass(ctx, comparison, plane, options, visit);
  const first = Math.floor(start / ctx.chunklen);
  const indices = Array.from({ length: Math.floor((stop - 1) / ctx.chunklen) - first + 1 }, (_, i) => first + i);
  const top = planeReaders(ctx);
  if (top === undefined) {
    for await (const loaded of reader.chunksInOrder(indices, { reuseInputs: true })) pass.compareLoaded(loaded);
    return true;
  }
  // Full chunks stored as files, nothing of them in memory: only their top planes are read, the
  // top two first, and more only for a chunk they do not decide (or not laid out as expected).
  // A reader that missed a few more chunks than it compared is not tried for the rest of the
  // pass (the others still are); a chunk no reader compares is read whole.
  const { readers } = top;
  try {
    for (const k of indices) {
      const kept = reader.cache.compressed(k);
      if (k < reader.fullChunks && reader.cache.chunk(k) === undefined && kept === undefined) {
        const firstRow = k * ctx.chunklen;
        let done = false;
        for (let r = 0; r < readers.length && !done; r++) {
          const planes = readers[r]!;
          if (!planes.worth) continue;
          const got = await planes.read(k);
          const plan = got === undefined ? undefined : planes.planOf(k, got);
          done = plan !== undefined && pass.compareInKernel(planes.chunk, plan, firstRow, ctx.chunklen, planes.from);
          planes.record(done);
        }
        if (done) continue;
      }
      pass.compareLoaded(await reader.loadChunk(k, kept === undefined ? undefined : { index: k, key: reader.chunkKey(k), chunk: kept }));
    }
  } finally {
    top.release();
  }
  return true;
}
