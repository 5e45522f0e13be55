import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "@fmt/fs-adapters";
import type { CArray, TableColumn } from "@fmt/store";

export const CORPUS = fileURLToPath(new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url));

export interface ColumnCase {
  name: string;
  expected_file: string;
  sha256: string;
  bytes: number;
  attrs: unknown;
  dtype: string;
  shape: number[];
  len: number;
  chunklen: number;
  nchunks_full: number;
  leftover_rows: number;
  cparams: { clevel: number; shuffle: number; cname: string; quantize: number };
  dflt: unknown;
  expectedlen: number;
  data_files: string[];
}

export interface CarrayCase extends Omit<ColumnCase, "expected_file" | "sha256" | "bytes" | "name"> {
  name: string;
  kind: "carray";
  rootdir: string;
  expected: { "values.bin": { sha256: string; bytes: number } };
}

export interface CtableCase {
  name: string;
  kind: "ctable";
  rootdir: string;
  len: number;
  names: string[];
  attrs: unknown;
  columns: ColumnCase[];
}

export type Case = CarrayCase | CtableCase;

export const manifest = JSON.parse(readFileSync(join(CORPUS, "manifest.json"), "utf8")) as { cases: Case[] };

export function datasetDir(c: Case): string {
  return join(CORPUS, c.name, c.rootdir);
}

/** Reads an expected file and checks it against the manifest's hash, so a damaged fixture cannot pass. */
export function expectedBytes(c: Case, file: string, sha256: string): Uint8Array {
  const bytes = new Uint8Array(readFileSync(join(CORPUS, c.name, "expected", file)));
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== sha256) throw new Error(`fixture ${c.name}/expected/${file} does not match its manifest hash`);
  return bytes;
}

/** All files under `dir` as [relative "/"-key, bytes]. */
export function filesUnder(dir: string): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push([relative(dir, full).split(sep).join("/"), new Uint8Array(readFileSync(full))]);
    }
  };
  walk(dir);
  return out;
}

export function memoryCopy(dir: string, prefix = ""): MemoryStore {
  return new MemoryStore(filesUnder(dir).map(([k, v]) => [prefix === "" ? k : `${prefix}/${k}`, v] as const));
}

/** Python JSON values as plain JSON (PyFloat → number), for comparison with the manifest. */
export function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))) as unknown;
}

/** Independent decoding of little-endian expected bytes into JS values, for the dtypes of the corpus. */
export function expectedValues(bytes: Uint8Array, dtype: string): unknown[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = Number(/\d+/.exec(dtype)![0]);
  const n = bytes.length / size;
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const at = i * size;
    switch (dtype.replace(/\[.*\]$/, "")) {
      case "|b1":
      case "|u1":
        out.push(view.getUint8(at));
        break;
      case "|i1":
        out.push(view.getInt8(at));
        break;
      case "<i2":
        out.push(view.getInt16(at, true));
        break;
      case "<u2":
        out.push(view.getUint16(at, true));
        break;
      case "<i4":
        out.push(view.getInt32(at, true));
        break;
      case "<u4":
        out.push(view.getUint32(at, true));
        break;
      case "<i8":
      case "<M8":
        out.push(view.getBigInt64(at, true));
        break;
      case "<u8":
        out.push(view.getBigUint64(at, true));
        break;
      case "<f4":
        out.push(view.getFloat32(at, true));
        break;
      case "<f8":
        out.push(view.getFloat64(at, true));
        break;
      default:
        if (dtype.startsWith("|S")) {
          let end = size;
          while (end > 0 && bytes[at + end - 1] === 0) end--;
          out.push(Array.from(bytes.subarray(at, at + end)));
          break;
        }
        throw new Error(`test helper does not know dtype ${dtype}`);
    }
  }
  return out;
}

/** Values returned by the code under test, as a plain array comparable with expectedValues. */
export function asPlain(values: unknown): unknown[] {
  return Array.from(values as ArrayLike<unknown>, (v) => (v instanceof Uint8Array ? Array.from(v) : v));
}

/** Deterministic pseudo-random numbers (mulberry32), so failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/** A MemoryStore that records every key read (get and getRange), to count the chunk files a call touches. */
export class CountingStore extends MemoryStore {
  readonly reads: string[] = [];
  override async get(key: string): Promise<Uint8Array | undefined> {
    this.reads.push(key);
    return super.get(key);
  }
  override async getRange(key: string, range: { offset: number; length: number }): Promise<Uint8Array | undefined> {
    this.reads.push(key);
    return super.getRange(key, range);
  }
}

/** A ctable column that the test knows holds fixed-size values (a carray, not a vlarray). */
export function asCArray(column: TableColumn | undefined): CArray {
  if (column?.kind !== "carray") throw new Error(`expected a carray column, got ${column?.kind ?? "none"}`);
  return column;
}
