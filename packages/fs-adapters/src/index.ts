/**
 * The key/value store abstraction every bcolz-ts reader and writer goes through, and the
 * browser-safe adapters: {@link MemoryStore}, {@link CachingStore} and
 * {@link RangeCoalescingStore}. The Node file-system adapter lives in the `./node` subpath
 * (`@fmt/fs-adapters/node`) so that this entry never imports `node:` modules.
 *
 * Keys are `/`-separated and relative to the store root, exactly like the relative paths of the
 * files of a bcolz directory: `"meta/sizes"`, `"data/__0.blp"`, `"price/meta/storage"`.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "@fmt/fs-adapters";
 * const store = new MemoryStore();
 * await store.put("meta/sizes", new TextEncoder().encode('{"shape": [0], "nbytes": 0, "cbytes": 0}\n'));
 * console.log(await store.list(""));          // ["meta/sizes"]
 * console.log(await store.get("meta/nope"));  // undefined
 * ```
 * @packageDocumentation
 */

import { UsageError } from "@fmt/errors";

/**
 * A byte range of a stored value: `length` bytes from `offset`, or the last `suffixLength` bytes.
 *
 * A range that reaches past the end of the value is clipped to the end (so the result can be
 * shorter than asked, and is empty when `offset` is at or past the end); it is never an error.
 *
 * @example
 * ```ts
 * const header: ByteRange = { offset: 0, length: 32 };
 * const tail: ByteRange = { suffixLength: 8 };
 * ```
 */
export type ByteRange = { offset: number; length: number } | { suffixLength: number };

/**
 * Read access to a key/value store.
 *
 * Every method resolves to `undefined` (never rejects) when the key does not exist. Values
 * returned belong to the caller: a store never hands out a view of its own internal buffer —
 * except caching wrappers ({@link CachingStore}), which hand out their cached bytes so that a hit
 * costs no copy; callers that may modify a value must copy it first.
 *
 * @example
 * ```ts
 * async function readText(store: ReadableStore, key: string): Promise<string | undefined> {
 *   const bytes = await store.get(key);
 *   return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
 * }
 * ```
 */
export interface ReadableStore {
  /** The whole value of `key`; `undefined` if there is no such key. */
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * Part of the value of `key` (see {@link ByteRange} for clipping); `undefined` if there is no
   * such key. Optional: callers fall back to `get` plus slicing ({@link readRange} does that).
   */
  getRange?(key: string, range: ByteRange): Promise<Uint8Array | undefined>;
  /**
   * The whole value of `key` like {@link get}, or with `range` the part {@link getRange} gives,
   * but read into `buffer` when it fits there (the result is then a view of `buffer`, which the
   * caller lends until it is done with the result); otherwise in a new array. `undefined` if
   * there is no such key. The store is done with `buffer` once the promise settles, also when it
   * rejects or answers with memory of its own (callers lend the buffer to another read then).
   * `buffer` may be a view of memory that cannot be transferred or detached (a WebAssembly
   * memory, possibly a `SharedArrayBuffer`: `@fmt/store` reads chunk files straight into its
   * decoder's), and of more memory than its own length: write into it, do not transfer its
   * `buffer` or post it to another thread.
   * Optional: a store that cannot read into a given buffer leaves it out and callers use `get`
   * or `getRange`.
   *
   * @example
   * ```ts
   * const bytes = (await store.getInto?.("data/__0.blp", spare)) ?? (await store.get("data/__0.blp"));
   * const slot = await store.getInto?.("data/__1__.bin", spare, { offset: 4096, length: 65536 });
   * ```
   */
  getInto?(key: string, buffer: Uint8Array, range?: ByteRange): Promise<Uint8Array | undefined>;
  /**
   * Several parts of the value of `key` at once, each clipped like {@link getRange}, in the
   * order asked; `undefined` if there is no such key. Optional: a store that reads ranges as
   * cheaply one by one leaves it out. A local store opens the file once for all of them (a
   * reader fetching a few bytes from each of a chunk's streams pays one open, not one per
   * stream).
   *
   * `into` lends a buffer per range, as {@link getInto} lends one: part `i` is read into
   * `into[i]` when it fits there (the part is then a view of it, lent until the caller is done
   * with the part); a part without a buffer, or too long for its buffer, comes in memory of the
   * store's own, and so may every part (a store that cannot read into a given buffer ignores
   * `into`). The buffers must not overlap: the parts are read one after another. A reader that
   * lays out the pieces of a chunk at their offsets lends views of one buffer and copies nothing
   * after the read.
   *
   * @example
   * ```ts
   * const [head, tail] = (await store.getRanges?.("data/__0.blp", [{ offset: 0, length: 16 }, { suffixLength: 8 }])) ?? [];
   * const [first] = (await store.getRanges?.("data/__0.blp", [{ offset: 16, length: 4096 }], [spare.subarray(16)])) ?? [];
   * ```
   */
  getRanges?(key: string, ranges: readonly ByteRange[], into?: readonly (Uint8Array | undefined)[]): Promise<Uint8Array[] | undefined>;
  /**
   * Every key that starts with `prefix` (plain string prefix, so `"data/"` lists the chunk files
   * and `""` lists everything), recursively, sorted by UTF-16 code units (JavaScript's default
   * sort). A prefix that matches nothing gives `[]`. Optional.
   */
  list?(prefix: string): Promise<string[]>;
  /**
   * The size in bytes of the value of `key`; `undefined` if there is no such key. Optional:
   * callers fall back to `get(key).length`.
   */
  byteLength?(key: string): Promise<number | undefined>;
  /**
   * How many requests this store serves well at once: readers keep about that many fetches in
   * flight. Absent for local stores (a reader's own default applies); remote stores set it,
   * since a request there costs a round trip that only concurrency hides.
   */
  readonly concurrency?: number;
  /**
   * How many bytes one request should ask for when a reader can choose: format 2 reads runs of
   * neighbouring chunks out of a superchunk file in one range request, up to about this size.
   * Absent for local stores (the reader's own default applies). A store whose requests cost
   * little past their bytes says less (runs then arrive one after another and decoding overlaps
   * the transfer); one whose requests cost more says more.
   */
  readonly rangeRequestBytes?: number;
}

