// Shared by the Arrow tests: the numpy oracle (numpy_oracle.py through /usr/bin/python3), a
// small .npy reader, and Arrow values spelled the way the oracle spells numpy's.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Type } from "apache-arrow";
import type { Data, DataType, FixedSizeList, Table, Vector } from "apache-arrow";
import { halfToNumber } from "@fmt/store";

export const ORACLE = fileURLToPath(new URL("./numpy_oracle.py", import.meta.url));

/** Runs the oracle script with `args`; returns its stdout. */
export function oracle(...args: string[]): string {
  return execFileSync("/usr/bin/python3", [ORACLE, ...args], { encoding: "utf8", maxBuffer: 256 << 20 });
}

/** The dtype, shape and raw data bytes of a C-order .npy file. */
export function readNpy(path: string): { descr: string; shape: number[]; bytes: Uint8Array } {
  const file = readFileSync(path);
  const major = file[6]!;
  const headerLen = major === 1 ? file.readUInt16LE(8) : file.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = file.subarray(start, start + headerLen).toString("latin1");
  const descr = /'descr':\s*'([^']+)'/.exec(header)![1]!;
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)![1]!.split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
  const data = file.subarray(start + headerLen);
  return { descr, shape, bytes: new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function float(x: number): unknown {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (Object.is(x, -0)) return "-0";
  return x;
}

/** Element `i` of one Arrow data chunk, spelled like numpy_oracle.py's `cell`. */
export function cellOf(data: Data, i: number): unknown {
  const type: DataType = data.type;
  if (data.nullCount > 0 && !data.getValid(i)) return null;
  switch (type.typeId) {
    case Type.Bool: {
      const bit = data.offset + i;
      return (((data.values as Uint8Array)[bit >> 3]! >> (bit & 7)) & 1) === 1;
    }
    case Type.Int:
      return String((data.values as unknown as ArrayLike<number | bigint>)[i]!);
    case Type.Float:
      if ((type as unknown as { precision: number }).precision === 0) return float(halfToNumber((data.values as Uint16Array)[i]!));
      return float((data.values as Float64Array)[i]!);
    case Type.Timestamp:
    case Type.Date:
    case Type.Duration:
      return String((data.values as unknown as ArrayLike<number | bigint>)[i]!);
    case Type.Binary: {
      const o = data.valueOffsets as Int32Array;
      return hex((data.values as Uint8Array).subarray(o[i], o[i + 1]));
    }
    case Type.FixedSizeBinary: {
      const w = (type as unknown as { byteWidth: number }).byteWidth;
      return hex((data.values as Uint8Array).subarray(i * w, (i + 1) * w));
    }
    case Type.Utf8: {
      const o = data.valueOffsets as Int32Array;
      return new TextDecoder().decode((data.values as Uint8Array).subarray(o[i], o[i + 1]));
    }
    case Type.FixedSizeList: {
      const k = (type as FixedSizeList).listSize;
      return Array.from({ length: k }, (_, j) => cellOf(data.children[0]!, i * k + j));
    }
    case Type.List: {
      const o = data.valueOffsets as Int32Array;
      return Array.from({ length: o[i + 1]! - o[i]! }, (_, j) => cellOf(data.children[0]!, o[i]! + j));
    }
    default:
      throw new Error(`no spelling for Arrow type id ${type.typeId}`);
  }
}

/** Every value of a column (all its chunks). */
export function columnCells(vector: Vector): unknown[] {
  const out: unknown[] = [];
  for (const data of vector.data as readonly Data[]) for (let i = 0; i < data.length; i++) out.push(cellOf(data, i));
  return out;
}

/** Every value of every column of a table, by name. */
export function tableCells(table: Table): Record<string, unknown[]> {
  return Object.fromEntries(table.schema.fields.map((f, i) => [f.name, columnCells(table.getChildAt(i)!)]));
}

