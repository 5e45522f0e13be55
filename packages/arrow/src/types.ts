/**
 * The numpy dtype → Arrow type mapping of the export direction (ctable/carray → Arrow), and the
 * conversion of one block of stored bytes into Arrow `Data`.
 *
 * @module
 */
import {
  Binary,
  Bool,
  DateDay,
  DurationMicrosecond,
  DurationMillisecond,
  DurationNanosecond,
  DurationSecond,
  Field,
  FixedSizeBinary,
  FixedSizeList,
  Float16,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
} from "apache-arrow";
import type { Data, DataType } from "apache-arrow";
import { FormatError, UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import { toLittleEndian } from "@fmt/store";

/**
 * How fixed-size byte strings (`S<n>`) become Arrow: `"binary"` (default) gives `Binary` values
 * with the trailing NUL bytes removed, as numpy's `bytes_` shows them; `"fixed"` gives
 * `FixedSizeBinary(n)` holding the stored bytes as they are (zero-copy, NULs kept).
 *
 * @example
 * ```ts
 * const how: BytesAs = "fixed";
 * ```
 */
export type BytesAs = "binary" | "fixed";

/**
 * NaT of numpy's datetime64/timedelta64: the smallest int64. It becomes an Arrow null on export;
 * an Arrow null in a timestamp or date column becomes NaT on import.
 *
 * @example
 * ```ts
 * const isNat = (v: bigint): boolean => v === NAT;
 * ```
 */
export const NAT = -(2n ** 63n);

/**
 * How the stored elements of a fixed dtype become Arrow data: the Arrow type, and the builder of
 * one block's data ({@link leafPlan}, {@link columnPlan}).
 *
 * @example
 * ```ts
 * const plan: LeafPlan = leafPlan(parseDtype("<i4"));
 * const data = plan.build(new Uint8Array(8), 2); // Int32 data of two zeros
 * ```
 */
export interface LeafPlan {
  /** The Arrow type of one element. */
  type: DataType;
  /** Builds the Arrow data of `count` elements from their stored bytes (the dtype's byte order). */
  build(bytes: Uint8Array, count: number): Data;
}

const LITTLE_ENDIAN_PLATFORM = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function unsupported(dtype: DType, why: string, path?: string, field?: string): never {
  throw new FormatError("UNSUPPORTED_DTYPE", `${dtype.str} has no Arrow equivalent: ${why}`, { path, field, expected: "bool, int, uint, float, datetime64 (Y…ns), timedelta64 (s…ns), S, U", actual: dtype.str });
}

/**
 * A typed array of `Ctor` over `bytes` (little-endian already) without copying when `bytes`
 * starts at a multiple of the element size; otherwise (unaligned) over a copy.
 */
function view<T>(Ctor: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number }, bytes: Uint8Array): T {
  const size = Ctor.BYTES_PER_ELEMENT;
  const aligned = bytes.byteOffset % size === 0 ? bytes : bytes.slice();
  return new Ctor(aligned.buffer, aligned.byteOffset, aligned.byteLength / size);
}

/** Stored bytes in little-endian order: `bytes` itself unless the dtype is big-endian (then a swapped copy). */
function littleEndian(bytes: Uint8Array, dtype: DType): Uint8Array {
  if (!LITTLE_ENDIAN_PLATFORM) throw new UsageError("INVALID_ARGUMENT", "@fmt/arrow needs a little-endian platform", { field: "platform" });
  return toLittleEndian(bytes, dtype);
}