/**
 * Options of {@link WritableStore.put}.
 *
 * @example
 * ```ts
 * // A chunk file no reader looks at yet: its durability waits for the next sync().
 * await store.put("data/__7.blp", bytes, { durable: false });
 * await store.sync?.();
 * ```
 */
export interface PutOptions {
  /**
   * `true` (the default): when `put` resolves, the value survives a power loss (on stores where
   * that means anything). `false`: the replacement is still atomic for readers, but surviving a
   * power loss is only promised after the next {@link WritableStore.sync}; writers use it for
   * files that no committed metadata points at yet and sync once before the commit.
   */
  durable?: boolean;
  /**
   * `true`: nothing a reader follows leads to `key` yet (a chunk past a carray's committed
   * length, which only the next commit makes visible), so the store may write the value in
   * place instead of atomically; after a crash `key` may hold part of the value, which no reader
   * looks at and the next put replaces. Default `false`. Stores without a cheaper way to write
   * ignore it (the file system store in `io: "sync"` writes such keys in place).
   */
  unreferenced?: boolean;
}

/**
 * Read/write access to a key/value store.
 *
 * @example
 * ```ts
 * async function copyKey(from: ReadableStore, to: WritableStore, key: string): Promise<void> {
 *   const bytes = await from.get(key);
 *   if (bytes === undefined) await to.delete(key);
 *   else await to.put(key, bytes);
 * }
 * ```
 */
