/**
 * The elements of a vlarray (spec/v2.md §12) as JavaScript values: their types, how one element
 * becomes the bytes appended to `values/` and how those bytes become an element again, and the
 * checks of the offsets that cut `values/` into elements.
 *
 * @example
 * ```ts
 * const enc = new ElementBatch("utf8", parseDtype("|u1"));
 * enc.add("héllo");
 * enc.bytes(); // 68 C3 A9 6C 6C 6F
 * ```
 * @module
 */
import { FormatError, UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import { decodeValues } from "@fmt/expr";
import type { Values } from "@fmt/expr";
import { ElementEncoder, isRawRows } from "./carray-encode.js";
import type { RawRows, ValuesBlock } from "./carray-encode.js";

/**
 * What the elements of a vlarray are: UTF-8 strings, byte strings, or ragged arrays of the
 * `values/` dtype.
 *
 * @example
 * ```ts
 * const vtype: VLType = "utf8";
 * ```
 */
export type VLType = "utf8" | "bytes" | "ragged";

/**
 * One element as read: a `string` (`utf8`), a `Uint8Array` (`bytes`), or the element's
 * {@link Values} (`ragged`: a typed array for numeric dtypes, like `CArray.read`).
 *
 * @example
 * ```ts
 * const word = (await names.get(0)) as string;
 * ```
 */
export type VLElement = string | Uint8Array | Values;

/**
 * Elements as read by `VLArray.read`/`take`: `string[]` (`utf8`), `Uint8Array[]` (`bytes`),
 * `Values[]` (`ragged`).
 *
 * @example
 * ```ts
 * const words = (await names.read(0, 10)) as string[];
 * ```
 */
export type VLValues = string[] | Uint8Array[] | Values[];

/**
 * One element as written: a string (`utf8`), a `Uint8Array` (`bytes`; for `utf8` it must hold
 * valid UTF-8), or a typed array / array of numbers, bigints, … (`ragged`, any input a carray
 * block accepts, or `{ bytes }` already in the `values/` dtype's layout and byte order).
 *
 * @example
 * ```ts
 * const e: VLElementInput = new Int32Array([1, 2, 3]);
 * ```
 */
export type VLElementInput = string | Uint8Array | ValuesBlock | RawRows;

/**
 * What `VLArray.append` and `createVLArray` take: elements one by one, from an array or any
 * sync or async iterable (never a lone string or typed array: those would be read as elements).
 *
 * @example
 * ```ts
 * const input: VLInput = ["ab", "", "héllo"];
 * ```
 */
export type VLInput = Iterable<VLElementInput> | AsyncIterable<VLElementInput>;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function invalid(message: string, field: string, actual?: unknown, expected?: string): never {
  throw new UsageError("INVALID_ARGUMENT", message, { field, actual, expected });
}

/**
 * Checks a vtype given by a caller.
 *
 * @example
 * ```ts
 * checkVtype("utf8", "vtype"); // "utf8"
 * ```
 */
export function checkVtype(vtype: unknown, field: string): VLType {
  if (vtype !== "utf8" && vtype !== "bytes" && vtype !== "ragged") invalid('vtype must be "utf8", "bytes" or "ragged"', field, vtype, '"utf8" | "bytes" | "ragged"');
  return vtype;
}

/**
 * The stored bytes of one element (in the `values/` dtype's layout and byte order).
 *
 * @example
 * ```ts
 * encodeElement("utf8", u1, "é", "elements[0]"); // Uint8Array [0xC3, 0xA9]
 * ```
 */
export function encodeElement(vtype: VLType, dtype: DType, value: unknown, field: string): Uint8Array {
  if (vtype === "utf8") {
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) invalid("a utf8 element must not hold a lone surrogate (it has no UTF-8 form)", field, value);
      return utf8Encoder.encode(value);
    }
    if (value instanceof Uint8Array) {
      try {
        utf8Decoder.decode(value);
      } catch {
        invalid("a utf8 element given as bytes must be valid UTF-8", field);
      }
      return value;
    }
    return invalid("a utf8 element is a string", field, typeof value, "string");
  }
  if (vtype === "bytes") {
    if (value instanceof Uint8Array) return value;
    return invalid("a bytes element is a Uint8Array", field, typeof value, "Uint8Array");
  }
  if (isRawRows(value)) {
    if (value.bytes.length % dtype.itemsize !== 0) invalid(`a ragged element's bytes must be whole ${dtype.str} values`, field, value.bytes.length, `a multiple of ${dtype.itemsize}`);
    return value.bytes;
  }
  const block = value as ValuesBlock;
  if (typeof value !== "object" || value === null || !(Array.isArray(value) || ArrayBuffer.isView(value)) || value instanceof DataView) {
    invalid("a ragged element is a typed array or an array of values", field, typeof value, "typed array or array");
  }
  const out = new Uint8Array(block.length * dtype.itemsize);
  try {
    new ElementEncoder(dtype, 0).encode(block, out, 0);
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(error.code, `${field}: ${error.reason}`, { field, expected: error.expected, actual: error.actual });
    throw error;
  }
  return out;
}

