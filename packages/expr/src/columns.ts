// Columns in compiled expressions: numexpr's kind of a column dtype (or why the column is
// refused), and a block's column data — stored bytes or variable-length elements — checked and
// decoded into evaluation vectors. Separate from the compiler, which only wires these in.
import { UsageError } from "@fmt/errors";
import type { DType } from "@fmt/meta";
import type { EvalContext, StaticType, Vec } from "./compile-types.js";
import { loadLong } from "./kernels.js";
import type { NumArray } from "./kernels.js";
import { decodeValues } from "./values.js";

/** The elements of a variable-length column for one block. */
export function loadList(name: string, ctx: EvalContext): Vec {
  const list = ctx.input[name];
  if (!Array.isArray(list) || list.length !== ctx.n) {
    throw new UsageError("INVALID_ARGUMENT", `column "${name}" needs one element per row of the block`, { field: `columns.${name}`, expected: `${ctx.n} elements`, actual: Array.isArray(list) ? list.length : typeof list });
  }
  return { k: "list", v: list as readonly (string | Uint8Array)[] };
}

/** Column data of one block, decoded as the evaluator wants it. */
export function loadColumn(name: string, dtype: DType, ctx: EvalContext): Vec {
  const cached = ctx.cache.get(name);
  if (cached !== undefined) return cached;
  const bytes = ctx.input[name];
  if (!(bytes instanceof Uint8Array)) {
    throw new UsageError("INVALID_ARGUMENT", `no data for column "${name}"`, { field: `columns.${name}`, expected: "stored bytes (Uint8Array)", actual: typeof bytes });
  }
  if (bytes.length !== ctx.n * dtype.itemsize) {
    throw new UsageError("INVALID_ARGUMENT", `column "${name}" has the wrong number of bytes for the block`, { field: `columns.${name}`, expected: ctx.n * dtype.itemsize, actual: bytes.length });
  }
  let vec: Vec;
  switch (dtype.kind) {
    case "b": {
      let clean = true;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i]! > 1) {
          clean = false;
          break;
        }
      }
      if (clean) vec = { k: "bool", v: bytes };
      else {
        const out = new Uint8Array(bytes.length);
        for (let i = 0; i < bytes.length; i++) out[i] = bytes[i] === 0 ? 0 : 1;
        vec = { k: "bool", v: out };
      }
      break;
    }
    case "S":
      vec = { k: "sbytes", v: bytes, w: dtype.itemsize };
      break;
    case "U": {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const out = new Uint32Array(bytes.length / 4);
      const little = dtype.byteOrder !== ">";
      for (let i = 0; i < out.length; i++) out[i] = view.getUint32(i * 4, little);
      vec = { k: "sstr", v: out, w: dtype.itemsize / 4 };
      break;
    }
    default: {
      const values = decodeValues(bytes, dtype);
      if (values instanceof BigInt64Array) vec = { k: "long", v: loadLong(values) };
      else if (values instanceof Uint32Array) vec = { k: "long", v: { f: new Float64Array(values), b: undefined } };
      else if (values instanceof Float32Array) vec = { k: "float", v: values };
      else if (values instanceof Float64Array) vec = { k: "double", v: values };
      else vec = { k: "int", v: values as NumArray };
      break;
    }
  }
  ctx.cache.set(name, vec);
  return vec;
}

/** numexpr's kind of a column dtype (spec/expressions.md §3), or why the column is refused. */
export function columnType(dtype: DType): StaticType | string {
  switch (dtype.kind) {
    case "b":
      return { t: "num", kind: "bool" };
    case "i":
      return { t: "num", kind: dtype.itemsize === 8 ? "long" : "int" };
    case "u":
      if (dtype.itemsize === 8) return "numexpr cannot cast uint64 to int64 safely";
      return { t: "num", kind: dtype.itemsize === 4 ? "long" : "int" };
    case "f":
      if (dtype.itemsize > 8) return "numexpr cannot cast it to float64 safely";
      return { t: "num", kind: dtype.itemsize === 8 ? "double" : "float" };
    case "M":
    case "m":
      return { t: "num", kind: "long" }; // an extension: numexpr has no datetimes
    case "S":
      return { t: "bytes" };
    case "U":
      return { t: "str" }; // an extension: numexpr has no unicode
    default:
      return "expressions do not support it";
  }
}