export interface WritableStore extends ReadableStore {
  /**
   * Stores `value` under `key`, replacing any previous value atomically: a concurrent or later
   * reader sees either the old or the new value, never a mix. The store keeps its own copy.
   */
  put(key: string, value: Uint8Array, options?: PutOptions): Promise<void>;
  /**
   * `true` when `put` is done with `value` by the time it returns its promise (it writes or
   * copies the bytes synchronously, before its first `await`): the caller may then change or
   * reuse the value's memory at once, without waiting for the promise. Writers use it to store
   * a chunk straight from the codec's memory. Absent or `false` (wrappers that do not know):
   * `value` must stay unchanged until the promise settles. A subclass that overrides `put` of a
   * store that says `true` must say so again (the stores here answer `false` then), and a wrapper
   * or Proxy that changes `put` must answer `putsAtOnce` itself.
   *
   * @example
   * ```ts
   * const pending = store.put("data/__0.blp", view);
   * if (store.putsAtOnce === true) view.fill(0); // fine: the bytes were already taken
   * await pending;
   * ```
   */
  readonly putsAtOnce?: boolean;
  /**
   * {@link WritableStore.putsAtOnce} for `writeAt`: `true` when `writeAt` is done with `bytes` by
   * the time it returns its promise. Format-2 writers then write a new superchunk file slot by
   * slot, straight from the codec's memory, instead of building it in memory and putting it
   * whole. The same rules for subclasses and wrappers as for `putsAtOnce`.
   *
   * @example
   * ```ts
   * const pending = store.writeAt?.("data/__1__.bin", 1104, view);
   * if (store.positionalWritesAtOnce === true) view.fill(0); // fine: the bytes were already taken
   * await pending;
   * ```
   */
  readonly positionalWritesAtOnce?: boolean;
  /**
   * Writes `bytes` into the existing value of `key` at `offset`, in place: `offset` may be at
   * most the value's length (writing at the end appends). Unlike `put` this is not atomic for
   * readers as a whole; a write of at most 32 bytes at a multiple of 8 is (on a local file system,
   * one `pwrite` inside one sector), which is what format-2 writers rely on for their commit steps.
   * A missing key is `FormatError` `MISSING_FILE`. `durable` as for `put`. Optional: format-2
   * writers fall back to get, change, `put` of the whole value on stores without it (object
   * stores, where a whole-object replacement is the only atomic write anyway).
   *
   * @example
   * ```ts
   * await store.writeAt?.("data/__1__.bin", 80, offsetsEntry); // one 8-byte entry
   * ```
   */
  writeAt?(key: string, offset: number, bytes: Uint8Array, options?: PutOptions): Promise<void>;
  /**
   * {@link WritableStore.writeAt} of `bytes` followed by their Adler-32 (RFC 1950) XOR `xor`, as
   * four little-endian bytes, and then `zeros` zero bytes: the next free offset is
   * `offset + bytes.length + 4 + zeros`. Resolves to the value stored (the sum XOR `xor`,
   * unsigned; `(1 ^ xor) >>> 0` for no bytes). A store that writes on another thread computes the sum
   * there, so that the caller's thread does not pay for it: format-2 writers store each new chunk
   * this way, with its checksum bound to its index and its spare room (spec/v2.md §6, §7.3). The
   * sum is then of the bytes the store took, which a store that wrote other bytes than it was
   * given would not reveal.
   *
   * As `writeAt`: not atomic (after a rejection, part of the range may be written), `durable`
   * covers all of it, and when {@link WritableStore.positionalWritesAtOnce} is `true` the bytes
   * are taken at once and the caller may write at the next free offset at once. `xor` must be
   * an unsigned 32-bit integer and `zeros` an integer from 0 to 2^31 (`UsageError`
   * `INVALID_ARGUMENT`, field `xor` or `zeros`). Only Adler-32, format 2's default checksum: with
   * CRC-32 or a hash, writers compute the checksum themselves.
   *
   * Optional: callers without it compute the sum themselves and call `writeAt`. A subclass or
   * wrapper that changes `writeAt` must change this one too, or leave it out.
   *
   * @example
   * ```ts
   * const stored = await store.writeAtWithAdler32?.("data/__1__.bin", 4160, chunk, 7, 52428, { durable: false, unreferenced: true });
   * ```
   */
  writeAtWithAdler32?(key: string, offset: number, bytes: Uint8Array, xor: number, zeros: number, options?: PutOptions): Promise<number>;
  /**
   * Makes every value stored with `{ durable: false }` since the last `sync` durable, like a
   * `put` with the default options would have (on a file system: each file and each touched
   * directory flushed once). Optional: stores without a durability notion omit it, and callers
   * treat a missing `sync` as already done.
   */
  sync?(): Promise<void>;
  /** Removes `key`; a key that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Stores `value` under `key` only if `key` does not exist yet, as one atomic
   * test-and-create: of two concurrent callers exactly one gets `true`. Resolves to `false` (and
   * changes nothing) when the key exists. Optional: writers use it for lock files and fall back
   * to a get-then-put (not atomic) when a store lacks it.
   */
  putExclusive?(key: string, value: Uint8Array): Promise<boolean>;
  /**
   * Deletes `key` only if its value is still exactly `expected`; resolves to `true` when it
   * deleted it, `false` (and changes nothing) when the key is missing or holds other bytes.
   * Writers release their lock file with it, so that a writer whose lock was broken and taken
   * over by another never deletes the new holder's lock. Whether the comparison and the delete
   * are one atomic step depends on the store (each store says); at worst they are one round trip
   * apart. Optional: writers fall back to get, compare, delete.
   *
   * @example
   * ```ts
   * const mine = new TextEncoder().encode('{"owner": "3f9a"}\n');
   * if (await store.putExclusive?.("x/.lock", mine)) {
   *   // ... write the dataset ...
   *   await store.deleteIfUnchanged?.("x/.lock", mine); // false: someone broke the lock and holds it now
   * }
   * ```
   */
  deleteIfUnchanged?(key: string, expected: Uint8Array): Promise<boolean>;
  /**
   * Makes sure the directory `key` exists (an empty directory where the store has directories,
   * e.g. bcolz's `data/` of an empty carray). Optional: stores without directories omit it.
   */
  createDirectory?(key: string): Promise<void>;
  /**
   * Describes the process that writes through this store, recorded in lock files so that a
   * stale lock can be recognised (e.g. `{ pid: 4242, hostname: "build-7" }`). Optional.
   */
  writerIdentity?(): { [key: string]: string | number };
  /**
   * Deletes what writers killed mid-`put` left behind (temporary files that never became a
   * key) under the directory `path` (`""`: everywhere) and resolves to the keys removed. Only
   * safe while holding the lock of the dataset at `path`. Optional: stores whose `put` leaves
   * nothing behind omit it.
   */
  removeStaleTemporaries?(path: string): Promise<string[]>;
}