/**
 * An element from its stored bytes. A `utf8` element that is not valid UTF-8 is `FormatError`
 * `INCONSISTENT` (field `values`, path the `values/` carray).
 *
 * @example
 * ```ts
 * decodeElement("utf8", u1, new Uint8Array([0x61]), "names/values"); // "a"
 * ```
 */
export function decodeElement(vtype: VLType, dtype: DType, bytes: Uint8Array, valuesPath: string, k: number): VLElement {
  if (vtype === "utf8") {
    try {
      return utf8Decoder.decode(bytes);
    } catch (cause) {
      throw new FormatError("INCONSISTENT", `element ${k} is not valid UTF-8`, { path: valuesPath, field: "values", actual: `element ${k}`, cause });
    }
  }
  if (vtype === "bytes") return bytes.slice();
  return decodeValues(bytes, dtype);
}

/**
 * The elements held by `bytes` (the `values/` rows from `offsets[0]`), cut at `offsets`
 * (absolute, in rows; `offsets[0]` is where `bytes` starts).
 *
 * @example
 * ```ts
 * splitElements("utf8", u1, bytes, [0, 2, 2, 8], "t/values", 0); // ["ab", "", "héllo"]
 * ```
 */
export function splitElements(vtype: VLType, dtype: DType, bytes: Uint8Array, offsets: readonly number[], valuesPath: string, firstIndex: number): VLValues {
  const out: VLElement[] = [];
  const base = offsets[0]!;
  const size = dtype.itemsize;
  for (let i = 0; i + 1 < offsets.length; i++) {
    out.push(decodeElement(vtype, dtype, bytes.subarray((offsets[i]! - base) * size, (offsets[i + 1]! - base) * size), valuesPath, firstIndex + i));
  }
  return out as VLValues;
}

/**
 * Checks the offsets of elements `first … first + offsets.length − 2` (spec/v2.md §12):
 * `offsets[0] = 0`, non-decreasing, at most `valuesLength`; `INCONSISTENT` with field
 * `offsets[k]` otherwise. Returns them as numbers.
 *
 * @example
 * ```ts
 * checkOffsets(new BigInt64Array([0n, 2n, 2n, 8n]), 0, 8, "t/offsets"); // [0, 2, 2, 8]
 * ```
 */
export function checkOffsets(raw: ArrayLike<bigint>, first: number, valuesLength: number, offsetsPath: string): number[] {
  const out: number[] = new Array<number>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const k = first + i;
    const v = raw[i]!;
    const bad = (reason: string, expected: string): never => {
      throw new FormatError("INCONSISTENT", `offsets[${k}] = ${v}: ${reason}`, { path: offsetsPath, field: `offsets[${k}]`, expected, actual: String(v) });
    };
    if (k === 0 && v !== 0n) bad("the first offset must be 0", "0");
    if (v < 0n || v > BigInt(valuesLength)) bad(`outside the ${valuesLength} rows of values`, `0 <= offset <= ${valuesLength}`);
    const n = Number(v);
    if (i > 0 && n < out[i - 1]!) bad("offsets must not decrease", `>= ${out[i - 1]}`);
    out[i] = n;
  }
  return out;
}

/**
 * Elements encoded for an append and not yet written (see {@link VLArray.encode}).
 *
 * @example
 * ```ts
 * const encoded: EncodedElements = await encodeElements("utf8", u1, ["a", "bc"], "names"); // count 2, 3 bytes
 * await names.appendEncoded(encoded);
 * ```
 */
export interface EncodedElements {
  /** Number of elements. */
  readonly count: number;
  /** The concatenated stored bytes of the elements, in the `values/` dtype's layout. */
  readonly bytes: Uint8Array;
  /** Rows of `values/` per element. */
  readonly rows: readonly number[];
}

/**
 * Encodes elements for an append without writing anything: every element is checked
 * (`UsageError` `INVALID_ARGUMENT`/`OUT_OF_RANGE` naming `elements[i]`).
 *
 * @example
 * ```ts
 * const encoded = await encodeElements("utf8", parseDtype("|u1"), ["x", "yz"], "words"); // 3 bytes, rows [1, 2]
 * ```
 */
export async function encodeElements(vtype: VLType, dtype: DType, elements: VLInput, path: string): Promise<EncodedElements> {
  if (typeof elements === "string" || ArrayBuffer.isView(elements) || typeof elements !== "object" || elements === null) {
    throw new UsageError("INVALID_ARGUMENT", "elements must be an array or an iterable of elements", { path, field: "elements", expected: "VLElementInput[]", actual: typeof elements });
  }
  const parts: Uint8Array[] = [];
  const rows: number[] = [];
  let total = 0;
  const add = (element: unknown): void => {
    const bytes = encodeElement(vtype, dtype, element, `elements[${rows.length}]`);
    parts.push(bytes);
    rows.push(bytes.length / dtype.itemsize);
    total += bytes.length;
  };
  if (Symbol.asyncIterator in elements) for await (const e of elements as AsyncIterable<VLElementInput>) add(e);
  else if (Symbol.iterator in elements) for (const e of elements as Iterable<VLElementInput>) add(e);
  else throw new UsageError("INVALID_ARGUMENT", "elements must be an array or an iterable of elements", { path, field: "elements", actual: typeof elements });
  if (parts.length === 1) return { count: 1, bytes: parts[0]!, rows };
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { count: rows.length, bytes, rows };
}
