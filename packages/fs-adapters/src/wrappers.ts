/**
 * The read-side wrappers of the `@fmt/fs-adapters` entry: {@link CachingStore} (an LRU cache of
 * whole values) and {@link RangeCoalescingStore} (merges neighbouring byte ranges into one
 * request). Both report what they saved. Browser-safe.
 *
 * @example
 * ```ts
 * import { CachingStore } from "@fmt/fs-adapters";
 * const cache = new CachingStore(remoteStore);
 * console.log(cache.saved); // { requests: 0, bytes: 0 }
 * ```
 * @packageDocumentation
 */

import { UsageError } from "@fmt/errors";
import { readRange, resolveRange, validateKey } from "./index.js";
import type { ByteRange, ReadableStore } from "./index.js";

function checkCount(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new UsageError("INVALID_ARGUMENT", "a byte count must be a non-negative safe integer", { field, expected: "integer >= 0", actual: value });
  }
  return value;
}

/**
 * Options of {@link CachingStore}.
 *
 * @example
 * ```ts
 * const options: CachingStoreOptions = { maxBytes: 32 * 1024 * 1024 };
 * ```
 */
export interface CachingStoreOptions {
  /** Total bytes of values kept; least recently used values are evicted first. Default 64 MiB. */
  maxBytes?: number;
}

/**
 * A read-through LRU cache in front of any {@link ReadableStore}, bounded by the total size of
 * the cached values. Whole values fetched by `get` are cached; concurrent `get`s of one key share
 * one fetch. Missing keys (`undefined`) are not cached. `getRange` is served from the cache when
 * the whole value is cached, and otherwise forwarded to the inner store uncached. `list` is
 * forwarded (present only when the inner store has it).
 *
 * Results are not copies: a hit returns the cached bytes themselves (or a view into them), so
 * that serving from memory costs no allocation. Callers must not modify what `get` and
 * `getRange` return (copy first, e.g. with `slice()`); a modified value would be served to every
 * later caller.
 *
 * The cache does not see writes made to the inner store behind its back; call
 * {@link CachingStore.invalidate} or {@link CachingStore.clear} after them.
 *
 * @example
 * ```ts
 * import { FileSystemStore } from "@fmt/fs-adapters/node";
 * const store = new CachingStore(new FileSystemStore("/data/prices.bcolz"), { maxBytes: 16 << 20 });
 * const sizes = await store.get("meta/sizes"); // read from disk
 * const again = await store.get("meta/sizes"); // served from memory
 * ```
 */
export class CachingStore implements ReadableStore {
  readonly #inner: ReadableStore;
  readonly #maxBytes: number;
  // Map iteration order is insertion order, so re-inserting on use makes the first key the LRU one.
  readonly #cache = new Map<string, Uint8Array>();
  readonly #inflight = new Map<string, Promise<Uint8Array | undefined>>();
  #bytes = 0;
  #generation = 0;
  readonly #saved = { requests: 0, bytes: 0 };

  /** Forwarded to the inner store's `list`; `undefined` when the inner store cannot list. */
  readonly list?: (prefix: string) => Promise<string[]>;
  /** The inner store's `concurrency` hint. */
  readonly concurrency?: number;
  /** The inner store's `rangeRequestBytes` hint. */
  readonly rangeRequestBytes?: number;

