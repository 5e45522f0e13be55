/**
 * {@link MemoryStore}: the browser-safe store held in a `Map`, for tests, scratch datasets and
 * data built in memory before it is written elsewhere. Split out of `index.ts` (the store
 * interfaces and key rules), which re-exports it. Browser-safe: no `node:` imports.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * const store = new MemoryStore();
 * ```
 * @packageDocumentation
 */

import { FormatError, UsageError } from "@fmt/errors";
import { checkPutOptions, resolveRange, validateKey, validatePrefix } from "./index.js";
import type { ByteRange, PutOptions, WritableStore } from "./index.js";

/** `value` when it is a `Uint8Array`, else `UsageError` `INVALID_ARGUMENT` (field `value`). */
function checkValue(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new UsageError("INVALID_ARGUMENT", "a stored value must be a Uint8Array", { field: "value", expected: "Uint8Array", actual: typeof value });
  }
  return value;
}

/**
 * A {@link WritableStore} held in memory (a `Map`). Keys are validated like on disk, values are
 * copied on the way in and on the way out, so callers can never alias the stored bytes.
 *
 * Missing keys: `get`/`getRange` give `undefined`, `delete` does nothing, `list` gives `[]`.
 *
 * @example
 * ```ts
 * const store = new MemoryStore([["__attrs__", new TextEncoder().encode("{}\n")]]);
 * await store.put("meta/sizes", new Uint8Array([123, 125]));
 * console.log(await store.list("meta/")); // ["meta/sizes"]
 * ```
 */
export class MemoryStore implements WritableStore {
  readonly #entries = new Map<string, Uint8Array>();
  /**
   * `true`: this class's `put` copies the value before it returns (see
   * {@link WritableStore.putsAtOnce}); `false` in a subclass that replaces `put`, unless it says
   * otherwise itself.
   */
  get putsAtOnce(): boolean {
    return this.put === MemoryStore.prototype.put;
  }

  /**
   * `true`: this class's `writeAt` copies the bytes before it returns (see
   * {@link WritableStore.positionalWritesAtOnce}); `false` in a subclass that replaces `writeAt`,
   * unless it says otherwise itself.
   */
  get positionalWritesAtOnce(): boolean {
    return this.writeAt === MemoryStore.prototype.writeAt;
  }

  /** Optionally starts with the given entries (validated and copied). */
  constructor(entries?: Iterable<readonly [string, Uint8Array]>) {
    if (entries !== undefined) {
      for (const [key, value] of entries) this.#entries.set(validateKey(key), checkValue(value).slice());
    }
  }

  /** Number of keys held. */
  get size(): number {
    return this.#entries.size;
  }

  /** A copy of the value of `key`; `undefined` if missing. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const value = this.#entries.get(validateKey(key));
    return value?.slice();
  }

  /** A copy of part of the value of `key` (clipped, see {@link ByteRange}); `undefined` if missing. */
  async getRange(key: string, range: ByteRange): Promise<Uint8Array | undefined> {
    const value = this.#entries.get(validateKey(key));
    if (value === undefined) {
      resolveRange(range, 0);
      return undefined;
    }
    const { start, end } = resolveRange(range, value.length);
    return value.slice(start, end);
  }

  /** Copies of several parts of the value of `key` (each clipped); `undefined` if missing. */
  async getRanges(key: string, ranges: readonly ByteRange[]): Promise<Uint8Array[] | undefined> {
    const value = this.#entries.get(validateKey(key));
    const size = value?.length ?? 0;
    const windows = ranges.map((range) => resolveRange(range, size));
    return value === undefined ? undefined : windows.map(({ start, end }) => value.slice(start, end));
  }

