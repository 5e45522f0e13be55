import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import { ElementEncoder, isBlock, isRawRows, quantizeBytes } from "./carray-encode.js";
import type { ArrayInput, ElementInput, RawRows, ValuesBlock } from "./carray-encode.js";
import { typedBlockBytes } from "./typed-input.js";

/** Elements gathered before encoding when the input comes one element at a time. */
const ELEMENT_BATCH = 65536;

function invalid(message: string, field: string, actual?: unknown): never {
  throw new UsageError("INVALID_ARGUMENT", message, { field, actual });
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as Iterable<unknown>)[Symbol.iterator] === "function";
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
}

/**
 * The number of elements of `input` when it can be known without consuming it (a block or an
 * array), else `undefined` (iterables).
 */
export function knownElementCount(input: ArrayInput, dtype: DType, atomSize: number): number | undefined {
  if (isRawRows(input)) return (input.bytes.length / atomSize) * (atomSize / dtype.itemsize);
  if (isBlock(input, dtype)) return (input as ValuesBlock).length;
  if (typeof input === "object" && input !== null && "length" in input && !isIterable(input) && !isAsyncIterable(input)) return (input as ArrayLike<unknown>).length;
  return undefined;
}

/**
 * Turns any {@link ArrayInput} into row-aligned byte blocks in the dtype's layout. Elements that
 * arrive one at a time are batched; the total element count must be a multiple of
 * `itemsPerRow`. When `input` itself is one block that needs no conversion (a typed array of the
 * dtype's own type, `{ bytes }`), the result is a view of the caller's memory, read until the
 * write returns; blocks from an iterable are always copied, since an iterable may refill one
 * buffer for every item.
 */
export async function* rowBlocks(input: ArrayInput, dtype: DType, itemsPerRow: number, quantize: number): AsyncGenerator<Uint8Array, void, undefined> {
  const encoder = new ElementEncoder(dtype, quantize);
  const size = dtype.itemsize;
  const atom = size * itemsPerRow;
  let pending: ElementInput[] = [];
  // Bytes of a row split across input blocks.
  let carry: Uint8Array = new Uint8Array(0);

  function* emit(bytes: Uint8Array): Generator<Uint8Array> {
    let data = bytes;
    if (carry.length > 0) {
      const joined = new Uint8Array(carry.length + data.length);
      joined.set(carry);
      joined.set(data, carry.length);
      data = joined;
      carry = new Uint8Array(0);
    }
    const whole = data.length - (data.length % atom);
    if (whole < data.length) carry = data.slice(whole);
    if (whole > 0) yield data.subarray(0, whole);
  }

  function encodeBlock(block: ValuesBlock | RawRows): Uint8Array {
    if (isRawRows(block)) {
      if (block.bytes.length % size !== 0) invalid("raw bytes are not a whole number of elements", "bytes", block.bytes.length);
      if (quantize <= 0 || dtype.kind !== "f") return block.bytes;
      const copy = block.bytes.slice();
      quantizeBytes(copy, dtype, quantize);
      return copy;
    }
    const direct = ArrayBuffer.isView(block) ? typedBlockBytes(block, dtype, quantize) : undefined;
    if (direct !== undefined) return direct;
    const out = new Uint8Array(block.length * size);
    encoder.encode(block, out, 0);
    return out;
  }

  function* flushPending(): Generator<Uint8Array> {
    if (pending.length === 0) return;
    const block = pending;
    pending = [];
    yield* emit(encodeBlock(block));
  }

  function* take(item: unknown): Generator<Uint8Array> {
    if (isBlock(item, dtype)) {
      yield* flushPending();
      const block = item as ValuesBlock | RawRows;
      const bytes = encodeBlock(block);
      // An iterable may refill one buffer for every item: keep a copy, not a view of it.
      const source = isRawRows(block) ? block.bytes.buffer : ArrayBuffer.isView(block) ? block.buffer : undefined;
      yield* emit(bytes.buffer === source ? bytes.slice() : bytes);
      return;
    }
    pending.push(item as ElementInput);
    if (pending.length >= ELEMENT_BATCH) yield* flushPending();
  }

  if (isBlock(input, dtype)) {
    yield* emit(encodeBlock(input as ValuesBlock | RawRows));
  } else if (isAsyncIterable(input)) {
    for await (const item of input) yield* take(item);
  } else if (isIterable(input)) {
    for (const item of input) yield* take(item);
  } else if (typeof input === "object" && input !== null && "length" in input) {
    yield* emit(encodeBlock(Array.from(input)));
  } else {
    invalid("data must be a typed array, an array, { bytes } or an (async) iterable", "data", typeof input);
  }
  yield* flushPending();
  if (carry.length > 0) {
    invalid(`the number of elements is not a multiple of the row size (${itemsPerRow} elements)`, "data", carry.length / size);
  }
}

/** Collects all blocks of an input (used when its length must be known first). */
export async function collectRows(input: ArrayInput, dtype: DType, itemsPerRow: number, quantize: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const part of rowBlocks(input, dtype, itemsPerRow, quantize)) {
    parts.push(part);
    total += part.length;
  }
  // The usual case (one typed array or array): the encoded block already is the result.
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