  /** Wraps `inner`. */
  constructor(inner: ReadableStore, options: CachingStoreOptions = {}) {
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new UsageError("INVALID_ARGUMENT", "maxBytes must be a non-negative safe integer", { field: "maxBytes", actual: maxBytes });
    }
    this.#inner = inner;
    this.#maxBytes = maxBytes;
    if (inner.list !== undefined) {
      const list = inner.list.bind(inner);
      this.list = (prefix: string) => list(prefix);
    }
    if (inner.concurrency !== undefined) this.concurrency = inner.concurrency;
    if (inner.rangeRequestBytes !== undefined) this.rangeRequestBytes = inner.rangeRequestBytes;
  }

  /** Total bytes currently cached. */
  get cachedBytes(): number {
    return this.#bytes;
  }

  /**
   * What the cache saved the inner store so far: reads answered from memory or shared with a
   * read already in flight (`requests`), and the bytes those reads did not fetch again.
   *
   * @example
   * ```ts
   * console.log(cache.saved); // { requests: 12, bytes: 98304 }
   * ```
   */
  get saved(): { requests: number; bytes: number } {
    return { ...this.#saved };
  }

  /** The value of `key` (the cached bytes, not a copy: do not modify), from the cache when possible; `undefined` if missing. */
  async get(key: string): Promise<Uint8Array | undefined> {
    return this.#fetch(validateKey(key));
  }

  /** Part of the value of `key` (a view of the cached bytes when cached: do not modify); `undefined` if missing. */
  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    validateKey(key);
    const cached = this.#touch(key);
    if (cached !== undefined) {
      const { start, end } = resolveRange(range, cached.length);
      this.#saved.requests += 1;
      this.#saved.bytes += end - start;
      return cached.subarray(start, end);
    }
    if (this.#inner.getRange !== undefined) return this.#inner.getRange(key, range);
    const whole = await this.#fetch(key);
    if (whole === undefined) {
      resolveRange(range, 0);
      return undefined;
    }
    const { start, end } = resolveRange(range, whole.length);
    return whole.subarray(start, end);
  }

  /** Drops `key` from the cache. */
  invalidate(key: string): void {
    const value = this.#cache.get(key);
    if (value !== undefined) {
      this.#cache.delete(key);
      this.#bytes -= value.length;
    }
    this.#inflight.delete(key);
  }

  /** Drops everything from the cache. */
  clear(): void {
    this.#cache.clear();
    this.#inflight.clear();
    this.#bytes = 0;
    this.#generation++;
  }

  #touch(key: string): Uint8Array | undefined {
    const value = this.#cache.get(key);
    if (value !== undefined) {
      this.#cache.delete(key);
      this.#cache.set(key, value);
    }
    return value;
  }

  #fetch(key: string): Promise<Uint8Array | undefined> {
    const cached = this.#touch(key);
    if (cached !== undefined) {
      this.#saved.requests += 1;
      this.#saved.bytes += cached.length;
      return Promise.resolve(cached);
    }
    const pending = this.#inflight.get(key);
    if (pending !== undefined) {
      this.#saved.requests += 1;
      return pending.then((value) => {
        this.#saved.bytes += value?.length ?? 0;
        return value;
      });
    }
    const generation = this.#generation;
    const promise = this.#inner.get(key).then(
      (value) => {
        if (this.#inflight.get(key) === promise) this.#inflight.delete(key);
        if (value !== undefined && generation === this.#generation) this.#remember(key, value);
        return value;
      },
      (error: unknown) => {
        if (this.#inflight.get(key) === promise) this.#inflight.delete(key);
        throw error;
      },
    );
    this.#inflight.set(key, promise);
    return promise;
  }

  #remember(key: string, value: Uint8Array): void {
    if (value.length > this.#maxBytes) return;
    this.invalidate(key);
    this.#cache.set(key, value);
    this.#bytes += value.length;
    for (const [oldKey, oldValue] of this.#cache) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#cache.delete(oldKey);
      this.#bytes -= oldValue.length;
    }
  }
}

/**
 * Options of {@link RangeCoalescingStore}.
 *
 * @example
 * ```ts
 * const options: RangeCoalescingStoreOptions = { maxGap: 8192, maxRequestBytes: 8 << 20 };
 * ```
 */
export interface RangeCoalescingStoreOptions {
  /** Two ranges of one key whose gap is at most this many bytes are fetched together. Default 4096. */
  maxGap?: number;
  /** A merged request never spans more than this many bytes (unless one range alone does). Default 16 MiB. */
  maxRequestBytes?: number;
}

