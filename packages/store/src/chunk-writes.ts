// Turning rows into chunk files and writing them: compression on this thread or through a
// worker pool, with several chunk files in flight so that compression and file I/O overlap.
import { UsageError } from "@fmt/errors";
import { compress } from "@fmt/blosc";
import type { ChunkCodecPool, CompressOptions } from "@fmt/blosc";
import { BLPK_V1_HEADER_SIZE, writeBlpkV1Header } from "@fmt/header";
import type { WritableStore } from "@fmt/fs-adapters";

/** Chunk files being compressed or written at once without a pool: one compressing, the rest on disk. */
const WINDOW_ALONE = 4;
/** Per pool thread: enough queued chunks that no worker waits for the next one. */
const WINDOW_PER_THREAD = 8;

const BLPK_HEADER = writeBlpkV1Header();

/**
 * A chunk file's bytes, the 16-byte blpk v1 header and one Blosc chunk, laid out in `room` (which
 * must hold them) or in a new array.
 */
export function chunkFile(chunk: Uint8Array, room: Uint8Array = new Uint8Array(BLPK_V1_HEADER_SIZE + chunk.length)): Uint8Array {
  const file = room.subarray(0, BLPK_V1_HEADER_SIZE + chunk.length);
  file.set(BLPK_HEADER);
  file.set(chunk, BLPK_V1_HEADER_SIZE);
  return file;
}

/**
 * Writes chunk files for one carray writer. `add` starts a chunk (compressing it at once on this
 * thread, or queueing it on the pool) and returns when there is room for the next one; `drain`
 * waits for every chunk started so far and throws the first failure.
 */
export class ChunkWrites {
  readonly #store: WritableStore;
  readonly #options: CompressOptions;
  readonly #pool: ChunkCodecPool | undefined;
  readonly #window: number;
  /** Size of the largest chunk file: header, Blosc header and the rows stored uncompressed. */
  readonly #maxFileBytes: number;
  /**
   * Buffers chunk files are laid out in, reused once their put has resolved (a store keeps its
   * own copy): fresh memory for every chunk costs as much as the copy itself.
   */
  readonly #spareFiles: Uint8Array[] = [];
  #inflight: Promise<void>[] = [];
  #failure: { error: unknown } | undefined;

  constructor(store: WritableStore, options: CompressOptions, pool: ChunkCodecPool | undefined, chunksize: number) {
    this.#store = store;
    this.#options = options;
    this.#pool = pool;
    this.#window = pool === undefined ? WINDOW_ALONE : Math.max(WINDOW_ALONE, WINDOW_PER_THREAD * pool.threads);
    this.#maxFileBytes = BLPK_V1_HEADER_SIZE + chunksize + 16;
  }

  /** The Blosc chunk of `rows`, compressed here or on the pool. */
  async compress(rows: Uint8Array): Promise<Uint8Array> {
    if (this.#pool === undefined) return compress(rows, this.#options);
    const [chunk] = await this.#pool.compressMany([rows], this.#options);
    return chunk!;
  }

  /**
   * Compresses `rows` and stores them as the chunk file `key`; `written(cbytes)` runs once the
   * file is stored. `rows` must stay unchanged until {@link ChunkWrites.drain} resolves.
   * `durable: false` leaves the file's flush to the store's next `sync`.
   */
  async add(key: string, rows: Uint8Array, durable: boolean, written: (cbytes: number) => void): Promise<void> {
    while (this.#inflight.length >= this.#window) await this.#inflight.shift();
    this.#throwFailure();
    const job = (async () => {
      const chunk = await this.compress(rows);
      const fits = BLPK_V1_HEADER_SIZE + chunk.length <= this.#maxFileBytes;
      const room = fits ? (this.#spareFiles.pop() ?? new Uint8Array(this.#maxFileBytes)) : undefined;
      try {
        await this.#store.put(key, chunkFile(chunk, room), { durable });
      } finally {
        if (room !== undefined && this.#spareFiles.length < this.#window) this.#spareFiles.push(room);
      }
      written(chunk.length);
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
    this.#throwFailure();
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
  const pool = value as Partial<ChunkCodecPool> | null;
  if (typeof pool !== "object" || pool === null || typeof pool.compressMany !== "function" || typeof pool.decompressManyInto !== "function" || !Number.isSafeInteger(pool.threads) || pool.threads! < 1) {
    throw new UsageError("INVALID_ARGUMENT", "workers must be a pool such as createBloscPool() gives", { field, expected: "ChunkCodecPool { threads, compressMany, decompressManyInto, close }", actual: typeof value });
  }
  return value as ChunkCodecPool;
}