/**
 * Checks that `key` is a safe relative store key and returns it unchanged.
 *
 * Rejected with `UsageError` code `UNSAFE_NAME` (details: `field: "key"`, `actual: key`):
 * the empty string, a leading `/` (absolute), any `\` (Windows separator), any NUL, an empty
 * segment (`"a//b"`, trailing `/`), and the segments `"."` and `".."`. A non-string gives
 * `UsageError` `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * validateKey("data/__0.blp");   // "data/__0.blp"
 * validateKey("../etc/passwd");  // throws UsageError UNSAFE_NAME
 * ```
 */
export function validateKey(key: string): string {
  if (typeof key !== "string") {
    throw new UsageError("INVALID_ARGUMENT", "a store key must be a string", { field: "key", expected: "string", actual: typeof key });
  }
  const problem = keyProblem(key);
  if (problem !== undefined) {
    throw new UsageError("UNSAFE_NAME", `unsafe store key: ${problem}`, { field: "key", actual: key });
  }
  return key;
}

function keyProblem(key: string): string | undefined {
  if (key === "") return "empty key";
  if (key.startsWith("/")) return "absolute key";
  if (key.includes("\\")) return "backslash in key";
  if (key.includes("\0")) return "NUL in key";
  for (const segment of key.split("/")) {
    if (segment === "") return "empty segment";
    if (segment === "." || segment === "..") return `segment "${segment}"`;
  }
  return undefined;
}

/**
 * Checks a `list` prefix and returns it unchanged. `""` is allowed (everything); otherwise the
 * prefix must be a valid key ({@link validateKey}) or a valid key followed by `/`, except that
 * its last segment may be a partial name (`"data/__1"` matches `"data/__1.blp"` and
 * `"data/__10.blp"`). Errors are `UsageError` `UNSAFE_NAME`.
 *
 * @example
 * ```ts
 * validatePrefix("");         // ""
 * validatePrefix("data/");    // "data/"
 * validatePrefix("/etc");     // throws UsageError UNSAFE_NAME
 * ```
 */
export function validatePrefix(prefix: string): string {
  if (typeof prefix !== "string") {
    throw new UsageError("INVALID_ARGUMENT", "a list prefix must be a string", { field: "prefix", expected: "string", actual: typeof prefix });
  }
  if (prefix === "") return prefix;
  const problem =
    prefix.startsWith("/") ? "absolute prefix"
    : prefix.includes("\\") ? "backslash in prefix"
    : prefix.includes("\0") ? "NUL in prefix"
    : prefix.lastIndexOf("/") > 0 ? keyProblem(prefix.slice(0, prefix.lastIndexOf("/")))
    : undefined;
  if (problem !== undefined) {
    throw new UsageError("UNSAFE_NAME", `unsafe list prefix: ${problem}`, { field: "prefix", actual: prefix });
  }
  return prefix;
}

/**
 * Checks a {@link ByteRange} and turns it into `[start, end)` offsets within a value of `size`
 * bytes, clipping at the end. Negative, fractional or non-number fields give `UsageError`
 * `INVALID_ARGUMENT`.
 *
 * @example
 * ```ts
 * resolveRange({ offset: 4, length: 100 }, 10);  // { start: 4, end: 10 }
 * resolveRange({ suffixLength: 3 }, 10);         // { start: 7, end: 10 }
 * ```
 */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  const window = { start: 0, end: 0 };
  resolveRangeInto(range, size, window);
  return window;
}

/**
 * {@link resolveRange} into `window` rather than a new object: for reads that resolve several
 * ranges of every chunk file of a pass, where each allocation costs (in a young process, fresh
 * pages of V8's heap). @internal
 *
 * @example
 * ```ts
 * const window = { start: 0, end: 0 };
 * resolveRangeInto({ offset: 4, length: 100 }, 10, window); // window is { start: 4, end: 10 }
 * ```
 */