/** Validity bitmap of a 64-bit datetime/timedelta column (NaT → null), or undefined when no value is NaT. */
function natBitmap(values: BigInt64Array): { nullBitmap: Uint8Array; nullCount: number } | undefined {
  let first = -1;
  for (let i = 0; i < values.length; i++) {
    if (values[i] === NAT) {
      first = i;
      break;
    }
  }
  if (first < 0) return undefined;
  const nullBitmap = new Uint8Array(Math.ceil(values.length / 8)).fill(0xff);
  let nullCount = 0;
  for (let i = first; i < values.length; i++) {
    if (values[i] === NAT) {
      nullBitmap[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    }
  }
  return { nullBitmap, nullCount };
}

/**
 * Packs `count` bytes of 0/1 (numpy's `|b1`) into an Arrow bitmap (least significant bit first):
 * the one copy a bool column always needs.
 *
 * @example
 * ```ts
 * packBits(new Uint8Array([1, 0, 1]), 3); // Uint8Array [0b101]
 * ```
 */
export function packBits(bytes: Uint8Array, count: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(count / 8));
  for (let i = 0; i < count; i++) if (bytes[i] !== 0) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

const utf8Encoder = new TextEncoder();

/** Appends the UTF-8 bytes of code point `cp` to `out` at `at`; returns the new position. */
function putUtf8(out: Uint8Array, at: number, cp: number): number {
  if (cp < 0x80) out[at++] = cp;
  else if (cp < 0x800) {
    out[at++] = 0xc0 | (cp >> 6);
    out[at++] = 0x80 | (cp & 0x3f);
  } else if (cp < 0x10000) {
    out[at++] = 0xe0 | (cp >> 12);
    out[at++] = 0x80 | ((cp >> 6) & 0x3f);
    out[at++] = 0x80 | (cp & 0x3f);
  } else {
    out[at++] = 0xf0 | (cp >> 18);
    out[at++] = 0x80 | ((cp >> 12) & 0x3f);
    out[at++] = 0x80 | ((cp >> 6) & 0x3f);
    out[at++] = 0x80 | (cp & 0x3f);
  }
  return at;
}

function checkOffset(total: number, field?: string): void {
  if (total > 0x7fffffff) throw new UsageError("SIZE_LIMIT", "one block's strings take more than 2 GiB; use a smaller blockLen", { field, expected: "< 2^31 bytes per block", actual: total });
}

/** `U<n>` elements (UCS-4 in the dtype's byte order) → Utf8 data, trailing NULs stripped (as numpy's `str_`). */
function unicodeData(bytes: Uint8Array, dtype: DType, count: number): Data {
  const chars = dtype.itemsize / 4;
  const view32 = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = dtype.byteOrder !== ">";
  const valueOffsets = new Int32Array(count + 1);
  // At most 4 UTF-8 bytes per code point; trimmed at the end.
  let out = new Uint8Array(Math.min(bytes.length, 4 * count * chars));
  let at = 0;
  for (let i = 0; i < count; i++) {
    let end = chars;
    const base = i * dtype.itemsize;
    while (end > 0 && view32.getUint32(base + 4 * (end - 1), little) === 0) end--;
    if (at + 4 * end > out.length) {
      const grown = new Uint8Array(Math.max(out.length * 2, at + 4 * end));
      grown.set(out.subarray(0, at));
      out = grown;
    }
    for (let k = 0; k < end; k++) {
      let cp = view32.getUint32(base + 4 * k, little);
      // Not a Unicode scalar value (beyond U+10FFFF, or a lone surrogate): U+FFFD, as decodeValues does.
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
      at = putUtf8(out, at, cp);
    }
    checkOffset(at);
    valueOffsets[i + 1] = at;
  }
  return makeData({ type: new Utf8(), length: count, nullCount: 0, valueOffsets, data: out.subarray(0, at) });
}

/** `S<n>` elements → Binary data with trailing NULs stripped. */
function bytesData(bytes: Uint8Array, size: number, count: number): Data {
  const valueOffsets = new Int32Array(count + 1);
  const out = new Uint8Array(bytes.length);
  let at = 0;
  for (let i = 0; i < count; i++) {
    let end = size;
    const base = i * size;
    while (end > 0 && bytes[base + end - 1] === 0) end--;
    out.set(bytes.subarray(base, base + end), at);
    at += end;
    valueOffsets[i + 1] = at;
  }
  return makeData({ type: new Binary(), length: count, nullCount: 0, valueOffsets, data: out.subarray(0, at) });
}

/** Days from 1970-01-01 to the first day of `year`-`month` (proleptic Gregorian, month 1-12). */
function daysFromCivil(year: bigint, month: bigint): bigint {
  const y = month <= 2n ? year - 1n : year;
  const era = (y >= 0n ? y : y - 399n) / 400n;
  const yoe = y - era * 400n;
  const mp = (month + 9n) % 12n;
  const doy = (153n * mp + 2n) / 5n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

/** A datetime64 unit Arrow has no timestamp unit for, converted to days (Date32) or seconds. */
function convertedDates(bytes: Uint8Array, dtype: DType, count: number, unit: string, path?: string, field?: string): Data {
  const src = view(BigInt64Array, littleEndian(bytes, dtype));
  if (unit === "h" || unit === "m") {
    const scale = unit === "h" ? 3600n : 60n;
    const out = new BigInt64Array(count);
    for (let i = 0; i < count; i++) {
      const v = src[i]!;
      if (v === NAT) out[i] = NAT;
      else {
        const s = v * scale;
        if (s !== BigInt.asIntN(64, s)) throw new UsageError("OUT_OF_RANGE", `a ${dtype.str} value does not fit a timestamp in seconds`, { path, field, actual: String(v) });
        out[i] = s;
      }
    }
    return makeData({ type: new TimestampSecond(), length: count, data: out, ...(natBitmap(out) ?? { nullCount: 0 }) });
  }
  const days = new Int32Array(count);
  const nulls = new Uint8Array(Math.ceil(count / 8)).fill(0xff);
  let nullCount = 0;
  for (let i = 0; i < count; i++) {
    const v = src[i]!;
    if (v === NAT) {
      nulls[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
      continue;
    }
    let d: bigint;
    if (unit === "D") d = v;
    else if (unit === "W") d = v * 7n;
    else if (unit === "M") d = daysFromCivil(1970n + floorDiv(v, 12n), v - floorDiv(v, 12n) * 12n + 1n);
    else d = daysFromCivil(1970n + v, 1n); // "Y"
    if (d < -(2n ** 31n) || d >= 2n ** 31n) throw new UsageError("OUT_OF_RANGE", `a ${dtype.str} value lies beyond the range of Arrow Date32`, { path, field, actual: String(v) });
    days[i] = Number(d);
  }
  return makeData({ type: new DateDay(), length: count, data: days, nullCount, ...(nullCount > 0 ? { nullBitmap: nulls } : {}) });
}

/**
 * The Arrow type and builder of one element of `dtype` (the leaf of a multidimensional column).
 *
 * | dtype | Arrow | copy? |
 * |---|---|---|
 * | `\|b1` | Bool | always (bit-packing) |
 * | `i1`…`i8`, `u1`…`u8` | Int8…Int64, Uint8…Uint64 | none when little-endian and aligned |
 * | `f2`, `f4`, `f8` | Float16, Float32, Float64 | none when little-endian and aligned |
 * | `M8[s\|ms\|us\|ns]` | Timestamp(unit), NaT → null | none for the values (a validity bitmap is added when there is a NaT) |
 * | `M8[m\|h]` | Timestamp(s) | always (scaled) |
 * | `M8[D\|W\|M\|Y]` | Date32 (days) | always (converted) |
 * | `m8[s\|ms\|us\|ns]` | Duration(unit), NaT → null | none when little-endian and aligned |
 * | `S<n>` | Binary, trailing NULs stripped (or FixedSizeBinary(n) with `bytesAs: "fixed"`, no copy) | always for Binary |
 * | `U<n>` | Utf8, trailing NULs stripped | always (UCS-4 → UTF-8) |
 *
 * Big-endian dtypes are always copied (byte-swapped). Complex, void, `ps`/`fs`/`as` and
 * multiplied units (`M8[10s]`) throw `FormatError` `UNSUPPORTED_DTYPE`.
 *
 * @example
 * ```ts
 * const plan = leafPlan(parseDtype("<f8"));
 * const data = plan.build(new Uint8Array(new Float64Array([1.5]).buffer), 1); // Float64 data over the same buffer
 * ```
 */
export function leafPlan(dtype: DType, options: { bytesAs?: BytesAs; path?: string; field?: string } = {}): LeafPlan {
  const { path, field } = options;
  const numeric = <T extends DataType>(type: T, Ctor: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): ArrayBufferView; BYTES_PER_ELEMENT: number }): LeafPlan => ({
    type,
    build: (bytes, count) => makeData({ type, length: count, nullCount: 0, data: view(Ctor, littleEndian(bytes, dtype)) } as never),
  });
  const size = dtype.itemsize;
  switch (dtype.kind) {
    case "b":
      return { type: new Bool(), build: (bytes, count) => makeData({ type: new Bool(), length: count, nullCount: 0, data: packBits(bytes, count) }) };
    case "i":
      if (size === 1) return numeric(new Int8(), Int8Array);
      if (size === 2) return numeric(new Int16(), Int16Array);
      if (size === 4) return numeric(new Int32(), Int32Array);
      return numeric(new Int64(), BigInt64Array);
    case "u":
      if (size === 1) return numeric(new Uint8(), Uint8Array);
      if (size === 2) return numeric(new Uint16(), Uint16Array);
      if (size === 4) return numeric(new Uint32(), Uint32Array);
      return numeric(new Uint64(), BigUint64Array);
    case "f":
      if (size === 2) return numeric(new Float16(), Uint16Array);
      if (size === 4) return numeric(new Float32(), Float32Array);
      return numeric(new Float64(), Float64Array);
    case "M":
    case "m": {
      const unit = dtype.unit;
      const exact = { s: 0, ms: 1, us: 2, ns: 3 } as const;
      if (unit !== undefined && unit in exact) {
        const which = exact[unit as keyof typeof exact];
        const type: DataType = dtype.kind === "M"
          ? [new TimestampSecond(), new TimestampMillisecond(), new TimestampMicrosecond(), new TimestampNanosecond()][which]!
          : [new DurationSecond(), new DurationMillisecond(), new DurationMicrosecond(), new DurationNanosecond()][which]!;
        return {
          type,
          build: (bytes, count) => {
            const values = view(BigInt64Array, littleEndian(bytes, dtype));
            return makeData({ type, length: count, data: values, ...(natBitmap(values) ?? { nullCount: 0 }) } as never);
          },
        };
      }
      if (dtype.kind === "M" && unit !== undefined && ["m", "h"].includes(unit)) {
        return { type: new TimestampSecond(), build: (bytes, count) => convertedDates(bytes, dtype, count, unit, path, field) };
      }
      if (dtype.kind === "M" && unit !== undefined && ["D", "W", "M", "Y"].includes(unit)) {
        return { type: new DateDay(), build: (bytes, count) => convertedDates(bytes, dtype, count, unit, path, field) };
      }
      return unsupported(dtype, unit === undefined ? "a generic datetime unit" : `Arrow has no ${dtype.kind === "M" ? "timestamp" : "duration"} unit for "${unit}"`, path, field);
    }
    case "S":
      if (options.bytesAs === "fixed") {
        const type = new FixedSizeBinary(size);
        return { type, build: (bytes, count) => makeData({ type, length: count, nullCount: 0, data: bytes }) };
      }
      return { type: new Binary(), build: (bytes, count) => bytesData(bytes, size, count) };
    case "U":
      return { type: new Utf8(), build: (bytes, count) => unicodeData(bytes, dtype, count) };
    default:
      return unsupported(dtype, dtype.kind === "c" ? "Arrow has no complex type" : "Arrow has no type for raw void records", path, field);
  }
}

/**
 * The plan of a whole fixed-size column: the leaf of {@link leafPlan}, wrapped in one
 * `FixedSizeList` per trailing dimension (`shape[1:]`), outermost first.
 *
 * @example
 * ```ts
 * const plan = columnPlan(parseDtype("<f4"), [10, 2, 3]); // FixedSizeList<2, FixedSizeList<3, Float32>>
 * ```
 */
export function columnPlan(dtype: DType, shape: readonly number[], options: { bytesAs?: BytesAs; path?: string; field?: string } = {}): LeafPlan {
  const leaf = leafPlan(dtype, options);
  const dims = shape.slice(1);
  if (dims.length === 0) return leaf;
  let type: DataType = leaf.type;
  const types: DataType[] = [type];
  for (let d = dims.length - 1; d >= 0; d--) {
    type = new FixedSizeList(dims[d]!, new Field("item", type, false));
    types.unshift(type);
  }
  return {
    type,
    build: (bytes, count) => {
      const items = dims.reduce((a, b) => a * b, 1);
      let data: Data = leaf.build(bytes, count * items);
      let length = count * items;
      for (let d = dims.length - 1; d >= 0; d--) {
        length /= dims[d]!;
        data = makeData({ type: types[d]! as FixedSizeList, length, nullCount: 0, child: data });
      }
      return data;
    },
  };
}

/**
 * Utf8 data of strings (a vlarray `utf8` column).
 *
 * @example
 * ```ts
 * stringsData(["a", "é"]).length; // 2
 * ```
 */
export function stringsData(values: readonly string[]): Data {
  const parts = values.map((s) => utf8Encoder.encode(s));
  return binaryLike(new Utf8(), parts);
}

/**
 * Binary (or Utf8) data of byte strings.
 *
 * @example
 * ```ts
 * binaryLike(new Binary(), [new Uint8Array([1]), new Uint8Array(0)]).length; // 2
 * ```
 */
export function binaryLike(type: Utf8 | Binary, parts: readonly Uint8Array[]): Data {
  const valueOffsets = new Int32Array(parts.length + 1);
  let total = 0;
  parts.forEach((p, i) => {
    total += p.length;
    checkOffset(total);
    valueOffsets[i + 1] = total;
  });
  const data = new Uint8Array(total);
  parts.forEach((p, i) => data.set(p, valueOffsets[i]));
  return makeData({ type, length: parts.length, nullCount: 0, valueOffsets, data } as never);
}
