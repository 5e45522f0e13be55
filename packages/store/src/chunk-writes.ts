// Turning rows into chunks and handing them to the layout: compression on this thread or through
// a worker pool, with several chunks in flight so that compression and I/O overlap.
import { UsageError } from "@fmt/errors";
import { compress, compressInto, compressTransient } from "@fmt/blosc";
import { BLOSC_MAX_OVERHEAD } from "@fmt/header";
import type { ChunkCodecPool, CompressOptions } from "@fmt/blosc";
import type { ChunkWriteOptions } from "./layout.js";

/** Chunks being compressed or written at once without a pool: one compressing, the rest being stored. */
const WINDOW_ALONE = 4;
/**
 * The same for a store that takes the bytes at once and may write them later (a
 * `FileSystemStore` whose write thread writes new chunk files): no buffer is held per chunk, and
 * a deeper queue rides out the thread's slower files (a create of 10 M rows 58 → 55 ms).
 */
const WINDOW_AT_ONCE = 16;
/** Per pool thread: enough queued chunks that no worker waits for the next one. */
const WINDOW_PER_THREAD = 8;

/**
 * Stores one compressed chunk (the layout's `writeChunk`). The chunk's memory is reused once the
 * promise resolves: a store that keeps the bytes must copy them.
 */
export type StoreChunk = (index: number, chunk: Uint8Array, options: ChunkWriteOptions) => Promise<void>;

/**
 * Free bytes kept before each chunk compressed here (the layout's `headroom`): room for format
 * 1's 16-byte file header, so that the file is written without copying the chunk into it.
 */
const HEADROOM = 16;

/**
 * Compresses and stores chunks for one carray writer. `add` starts a chunk (compressing it at
 * once on this thread, or queueing it on the pool) and returns when there is room for the next
 * one; `drain` waits for every chunk started so far and throws the first failure.
 */
export class ChunkWrites {
  readonly #store: StoreChunk;
  readonly #options: CompressOptions;
  readonly #pool: ChunkCodecPool | undefined;
  readonly #window: number;
  #inflight: Promise<void>[] = [];
  #failure: { error: unknown } | undefined;
  /**
   * Buffers chunks are compressed into on this thread, each back here once its chunk is stored:
   * a fresh array per chunk costs a first-touch page fault per 4 KiB and garbage, more than the
   * copy the layout makes of it.
   */
  readonly #spare: Uint8Array[] = [];
  /**
   * Resolves once every chunk given to the pool so far has been handed to the layout (or has
   * failed): the next pool chunk's turn. Never rejects.
   */
  #stored: Promise<void> = Promise.resolve();
  /**
   * The first pool chunk (in add order) that failed since the last drain, with its error: the pool
   * chunks added after it are not stored and fail with that error (the write fails anyway;
   * without a pool their stores would have started before the failure was known, here they would
   * start after it, against a store that may be failing). Chunks added before it are stored as
   * usual.
   */
  #firstFailure: { order: number; error: unknown } | undefined;
  /** Pool chunks added so far, numbering them in add order. */
  #added = 0;
  /** The layout is done with a chunk's bytes once `store` returns (its `writesAtOnce`). */
  readonly #atOnce: boolean;

  /**
   * `atOnce`: `store` is done with a chunk's bytes when it returns its promise (the layout's
   * `writesAtOnce`); chunks are then stored straight from the codec's memory.
   */
  constructor(store: StoreChunk, options: CompressOptions, pool: ChunkCodecPool | undefined, atOnce = false) {
    this.#store = store;
    this.#options = options;
    this.#pool = pool;
    this.#atOnce = atOnce;
    this.#window = pool === undefined ? (atOnce ? WINDOW_AT_ONCE : WINDOW_ALONE) : Math.max(WINDOW_ALONE, WINDOW_PER_THREAD * pool.threads);
  }

