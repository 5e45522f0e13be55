/**
 * The parts of `FileSystemStore.writeAtWithAdler32` that do not touch the write thread: the
 * checks of its arguments, and the way it writes when the thread does not take the bytes (the
 * sum computed on the calling thread, then two `writeAt`s).
 *
 * @module
 */
import { UsageError } from "@fmt/errors";
import { adler32 } from "@fmt/header";
import type { PutOptions, WritableStore } from "./index.js";

/** The most zero bytes `writeAtWithAdler32` puts after a sum: room far beyond any chunk's spare room. */
const MAX_ZEROS = 2 ** 31;

/**
 * Throws `UsageError` `INVALID_ARGUMENT` unless `xor` is an unsigned 32-bit integer and `zeros`
 * an integer from 0 to 2^31 (bytes and offset are `writeAt`'s to check).
 *
 * @example
 * ```ts
 * checkSummedWrite("data/__1__.bin", 7, 52428); // fine
 * checkSummedWrite("data/__1__.bin", -1, 0); // throws: field "xor"
 * ```
 */
export function checkSummedWrite(key: string, xor: number, zeros: number): void {
  if (!Number.isInteger(xor) || xor < 0 || xor > 0xffffffff) {
    throw new UsageError("INVALID_ARGUMENT", "the value XORed with the Adler-32 must be an unsigned 32-bit integer", { path: key, field: "xor", expected: "0..4294967295", actual: xor });
  }
  if (!Number.isSafeInteger(zeros) || zeros < 0 || zeros > MAX_ZEROS) {
    throw new UsageError("INVALID_ARGUMENT", "zeros must be an integer from 0 to 2^31", { path: key, field: "zeros", expected: `0..${MAX_ZEROS}`, actual: zeros });
  }
}

/**
 * `writeAtWithAdler32` on the calling thread through `store.writeAt`: the sum (Adler-32 of
 * `bytes` XOR `xor`) computed here, then `bytes` and the sum with its `zeros` as two writes.
 * With `atOnce` (the store's `writeAt` takes its bytes before it returns) both start at once, as
 * a caller that writes at the next offset at once expects; otherwise the first is done before the
 * second starts, so that a late `writeAt` never lands the sum before the bytes. Resolves to the
 * stored value.
 *
 * @example
 * ```ts
 * const stored = await writeSummedInTwo(store, "data/__1__.bin", 4160, chunk, 7, 64, store.positionalWritesAtOnce);
 * ```
 */
export async function writeSummedInTwo(store: Required<Pick<WritableStore, "writeAt">>, key: string, offset: number, bytes: Uint8Array, xor: number, zeros: number, atOnce: boolean, options?: PutOptions): Promise<number> {
  const stored = (adler32(bytes) ^ xor) >>> 0;
  const after = new Uint8Array(4 + zeros);
  new DataView(after.buffer).setUint32(0, stored, true);
  const written = store.writeAt(key, offset, bytes, options);
  if (atOnce) await Promise.all([written, store.writeAt(key, offset + bytes.length, after, options)]);
  else await written.then(() => store.writeAt(key, offset + bytes.length, after, options));
  return stored;
}
