// A FileSystemStore wrapper for the input-buffer tests: it records every getInto call (the
// buffer lent and the range asked) and passes it on.
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";
import type { FileSystemStore } from "@fmt/fs-adapters/node";

/**
 * `inner` behind a store whose getInto calls are recorded: `lent` (the buffers), `ranges`, `calls()`.
 *
 * @example
 * ```ts
 * const { store, lent } = recording(new FileSystemStore(path));
 * ```
 */
export function recording(inner: FileSystemStore): { store: ReadableStore; lent: Uint8Array[]; ranges: (ByteRange | undefined)[]; calls: () => number } {
  const lent: Uint8Array[] = [];
  const ranges: (ByteRange | undefined)[] = [];
  const store: ReadableStore = {
    get: (key) => inner.get(key),
    getRange: (key, range) => inner.getRange(key, range),
    list: (prefix) => inner.list(prefix),
    getInto: (key, buffer, range) => {
      lent.push(buffer);
      ranges.push(range);
      return inner.getInto(key, buffer, range);
    },
  };
  return { store, lent, ranges, calls: () => lent.length };
}