interface PendingRange {
  start: number;
  end: number;
  resolve: (value: Uint8Array | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Merges `getRange` calls that are made in the same tick for the same key into fewer, larger
 * `getRange` calls on the inner store (useful for HTTP stores, where every request costs a
 * round trip). Offset ranges that are at most `maxGap` bytes apart are merged; suffix ranges and
 * `get`/`list` are forwarded unchanged. Each caller receives its own copy of its own bytes, with
 * the usual clipping at the end of the value.
 *
 * @example
 * ```ts
 * const store = new RangeCoalescingStore(httpStore);
 * // These two become one request for bytes [0, 2048) of the file:
 * const [a, b] = await Promise.all([
 *   store.getRange("data/__0.blp", { offset: 0, length: 32 }),
 *   store.getRange("data/__0.blp", { offset: 1024, length: 1024 }),
 * ]);
 * ```
 */
export class RangeCoalescingStore implements ReadableStore {
  readonly #inner: ReadableStore;
  readonly #maxGap: number;
  readonly #maxRequestBytes: number;
  #queue = new Map<string, PendingRange[]>();
  #scheduled = false;
  readonly #saved = { requests: 0, bytes: 0 };

  /** Forwarded to the inner store's `list`; `undefined` when the inner store cannot list. */
  readonly list?: (prefix: string) => Promise<string[]>;
  /** The inner store's `concurrency` hint. */
  readonly concurrency?: number;
  /** The inner store's `rangeRequestBytes` hint. */
  readonly rangeRequestBytes?: number;

  /** Wraps `inner`. */
  constructor(inner: ReadableStore, options: RangeCoalescingStoreOptions = {}) {
    this.#inner = inner;
    this.#maxGap = checkCount(options.maxGap ?? 4096, "maxGap");
    this.#maxRequestBytes = checkCount(options.maxRequestBytes ?? 16 * 1024 * 1024, "maxRequestBytes");
    if (inner.list !== undefined) {
      const list = inner.list.bind(inner);
      this.list = (prefix: string) => list(prefix);
    }
    if (inner.concurrency !== undefined) this.concurrency = inner.concurrency;
    if (inner.rangeRequestBytes !== undefined) this.rangeRequestBytes = inner.rangeRequestBytes;
  }

  /** Forwarded to the inner store; `undefined` if missing. */
  get(key: string): Promise<Uint8Array | undefined> {
    return this.#inner.get(validateKey(key));
  }

  /**
   * What merging saved so far: `requests` is the number of `getRange` calls that did not need a
   * request of their own; `bytes` is negative when the gaps fetched between merged ranges cost
   * more than overlapping ranges saved.
   *
   * @example
   * ```ts
   * console.log(coalescing.saved); // { requests: 7, bytes: -1024 }
   * ```
   */
  get saved(): { requests: number; bytes: number } {
    return { ...this.#saved };
  }

  /** Part of the value of `key`, possibly fetched together with neighbouring ranges; `undefined` if missing. */
  getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    validateKey(key);
    resolveRange(range, 0); // validates the fields before anything is queued
    if ("suffixLength" in range) return readRange(this.#inner, key, range);
    const start = range.offset;
    const end = start + range.length;
    if (!Number.isSafeInteger(end)) {
      throw new UsageError("INVALID_ARGUMENT", "range end is not a safe integer", { field: "range", actual: range });
    }
    return new Promise((resolve, reject) => {
      let list = this.#queue.get(key);
      if (list === undefined) {
        list = [];
        this.#queue.set(key, list);
      }
      list.push({ start, end, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => this.#flush());
      }
    });
  }

  #flush(): void {
    const queue = this.#queue;
    this.#queue = new Map();
    this.#scheduled = false;
    for (const [key, pending] of queue) {
      pending.sort((a, b) => a.start - b.start);
      let group: PendingRange[] = [];
      let groupStart = 0;
      let groupEnd = 0;
      for (const item of pending) {
        const mergedEnd = Math.max(groupEnd, item.end);
        if (group.length > 0 && item.start - groupEnd <= this.#maxGap && mergedEnd - groupStart <= this.#maxRequestBytes) {
          group.push(item);
          groupEnd = mergedEnd;
          continue;
        }
        if (group.length > 0) this.#issue(key, groupStart, groupEnd, group);
        group = [item];
        groupStart = item.start;
        groupEnd = item.end;
      }
      if (group.length > 0) this.#issue(key, groupStart, groupEnd, group);
    }
  }

  #issue(key: string, start: number, end: number, group: PendingRange[]): void {
    this.#saved.requests += group.length - 1;
    this.#saved.bytes += group.reduce((sum, item) => sum + (item.end - item.start), 0) - (end - start);
    readRange(this.#inner, key, { offset: start, length: end - start }).then(
      (bytes) => {
        for (const item of group) {
          if (bytes === undefined) {
            item.resolve(undefined);
            continue;
          }
          const from = Math.min(item.start - start, bytes.length);
          const to = Math.min(item.end - start, bytes.length);
          item.resolve(bytes.slice(from, to));
        }
      },
      (error: unknown) => {
        for (const item of group) item.reject(error);
      },
    );
  }
}