  /** Sorted keys starting with `prefix`; `[]` when none. */
  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    return [...this.#entries.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  /** Stores a copy of `value` under `key` (memory has no durability, so `options` change nothing). */
  async put(key: string, value: Uint8Array, options?: PutOptions): Promise<void> {
    validateKey(key);
    checkPutOptions(options);
    this.#entries.set(key, checkValue(value).slice());
  }

  /**
   * Nothing to flush in memory; present so that writers call the same API on every store.
   *
   * @example
   * ```ts
   * await store.put("data/__0.blp", bytes, { durable: false });
   * await store.sync(); // resolves at once
   * ```
   */
  async sync(): Promise<void> {}

  /** Removes `key`; missing keys are ignored. */
  async delete(key: string): Promise<void> {
    this.#entries.delete(validateKey(key));
  }

  /**
   * The length of the value of `key`; `undefined` if missing.
   *
   * @example
   * ```ts
   * await store.byteLength("meta/sizes"); // 43
   * ```
   */
  async byteLength(key: string): Promise<number | undefined> {
    return this.#entries.get(validateKey(key))?.length;
  }

  /**
   * Writes `bytes` into the value of `key` at `offset` (at most its length; at the end it appends).
   * Values returned earlier are copies, so they do not change. Appends grow the value's buffer
   * geometrically, so that a file built by many appends costs linear time.
   *
   * @example
   * ```ts
   * await store.put("f", Uint8Array.of(1, 2, 3));
   * await store.writeAt("f", 3, Uint8Array.of(4));   // f = [1, 2, 3, 4]
   * await store.writeAt("f", 0, Uint8Array.of(9));   // f = [9, 2, 3, 4]
   * ```
   */
  async writeAt(key: string, offset: number, bytes: Uint8Array, options?: PutOptions): Promise<void> {
    validateKey(key);
    checkPutOptions(options);
    checkValue(bytes);
    const value = this.#entries.get(key);
    if (value === undefined) throw new FormatError("MISSING_FILE", "writeAt needs an existing value", { path: key, field: "file" });
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > value.length) {
      throw new UsageError("OUT_OF_RANGE", "writeAt offset must lie within the value", { path: key, field: "offset", expected: `0..${value.length}`, actual: offset });
    }
    const end = offset + bytes.length;
    let target = value;
    if (end > value.length) {
      const room = value.buffer.byteLength - value.byteOffset;
      if (value.byteOffset === 0 && room >= end && value.buffer instanceof ArrayBuffer) {
        target = new Uint8Array(value.buffer, 0, end);
      } else {
        const grown = new Uint8Array(new ArrayBuffer(Math.max(end, value.length * 2, 64)), 0, end);
        grown.set(value);
        target = grown;
      }
      this.#entries.set(key, target);
    }
    target.set(bytes, offset);
  }

  /**
   * Stores a copy of `value` under `key` unless the key exists; `true` when it was stored.
   *
   * @example
   * ```ts
   * await store.putExclusive(".lock", new Uint8Array([1])); // true
   * await store.putExclusive(".lock", new Uint8Array([2])); // false, still [1]
   * ```
   */
  async putExclusive(key: string, value: Uint8Array): Promise<boolean> {
    validateKey(key);
    checkValue(value);
    if (this.#entries.has(key)) return false;
    this.#entries.set(key, value.slice());
    return true;
  }

  /**
   * Deletes `key` if its value equals `expected` byte for byte (one atomic step); `true` when
   * deleted, `false` when missing or different.
   *
   * @example
   * ```ts
   * await store.put(".lock", new Uint8Array([1]));
   * await store.deleteIfUnchanged(".lock", new Uint8Array([2])); // false, still [1]
   * await store.deleteIfUnchanged(".lock", new Uint8Array([1])); // true, gone
   * ```
   */
  async deleteIfUnchanged(key: string, expected: Uint8Array): Promise<boolean> {
    validateKey(key);
    checkValue(expected);
    const value = this.#entries.get(key);
    if (value === undefined || value.length !== expected.length || value.some((byte, i) => byte !== expected[i])) return false;
    this.#entries.delete(key);
    return true;
  }
}
