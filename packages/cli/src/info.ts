/**
 * `bcolz-ts info`: what a dataset is, how it is stored and how well it compresses.
 */
import type { ReadableStore } from "@fmt/fs-adapters";
import { parseSizes, storageFormatVersion } from "@fmt/meta";
import type { CArray, CTable, VLArray } from "@fmt/store";
import { dtypeText, toStrictJson } from "./output.js";

/**
 * The description of one carray (or ctable column) that `info` prints.
 *
 * @example
 * ```ts
 * const first: ArrayInfo = (await describeDataset(dataset)).arrays[0]!;
 * ```
 */
export interface ArrayInfo {
  /** Column name (ctable columns only). */
  name?: string;
  /** Format version from `meta/storage` (1 when absent). */
  formatVersion: number;
  /** numpy dtype string, e.g. `<f8`. */
  dtype: string;
  /** Shape, `[length, ...trailing]`. */
  shape: number[];
  /** Rows per chunk. */
  chunklen: number;
  /** Chunk files, the leftover included. */
  nchunks: number;
  /** Uncompressed bytes (length × row size). */
  nbytes: number;
  /** Compressed bytes as `meta/sizes` records them (null when unreadable). */
  cbytes: number | null;
  /** nbytes / cbytes (null when cbytes is unknown or zero). */
  ratio: number | null;
  /** Codec name. */
  cname: string;
  /** Compression level. */
  clevel: number;
  /** Shuffle filter: 0 none, 1 byte, 2 bit. */
  shuffle: number;
  /** Default value for new rows. */
  dflt: unknown;
}

/**
 * What `bcolz-ts info --json` prints.
 *
 * @example
 * ```ts
 * const info: DatasetInfo = await describeDataset(dataset);
 * ```
 */
export interface DatasetInfo {
  /** `"carray"` or `"ctable"`. */
  kind: "carray" | "ctable";
  /** Rows. */
  length: number;
  /** Sum over the columns (ctable) or the array's own values. */
  nbytes: number;
  /** Compressed bytes (sum over columns), null when any is unknown. */
  cbytes: number | null;
  /** nbytes / cbytes. */
  ratio: number | null;
  /** User attributes. */
  attrs: unknown;
  /** The carray itself, or one entry per column. */
  arrays: ArrayInfo[];
}

async function readText(store: ReadableStore, key: string): Promise<string | undefined> {
  try {
    const bytes = await store.get(key);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}

// cbytes of meta/sizes, or null when the file is absent or unreadable (info still describes the rest).
function sizesCbytes(text: string | undefined, key: string): number | null {
  if (text === undefined) return null;
  try {
    return Number(parseSizes(text, key).cbytes);
  } catch {
    return null;
  }
}

async function describeArray(a: CArray, name?: string): Promise<ArrayInfo> {
  const prefix = a.path === "" ? "" : `${a.path}/`;
  const storage = await readText(a.store, `${prefix}meta/storage`);
  const formatVersion = storage === undefined ? 1 : storageFormatVersion(storage);
  const cbytes = sizesCbytes(await readText(a.store, `${prefix}meta/sizes`), `${prefix}meta/sizes`);
  const info: ArrayInfo = {
    formatVersion,
    dtype: a.dtype.str,
    shape: [...a.shape],
    chunklen: a.chunklen,
    nchunks: a.chunkCount,
    nbytes: a.nbytes,
    cbytes,
    ratio: cbytes !== null && cbytes > 0 ? a.nbytes / cbytes : null,
    cname: a.cparams.cname,
    clevel: a.cparams.clevel,
    shuffle: a.cparams.shuffle,
    dflt: a.dflt,
  };
  return name === undefined ? info : { name, ...info };
}

/** A vlarray column: its `values/` carray, with the element count and both carrays' sizes. */
async function describeVLArray(a: VLArray, name?: string): Promise<ArrayInfo> {
  const info = await describeArray(a.values, name);
  return { ...info, dtype: dtypeText(a), shape: [a.length], nchunks: info.nchunks + a.offsets.chunkCount, nbytes: info.nbytes + a.offsets.nbytes };
}

/**
 * Gathers the {@link DatasetInfo} of an opened dataset.
 *
 * @example
 * ```ts
 * const info = await describeDataset(await open(new FileSystemStore(dir), ""));
 * console.log(info.kind, info.ratio);
 * ```
 */
export async function describeDataset(dataset: CArray | CTable): Promise<DatasetInfo> {
  const arrays = dataset.kind === "carray" ? [await describeArray(dataset)] : await Promise.all(dataset.columns.map((c, i) => (c.kind === "vlarray" ? describeVLArray(c, dataset.names[i]) : describeArray(c, dataset.names[i]))));
  const nbytes = arrays.reduce((s, a) => s + a.nbytes, 0);
  const cbytes = arrays.every((a) => a.cbytes !== null) ? arrays.reduce((s, a) => s + (a.cbytes ?? 0), 0) : null;
  return {
    kind: dataset.kind,
    length: dataset.length,
    nbytes,
    cbytes,
    ratio: cbytes !== null && cbytes > 0 ? nbytes / cbytes : null,
    attrs: dataset.attrs.toJSON(),
    arrays,
  };
}

const fmtRatio = (r: number | null): string => (r === null ? "?" : r.toFixed(2));
const shuffleName = (s: number): string => (s === 0 ? "noshuffle" : s === 1 ? "shuffle" : s === 2 ? "bitshuffle" : String(s));

/**
 * Renders a {@link DatasetInfo} for people: key/value lines, then a column table for ctables.
 *
 * @example
 * ```ts
 * process.stdout.write(renderInfo(await describeDataset(dataset)));
 * ```
 */
export function renderInfo(info: DatasetInfo): string {
  const lines: string[] = [];
  const kv = (k: string, v: string): void => void lines.push(`${`${k}:`.padEnd(16)}${v}`);
  kv("kind", info.kind);
  kv("format version", [...new Set(info.arrays.map((a) => a.formatVersion))].join(", ") || "1");
  if (info.kind === "carray") {
    const a = info.arrays[0]!;
    kv("dtype", a.dtype);
    kv("shape", `(${a.shape.join(", ")}${a.shape.length === 1 ? "," : ""})`);
    kv("chunklen", String(a.chunklen));
    kv("nchunks", String(a.nchunks));
    kv("codec", `${a.cname} clevel=${a.clevel} ${shuffleName(a.shuffle)}`);
    kv("dflt", toStrictJson(a.dflt));
  } else {
    kv("length", String(info.length));
    kv("columns", String(info.arrays.length));
  }
  kv("nbytes", String(info.nbytes));
  kv("cbytes", info.cbytes === null ? "?" : String(info.cbytes));
  kv("ratio", fmtRatio(info.ratio));
  kv("attrs", toStrictJson(info.attrs));
  if (info.kind === "ctable") {
    const header = ["name", "dtype", "shape", "chunklen", "nchunks", "nbytes", "cbytes", "ratio", "codec", "dflt"];
    const rows = info.arrays.map((a) => [a.name ?? "", a.dtype, `(${a.shape.join(", ")})`, String(a.chunklen), String(a.nchunks), String(a.nbytes), a.cbytes === null ? "?" : String(a.cbytes), fmtRatio(a.ratio), `${a.cname}/${a.clevel}/${shuffleName(a.shuffle)}`, toStrictJson(a.dflt)]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    lines.push("");
    for (const r of [header, ...rows]) lines.push(r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
  }
  return `${lines.join("\n")}\n`;
}
