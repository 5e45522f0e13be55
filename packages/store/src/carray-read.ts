/**
 * The read engine of a carray, the same for both format versions: gets chunks through the
 * array's {@link ChunkLayout} (whole, in planned and coalesced fetches with a bounded window),
 * validates each chunk once into a `ChunkPlan`, decodes straight into the caller's buffer (on a
 * worker pool for runs of whole chunks when one is given), and keeps a byte-budgeted cache of
 * decoded chunks, blocks and plans that writers invalidate. Single-row reads, which read only a
 * header and one Blosc block where the layout allows, are row-read.ts's ({@link RowReader}).
 * The types at its seams (settings, array geometry, loaded chunks) are in carray-read-types.ts.
 *
 * @example
 * ```ts
 * const reader = new ChunkReader(settings, geometry);
 * const out = new Uint8Array(100 * reader.atomSize);
 * await reader.readInto(out, 0, 100);
 * ```
 * @module
 */
import { FormatError } from "@fmt/errors";
import { decompressPlannedInto, decompressPlannedTransient, decompressRangePlannedInto, isResidentView, planChunk } from "@fmt/blosc";
import type { ChunkCodecPool, PlanOptions } from "@fmt/blosc";
import type { ChunkHeader } from "@fmt/header";
import { ChunkCache } from "./chunk-cache.js";
import { pathed } from "./internal.js";
import type { ArrayGeometry, LoadedChunk, ReaderSettings } from "./carray-read-types.js";
import type { ChunkLayout, StoredChunk } from "./layout.js";
import { LentBuffers, idleInputs } from "./lent-buffers.js";
import { RowReader } from "./row-read.js";
import { scatter } from "./take-scatter.js";

/**
 * `planChunk`'s options for one chunk at a time, made once per reader and set before each plan:
 * the path, the bomb guard and the check of the chunk's nbytes against the rows the metadata
 * gives it. Objects and closures made for every chunk died at each garbage collection, and V8
 * optimized the code using them again after it (`--trace-opt`; tools/bench/README.md, "Issue 16,
 * step by step (2026-12-01, night session)"). Planning is synchronous, so one object serves
 * interleaved reads.
 *
 * @example
 * ```ts
 * const options = new ChunkPlanOptions(reader);
 * const plan = planChunk(chunk, options.set("data/__0.blp", 524288, false, 65536));
 * ```
 */
export class ChunkPlanOptions implements PlanOptions {
  path = "";
  // Optional as in `PlanOptions` (a consumer's `exactOptionalPropertyTypes` compares the two);
  // still an own property from construction on (ES2022 class fields), so the shape stays one.
  maxBytes?: number;
  #nbytes = 0;
  #isLeftover = false;
  #rows = 0;
  readonly checkHeader: (header: ChunkHeader) => void;

  constructor(reader: ChunkReader) {
    this.checkHeader = (header) => reader.checkStoredNbytes(this.path, header.nbytes, this.#nbytes, this.#isLeftover, this.#rows);
  }

  /**
   * These options for chunk `key` of `rows` rows (`nbytes` bytes, `isLeftover` for the leftover
   * chunk); `maxBytes` is the bomb guard (none: Blosc's own limit).
   */
  set(key: string, nbytes: number, isLeftover: boolean, rows: number, maxBytes?: number): this {
    this.path = key;
    this.maxBytes = maxBytes;
    this.#nbytes = nbytes;
    this.#isLeftover = isLeftover;
    this.#rows = rows;
    return this;
  }
}

/** A run of whole chunks is sent to the worker pool once it holds this many. */
const POOL_RUN = 8;

/**
 * The engine. @internal
 *
 * @example
 * ```ts
 * const bytes = await reader.rowBytes(12345);
 * ```
 */
export class ChunkReader {
  readonly layout: ChunkLayout;
  readonly chunklen: number;
  readonly atomSize: number;
  readonly cache: ChunkCache;
  readonly #prefetch: number;
  readonly #workers: ChunkCodecPool | undefined;
  readonly #geometry: ArrayGeometry;
  readonly #rows: RowReader;
  /** The options `loadChunk` plans each chunk with, set anew for each (see {@link ChunkPlanOptions}). */
  readonly #planOptions = new ChunkPlanOptions(this);