export function resolveRangeInto(range: ByteRange, size: number, window: { start: number; end: number }): void {
  if (typeof range !== "object" || range === null) {
    throw new UsageError("INVALID_ARGUMENT", "a byte range must be an object", { field: "range", actual: range });
  }
  if ("suffixLength" in range) {
    const n = checkCount(range.suffixLength, "range.suffixLength");
    window.start = Math.max(0, size - n);
    window.end = size;
    return;
  }
  const offset = checkCount(range.offset, "range.offset");
  const length = checkCount(range.length, "range.length");
  const start = Math.min(offset, size);
  window.start = start;
  window.end = Math.min(size, start + Math.min(length, size));
}

function checkCount(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new UsageError("INVALID_ARGUMENT", "a byte count must be a non-negative safe integer", { field, expected: "integer >= 0", actual: value });
  }
  return value;
}

/**
 * Where a buffer that file reads land in should start in its memory: 2,032 bytes in, about half a
 * page from where a whole file's bytes sit in theirs (page-aligned in the page cache). On the
 * machine of 2026-11-29 the kernel's copy from the page cache slowed down the closer the
 * destination sat past the source's offset in its page (measured on AMD EPYC, 62 MB of chunk files
 * read into WebAssembly memory at these offsets past a page boundary: 8–16 bytes 11.4–12.2 ms, 48
 * bytes 7.6–7.9, 128 bytes 7.2–7.4, 256 bytes 6.9–7.2, 2,048 bytes 6.7–6.9). On the machine used
 * since 2026-12-01 (also AMD EPYC) it is a window with a sharp edge instead: 1–31 bytes past the
 * source took 2.8–3.6 times as long as 0 or 32–4,095 bytes (tools/bench/README.md, 2026-12-02
 * morning session; 2,032 itself was not timed there, 96 and 4,064 were). A large allocation's
 * bytes start 16 bytes past a page boundary (glibc's mmap chunks), so a buffer this far in starts
 * half a page in; a WebAssembly memory's slots start 2,032 bytes past one. A range read from a
 * file offset that is not page-aligned lands elsewhere relative to its source, as it did before.
 * Used by `FileSystemStore` and `@fmt/store`'s input buffers. @internal
 *
 * @example
 * ```ts
 * const buffer = new Uint8Array(new ArrayBuffer(size + READ_BUFFER_OFFSET), READ_BUFFER_OFFSET, size);
 * ```
 */
export const READ_BUFFER_OFFSET = 2032;

/**
 * Reads a byte range from any store: through `getRange` when the store has it, otherwise
 * through `get` and a copy of the slice. `undefined` when the key is missing.
 *
 * @example
 * ```ts
 * const head = await readRange(store, "data/__0.blp", { offset: 0, length: 32 });
 * ```
 */
export async function readRange(store: ReadableStore, key: string, range: ByteRange): Promise<Uint8Array | undefined> {
  if (store.getRange !== undefined) return store.getRange(key, range);
  const whole = await store.get(key);
  if (whole === undefined) return undefined;
  const { start, end } = resolveRange(range, whole.length);
  return whole.slice(start, end);
}

/**
 * Checks the options of {@link WritableStore.put} and returns whether the put must be durable
 * at once (`UsageError` `INVALID_ARGUMENT` for anything but `undefined` or `{ durable?: boolean, unreferenced?: boolean }`).
 *
 * @example
 * ```ts
 * checkPutOptions(undefined);           // true
 * checkPutOptions({ durable: false });  // false
 * checkPutOptions({ unreferenced: true }); // true
 * ```
 */
export function checkPutOptions(options: PutOptions | undefined): boolean {
  if (options === undefined) return true;
  if (typeof options !== "object" || options === null) {
    throw new UsageError("INVALID_ARGUMENT", "put options must be an object", { field: "options", expected: "{ durable?: boolean }", actual: options });
  }
  const { durable, unreferenced } = options;
  if (durable !== undefined && typeof durable !== "boolean") {
    throw new UsageError("INVALID_ARGUMENT", "put option durable must be a boolean", { field: "options.durable", expected: "boolean", actual: durable });
  }
  if (unreferenced !== undefined && typeof unreferenced !== "boolean") {
    throw new UsageError("INVALID_ARGUMENT", "put option unreferenced must be a boolean", { field: "options.unreferenced", expected: "boolean", actual: unreferenced });
  }
  return durable !== false;
}

export { MemoryStore } from "./memory-store.js";
export { CachingStore, RangeCoalescingStore } from "./wrappers.js";
export type { CachingStoreOptions, RangeCoalescingStoreOptions } from "./wrappers.js";