  /** The Blosc chunk of `rows`, compressed here or on the pool. */
  async compress(rows: Uint8Array): Promise<Uint8Array> {
    if (this.#pool === undefined) return compress(rows, this.#options);
    const [chunk] = await this.#pool.compressMany([rows], this.#options);
    return chunk!;
  }

  /**
   * Compresses `rows` and stores them as chunk `index`; `written(cbytes)` runs once the chunk is
   * stored. `rows` must stay unchanged until {@link ChunkWrites.drain} resolves. `committed`: the
   * chunk holds rows readers of the committed length see (see the layout's `writeChunk`).
   */
  async add(index: number, rows: Uint8Array, committed: boolean, written: (cbytes: number) => void): Promise<void> {
    while (this.#inflight.length >= this.#window) await this.#inflight.shift();
    this.#throwFailure();
    const pool = this.#pool;
    if (pool !== undefined) {
      // Chunks reach the layout in the order they were added, whichever comes back from the pool
      // first: format 2 places appended chunks in a superchunk as its writeChunk calls come. Only
      // the calls are ordered (the layout queues them in call order); the stores themselves
      // overlap, as format 1's files may. A chunk's turn comes after every earlier chunk's call,
      // even when one of those failed.
      const previous = this.#stored;
      const order = this.#added++;
      let called!: () => void;
      const calledHere = new Promise<void>((resolve) => {
        called = resolve;
      });
      this.#stored = previous.then(() => calledHere);
      const job = (async () => {
        try {
          // With compressLent: compressed into the pool's recycled memory behind room for the file
          // header (no chunk allocated on either thread; format 1 frames it without a copy).
          // Without: compressMany's chunk, whose preceding bytes (if any) are not ours to write.
          const lends = typeof pool.compressLent === "function";
          const lent = lends ? await pool.compressLent!(rows, this.#options, HEADROOM) : { chunk: await this.compress(rows), release: () => undefined };
          const cbytes = lent.chunk.length;
          // A pool that lends less room than asked gets its chunk copied by the layout.
          const headroom = lends && lent.chunk.byteOffset >= HEADROOM ? HEADROOM : 0;
          let released = false;
          try {
            await previous;
            this.#refuseAfterFailure(order);
            const stored = this.#store(index, lent.chunk, { committed, headroom });
            called();
            // A store that took the bytes already (a write thread may write them later) is done
            // with the lent memory.
            if (this.#atOnce) {
              released = true;
              lent.release();
            }
            await stored;
          } finally {
            if (!released) lent.release();
          }
          written(cbytes);
        } catch (error) {
          // Set before this chunk's turn passes on, so that the next chunk sees it.
          if (this.#firstFailure === undefined || order < this.#firstFailure.order) this.#firstFailure = { order, error };
          throw error;
        } finally {
          called();
        }
      })();
      this.#inflight.push(job.catch((error: unknown) => {
        this.#failure ??= { error };
      }));
      return;
    }
    const job = (async () => {
      // Stored from the codec's memory without a copy: `store` writes it before it returns, and
      // nothing calls into @fmt/blosc in between (which would reuse that memory).
      const inCodec = this.#atOnce ? compressTransient(rows, this.#options, HEADROOM) : undefined;
      if (inCodec !== undefined) {
        const cbytes = inCodec.length;
        await this.#store(index, inCodec, { committed, headroom: HEADROOM });
        written(cbytes);
        return;
      }
      let room = this.#spare.pop();
      if (room === undefined || room.length < HEADROOM + rows.length + BLOSC_MAX_OVERHEAD) room = new Uint8Array(HEADROOM + rows.length + BLOSC_MAX_OVERHEAD);
      let kept = false;
      const keep = (): void => {
        kept = true;
        if (this.#spare.length < WINDOW_ALONE) this.#spare.push(room);
      };
      try {
        const cbytes = compressInto(rows, this.#options, room.subarray(HEADROOM));
        const stored = this.#store(index, room.subarray(HEADROOM, HEADROOM + cbytes), { committed, headroom: HEADROOM });
        // A store that took the bytes already is done with the room: the next chunk may use it.
        if (this.#atOnce) keep();
        await stored;
        written(cbytes);
      } finally {
        if (!kept) keep();
      }
    })();
    this.#inflight.push(job.catch((error: unknown) => {
      this.#failure ??= { error };
    }));
  }

  /** Waits for every chunk started; throws the first failure (and forgets it). */
  async drain(): Promise<void> {
    const pending = this.#inflight;
    this.#inflight = [];
    await Promise.all(pending);
    if (this.#inflight.length === 0) this.#firstFailure = undefined;
    this.#throwFailure();
  }

  /** Throws the first pool failure's error when chunk `order` was added after that chunk. */
  #refuseAfterFailure(order: number): void {
    const failure = this.#firstFailure;
    if (failure !== undefined && order > failure.order) throw failure.error;
  }

  #throwFailure(): void {
    const failure = this.#failure;
    if (failure === undefined) return;
    this.#failure = undefined;
    throw failure.error;
  }
}

/** Checks a `workers` option: undefined or an object with the {@link ChunkCodecPool} methods. */
export function checkCodecPool(value: unknown, field = "workers"): ChunkCodecPool | undefined {
  if (value === undefined) return undefined;
  const pool: Partial<ChunkCodecPool> | null = typeof value === "object" ? value : null;
  if (pool === null || typeof pool.compressMany !== "function" || typeof pool.decompressManyInto !== "function" || !Number.isSafeInteger(pool.threads) || pool.threads! < 1 || (pool.compressLent !== undefined && typeof pool.compressLent !== "function")) {
    throw new UsageError("INVALID_ARGUMENT", "workers must be a pool such as createBloscPool() gives", { field, expected: "ChunkCodecPool { threads, compressMany, decompressManyInto, close, compressLent? }", actual: typeof value });
  }
  return value as ChunkCodecPool;
}