  constructor(settings: ReaderSettings, geometry: ArrayGeometry) {
    this.layout = settings.layout;
    this.chunklen = settings.chunklen;
    this.atomSize = settings.atomSize;
    this.#prefetch = settings.prefetch;
    this.#workers = settings.workers;
    this.#geometry = geometry;
    this.cache = new ChunkCache(settings.cacheBytes);
    this.#rows = new RowReader(this);
  }

  /** Chunks the array holds in full (the leftover chunk, if any, is the next). */
  get fullChunks(): number {
    return Math.floor(this.#geometry.length() / this.chunklen);
  }

  /** Store key of the file holding chunk `i`. */
  chunkKey(i: number): string {
    return this.layout.keyOf(i);
  }

  /** Rows of chunk `index`: `chunklen`, or fewer for the leftover chunk. */
  rowsOf(index: number): number {
    return index < this.fullChunks ? this.chunklen : this.#geometry.length() % this.chunklen;
  }

  /** The writer's leftover rows when chunk `index` is the leftover chunk held in memory. */
  memoryRows(index: number): Uint8Array | undefined {
    return index >= this.fullChunks ? this.#geometry.leftoverInMemory() : undefined;
  }

  /**
   * Reads chunk `index` (through the layout, which checks its container and checksum) and
   * validates it once: Blosc header, block starts, stream layout and nbytes. The leftover chunk
   * may announce more rows than the length leaves for it (an interrupted append, spec v1 §8.5,
   * v2 §10.4): its first rows are used. A writer's leftover rows come from memory.
   */
  async loadChunk(index: number, fetched?: StoredChunk): Promise<LoadedChunk> {
    const isLeftover = index >= this.fullChunks;
    const rows = this.rowsOf(index);
    const firstRow = index * this.chunklen;
    const nbytes = rows * this.atomSize;
    const memory = this.memoryRows(index);
    if (memory !== undefined) {
      return { index, key: this.chunkKey(index), chunk: new Uint8Array(0), firstRow, rows, nbytes, storedNbytes: nbytes, decoded: memory };
    }
    const stored = fetched ?? (await this.layout.read(index));
    const key = stored.key;
    const chunk = stored.chunk;
    // nbytes is checked before anything else of the layout: INCONSISTENT names a wrong chunk
    // better than the stream error or SIZE_LIMIT it would otherwise cause.
    let plan;
    try {
      plan = planChunk(chunk, this.#planOptions.set(key, nbytes, isLeftover, rows));
    } catch (error) {
      throw pathed(error, key);
    }
    return { index, key, chunk: chunk.subarray(0, plan.header.cbytes), plan, firstRow, rows, nbytes, storedNbytes: plan.header.nbytes };
  }

  /** Throws `INCONSISTENT` when a chunk's nbytes disagrees with the rows the metadata gives it. */
  checkStoredNbytes(key: string, stored: number, nbytes: number, isLeftover: boolean, rows: number): void {
    const lenient = isLeftover && stored > nbytes && stored <= this.chunklen * this.atomSize && stored % this.atomSize === 0;
    if (stored !== nbytes && !lenient) {
      throw new FormatError("INCONSISTENT", `chunk holds ${stored} bytes, the metadata says ${rows} rows of ${this.atomSize} bytes`, {
        path: key,
        field: "blosc.nbytes",
        expected: nbytes,
        actual: stored,
      });
    }
  }

  /**
   * Chunks in the given order. The layout plans the fetches (one file each in format 1, runs of
   * neighbouring slots in format 2); `prefetch` fetches are in flight ahead of the one being
   * decoded. Rows a writer holds in memory are not fetched. `viewsHeld`, asked when the pass
   * ends: whether the caller still holds bytes {@link ChunkReader.decodeInPassMemory} gave it
   * (then the pass's memory serves no later pass). `heldChunks` (with `reuseInputs`): how many of
   * the chunks it was last given the caller still holds when it asks for the next one (default 0:
   * none), so that their input buffers are lent again only after that; once past the last chunk,
   * it holds none.
   */
  async *chunksInOrder(indices: Iterable<number>, options: { reuseInputs?: boolean; viewsHeld?: () => boolean; heldChunks?: number } = {}): AsyncGenerator<LoadedChunk, void, undefined> {
    const order = [...indices];
    const heldChunks = options.heldChunks ?? 0;
    // With `reuseInputs` the caller is done with each chunk when it asks for the next one, so the
    // buffer a fetch was read into serves a later fetch once its last chunk is done (stores with
    // getInto; a format-2 run of slots shares one buffer).
    // Passes read into the input buffers earlier passes of any reader gave back (idleInputs)
    // rather than into fresh memory, whose first touch costs a page fault per 4 KiB; a reader
    // asked to keep no cache (cacheBytes 0) keeps no buffers either.
    // Where the layout allows (it transfers nothing to another thread, or only shares memory with
    // it), files are read straight into the decoder's WebAssembly memory (ResidentInputs): a slot
    // per fetch in flight and one for the chunk being decoded (ordinary buffers serve any fetch
    // beyond them).
    const idle = this.cache.maxBytes > 0 ? idleInputs : undefined;
    const residentInputs = idle !== undefined ? this.layout.residentInputs : undefined;
    const resident = residentInputs !== undefined ? { ...residentInputs, slots: this.#prefetch + 1 } : undefined;
    const lent = options.reuseInputs === true && this.layout.readsInto ? new LentBuffers(this.chunklen * this.atomSize, idle, resident) : undefined;
    // Rows a writer holds and chunks kept compressed by an earlier single-row read need no fetch.
    // A loop, not a `filter` closure made per pass (see `ChunkPlanOptions`).
    const kept = new Map<number, Uint8Array>();
    const toFetch: number[] = [];
    for (const k of order) {
      if (this.memoryRows(k) !== undefined) continue;
      const chunk = this.cache.compressed(k);
      if (chunk !== undefined) kept.set(k, chunk);
      else toFetch.push(k);
    }
    const plan = this.layout.plan(toFetch, this.#prefetch, lent);
    const window: Promise<StoredChunk[]>[] = [];
    let planned = false;
    const fill = async (limit: number): Promise<void> => {
      while (window.length < limit && !planned) {
        const next = await plan.next();
        if (next.done === true) {
          planned = true;
          return;
        }
        const pending = next.value.fetch();
        pending.catch(() => undefined); // awaited below; this only keeps an early exit quiet
        window.push(pending);
      }
    };
    let batch: StoredChunk[] = [];
    let at = 0;
    // Buffers of used-up fetches whose chunks the caller may still hold: each with the number of
    // its last chunk among those yielded, given back once `heldChunks` later chunks were yielded.
    const held: { chunk: Uint8Array; last: number }[] = [];
    let yielded = 0;
    const giveBackUnheld = (): void => {
      while (held.length > 0 && held[0]!.last < yielded - heldChunks) lent?.giveBack(held.shift()!.chunk);
    };
    try {
      for (const index of order) {
        if (this.memoryRows(index) !== undefined) {
          yield await this.loadChunk(index);
          yielded++;
          continue;
        }
        const keptChunk = kept.get(index);
        if (keptChunk !== undefined) {
          yield await this.loadChunk(index, { index, key: this.chunkKey(index), chunk: keptChunk });
          yielded++;
          continue;
        }
        if (at >= batch.length) {
          // Given back once: the next fetch may be lent the same buffer at once, and a failure
          // before `batch` is replaced must not give it back again (under a read in flight).
          if (batch.length > 0 && lent !== undefined) held.push({ chunk: batch[0]!.chunk, last: yielded - 1 });
          giveBackUnheld();
          batch = [];
          await fill(1 + this.#prefetch);
          const pending = window.shift();
          if (pending === undefined) throw new Error("internal: the layout planned fewer chunks than asked");
          batch = await pending;
          at = 0;
          await fill(this.#prefetch);
        }
        const stored = batch[at++]!;
        if (stored.index !== index) throw new Error(`internal: the layout planned chunk ${stored.index} where ${index} was asked`);
        yield await this.loadChunk(index, stored);
        yielded++;
      }
      // The caller asked past the last chunk: it is done with the last run too.
      if (batch.length > 0) lent?.giveBack(batch[0]!.chunk);
      batch = [];
    } finally {
      // An early exit (the caller returned, or a read failed): the caller is done with the chunks
      // it was given, and fetches still in flight give their buffers back as they settle (their
      // reads may still write into them until then).
      if (lent !== undefined) {
        for (const buffer of held.splice(0)) lent.giveBack(buffer.chunk);
        if (batch.length > 0) lent.giveBack(batch[0]!.chunk);
        for (const pending of window) {
          pending.then((chunks) => {
            if (chunks.length > 0) lent.giveBack(chunks[0]!.chunk);
          }, () => undefined);
        }
      }
      await plan.return(undefined);
      // A caller still holding bytes decoded in the pass's memory keeps that memory from others.
      lent?.release(options.viewsHeld?.() !== true);
    }
  }

  /**
   * A loaded chunk that is neither decoded nor cached, decoded where the WebAssembly kernels
   * work (no copy out): valid until the next call into @fmt/blosc. `undefined` otherwise, or when
   * the kernels cannot decode it.
   */
  #decodeInKernels(loaded: LoadedChunk): Uint8Array | undefined {
    if (loaded.decoded !== undefined || this.cache.chunk(loaded.index) !== undefined) return undefined;
    try {
      return decompressPlannedTransient(loaded.chunk, loaded.plan!);
    } catch (error) {
      throw pathed(error, loaded.key);
    }
  }

  /**
   * A loaded chunk read into the WebAssembly memory of its pass's own kernels (a bulk read, see
   * `ResidentInputs` of @fmt/blosc), decoded there whole: no copy out, and valid until
   * the pass is asked for its next chunk (nothing else decodes there; a chunk stored raw is a view
   * of its slot, which the pass then reads into again). `undefined` for any other chunk, or when it
   * decoded elsewhere (then it is decoded again where the caller wants it).
   */
  decodeInPassMemory(loaded: LoadedChunk): Uint8Array | undefined {
    if (!isResidentView(loaded.chunk)) return undefined;
    const view = this.#decodeInKernels(loaded);
    // A chunk stored raw is handed out as its slot, which in a format-2 run may start off an 8-byte
    // boundary (after 4-byte checksums, or chunks of sizes that are not multiples of 8): such a
    // one is copied out as before, so that blocks line up as blocks in ordinary buffers do.
    return view !== undefined && isResidentView(view) && view.byteOffset % 8 === 0 ? view : undefined;
  }

  /** Decoded bytes of rows [from, to) of a loaded chunk (relative rows), in a new array. */
  decodeRows(loaded: LoadedChunk, from: number, to: number): Uint8Array {
    if (loaded.decoded !== undefined) return loaded.decoded.slice(from * this.atomSize, to * this.atomSize);
    const out = new Uint8Array((to - from) * this.atomSize);
    this.decodeRowsInto(loaded, from, to, out, 0);
    return out;
  }

  /** Decodes rows [from, to) of a loaded chunk into `out` at byte `offset`. */
  decodeRowsInto(loaded: LoadedChunk, from: number, to: number, out: Uint8Array, offset: number): void {
    const atom = this.atomSize;
    if (loaded.decoded !== undefined) {
      out.set(loaded.decoded.subarray(from * atom, to * atom), offset);
      return;
    }
    const cached = this.cache.chunk(loaded.index);
    if (cached !== undefined) {
      out.set(cached.subarray(from * atom, to * atom), offset);
      return;
    }
    const plan = loaded.plan!;
    try {
      if (from === 0 && to * atom === loaded.storedNbytes) {
        decompressPlannedInto(loaded.chunk, plan, out.subarray(offset, offset + loaded.storedNbytes));
      } else {
        decompressRangePlannedInto(loaded.chunk, plan, from * atom, to * atom, out.subarray(offset, offset + (to - from) * atom));
      }
    } catch (error) {
      throw pathed(error, loaded.key);
    }
  }

  /**
   * Rows `[start, stop)` (valid bounds) as stored bytes into `out` (exactly their size). Cached
   * chunks are copied; others are read `prefetch` ahead and decoded straight into `out`, runs of
   * whole chunks on the worker pool when there is one.
   */
  async readInto(out: Uint8Array, start: number, stop: number): Promise<void> {
    if (start === stop) return;
    const atom = this.atomSize;
    const first = Math.floor(start / this.chunklen);
    const last = Math.floor((stop - 1) / this.chunklen);
    const pending: number[] = [];
    for (let k = first; k <= last; k++) {
      const cached = this.cache.chunk(k);
      const from = Math.max(start, k * this.chunklen);
      const to = Math.min(stop, (k + 1) * this.chunklen);
      if (cached !== undefined && cached.length >= (to - k * this.chunklen) * atom) {
        out.set(cached.subarray((from - k * this.chunklen) * atom, (to - k * this.chunklen) * atom), (from - start) * atom);
      } else {
        pending.push(k);
      }
    }
    const run: LoadedChunk[] = [];
    // A run for the pool holds up to POOL_RUN - 1 earlier chunks when it asks for the next one
    // (POOL_RUN is passed, one to spare). Their input buffers are lent again only once the run is
    // decoded (then the pool has copied or decoded every input; see ChunkCodecPool), so reading
    // reuses memory instead of touching fresh pages for every chunk file.
    const heldChunks = this.#workers === undefined ? 0 : POOL_RUN;
    let given = 0;
    for await (const loaded of this.chunksInOrder(pending, { reuseInputs: true, heldChunks })) {
      // The last run is decoded before the pass ends (then its buffers go back to other passes).
      const lastChunk = ++given === pending.length;
      const from = Math.max(start, loaded.firstRow) - loaded.firstRow;
      const to = Math.min(stop, loaded.firstRow + loaded.rows) - loaded.firstRow;
      const whole = from === 0 && to === loaded.rows && loaded.decoded === undefined && loaded.storedNbytes === loaded.nbytes;
      if (this.#workers !== undefined && whole) {
        if (run.length > 0 && run[run.length - 1]!.index !== loaded.index - 1) await this.#decodeRun(run.splice(0), out, start);
        run.push(loaded);
        if (run.length >= POOL_RUN || lastChunk) await this.#decodeRun(run.splice(0), out, start);
        continue;
      }
      if (run.length > 0) await this.#decodeRun(run.splice(0), out, start);
      this.decodeRowsInto(loaded, from, to, out, (loaded.firstRow + from - start) * atom);
    }
    if (run.length > 0) throw new Error("internal: a pool run was left undecoded at the end of a read");
  }

  /** Whole consecutive chunks decoded on the pool into their place in `out`. */
  async #decodeRun(run: LoadedChunk[], out: Uint8Array, start: number): Promise<void> {
    const firstOffset = (run[0]!.firstRow - start) * this.atomSize;
    const size = run.reduce((n, c) => n + c.nbytes, 0);
    if (run.length === 1) {
      this.decodeRowsInto(run[0]!, 0, run[0]!.rows, out, firstOffset);
      return;
    }
    try {
      await this.#workers!.decompressManyInto(run.map((c) => c.chunk), out.subarray(firstOffset, firstOffset + size), { path: run[0]!.key, maxBytes: this.chunklen * this.atomSize });
    } catch (error) {
      // The pool names one path for the run; decoding here names the chunk that is broken.
      for (const c of run) this.decodeRowsInto(c, 0, c.rows, out, (c.firstRow - start) * this.atomSize);
      throw error;
    }
  }

  /**
   * Calls `visit` with each chunk's decoded rows in `[start, stop)`, in order. The bytes are only
   * valid during the call: they live in a buffer reused for the next chunk, in the cache, or in
   * @fmt/blosc's WebAssembly memory — so `visit` must not call into @fmt/blosc.
   */
  async scan(start: number, stop: number, visit: (bytes: Uint8Array, firstRow: number) => void): Promise<void> {
    if (start === stop) return;
    const atom = this.atomSize;
    const first = Math.floor(start / this.chunklen);
    const last = Math.floor((stop - 1) / this.chunklen);
    let scratch = new Uint8Array(0);
    const indices: number[] = [];
    for (let k = first; k <= last; k++) indices.push(k);
    for await (const loaded of this.chunksInOrder(indices, { reuseInputs: true })) {
      const from = Math.max(start, loaded.firstRow) - loaded.firstRow;
      const to = Math.min(stop, loaded.firstRow + loaded.rows) - loaded.firstRow;
      // A chunk decoded in WebAssembly memory is visited there, without the copy out: `visit`
      // runs synchronously and calls nothing that could reuse that memory before it returns.
      const transient = this.#decodeInKernels(loaded);
      if (transient !== undefined) {
        visit(transient.subarray(from * atom, to * atom), loaded.firstRow + from);
        continue;
      }
      const size = (to - from) * atom;
      if (scratch.length < size) scratch = new Uint8Array(Math.max(size, this.chunklen * atom));
      const view = scratch.subarray(0, size);
      this.decodeRowsInto(loaded, from, to, view, 0);
      visit(view, loaded.firstRow + from);
    }
  }

  /**
   * Rows `rows` (valid, non-negative row numbers in any order, duplicates allowed) as stored bytes
   * into `out`, row `rows[p]` at `out[p × atomSize]`. Each chunk needed is read and decoded once.
   */
  async takeInto(rows: Float64Array, out: Uint8Array): Promise<void> {
    const atom = this.atomSize;
    // Positions grouped by chunk (a counting sort: linear, and the order inside a chunk does not
    // matter), runs of positions per chunk: the work follows the indices asked for, never the
    // array's (possibly claimed) length.
    const runs = new Map<number, { from: number; to: number }>();
    for (let p = 0; p < rows.length; p++) {
      const k = Math.floor(rows[p]! / this.chunklen);
      const run = runs.get(k);
      if (run === undefined) runs.set(k, { from: 0, to: 1 });
      else run.to++;
    }
    const chunks = [...runs.keys()].sort((a, b) => a - b);
    let filled = 0;
    for (const k of chunks) {
      const run = runs.get(k)!;
      const count = run.to;
      run.from = run.to = filled;
      filled += count;
    }
    const order = new Uint32Array(rows.length);
    for (let p = 0; p < rows.length; p++) order[runs.get(Math.floor(rows[p]! / this.chunklen))!.to++] = p;
    const needed: number[] = [];
    for (const k of chunks) {
      const run = runs.get(k)!;
      const bytes = this.cache.chunk(k) ?? this.memoryRows(k);
      if (bytes !== undefined) scatter(bytes, k * this.chunklen, atom, rows, order, run.from, run.to, out);
      else needed.push(k);
    }
    let scratch = new Uint8Array(0);
    for await (const loaded of this.chunksInOrder(needed, { reuseInputs: true })) {
      const run = runs.get(loaded.index)!;
      // A chunk decoded in WebAssembly memory is gathered from there, without the copy out:
      // scatter calls nothing that could reuse that memory.
      const transient = this.#decodeInKernels(loaded);
      if (transient !== undefined && transient.length >= loaded.rows * atom) {
        scatter(transient, loaded.firstRow, atom, rows, order, run.from, run.to, out);
        continue;
      }
      const size = loaded.rows * atom;
      if (scratch.length < size) scratch = new Uint8Array(this.chunklen * atom);
      const view = scratch.subarray(0, size);
      this.decodeRowsInto(loaded, 0, loaded.rows, view, 0);
      scatter(view, loaded.firstRow, atom, rows, order, run.from, run.to, out);
    }
  }

  /**
   * The stored bytes of row `row` (valid, non-negative) in a new array (see {@link RowReader}).
   */
  rowBytes(row: number): Promise<Uint8Array> {
    return this.#rows.rowBytes(row);
  }
}
