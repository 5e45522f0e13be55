/**
 * The format-2 parts of the write check (spec/conformance.md §1.3): the dataset layout of
 * v2.md §10.5, §11 and §12, and the comparison of a written dataset with the corpus's —
 * `meta/storage`, `meta/shape` and `__attrs__` byte for byte, and of every superchunk present in
 * both the 32-byte header (except `last-chunk`, a hint) and the metadata section. Compressed chunk
 * bytes, offsets and spare room are not compared.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { columnDir, isVlarray } from "./write-case.js";

type Json = Record<string, unknown>;

/** Files of a version-2 carray root (v2.md §10.5): superchunks are `data/__<s>__.bin`, `s` ≥ 1 without leading zeros. */
const CARRAY_V2_FILE = /^(meta\/storage|meta\/shape|__attrs__|data\/__[1-9]\d*__\.bin)$/;

/** Whether `path` (relative to a vlarray root) belongs to its layout (v2.md §12). */
function inVlarray(path: string): boolean {
  if (path === "meta/storage" || path === "__attrs__") return true;
  const m = /^(offsets|values)\/(.+)$/.exec(path);
  return m !== null && CARRAY_V2_FILE.test(m[2]!);
}

/** One column of a format-2 ctable, as the layout check needs it. */
export interface ColumnLayout {
  name: string;
  vlarray: boolean;
}

/**
 * Files of a written format-2 dataset that the layout of v2.md §10.5, §11 and §12 does not allow:
 * `.lock`, `.journal`, `data/__s__.bin.i.next`, temporaries, `meta/sizes` or `__rootdirs__`
 * (which would let bcolz 1.x open the directory, v2.md §3.3), or anything else.
 *
 * @example
 * ```ts
 * strayFilesV2(["meta/storage", "meta/shape", "__attrs__", "data/__1__.bin", "data/__1__.bin.0.next"], "carray", []);
 * // ["data/__1__.bin.0.next"]
 * strayFilesV2(["meta/storage", "__attrs__", "data/sym/__attrs__", "data/sym/offsets/meta/shape", "data/sym/.lock"], "ctable", [{ name: "sym", vlarray: true }]);
 * // ["data/sym/.lock"]
 * ```
 */
export function strayFilesV2(files: readonly string[], kind: "carray" | "vlarray" | "ctable", columns: readonly ColumnLayout[]): string[] {
  if (kind === "carray") return files.filter((f) => !CARRAY_V2_FILE.test(f));
  if (kind === "vlarray") return files.filter((f) => !inVlarray(f));
  return files.filter((f) => {
    if (f === "meta/storage" || f === "__attrs__") return false;
    const m = /^data\/([^/]+)\/(.+)$/.exec(f);
    const column = m === null ? undefined : columns.find((c) => c.name === m[1]);
    if (column === undefined) return true;
    return column.vlarray ? !inVlarray(m![2]!) : !CARRAY_V2_FILE.test(m![2]!);
  });
}

/** The fields of the 32-byte superchunk header (v2.md §4.1) the write check compares; `last-chunk` (12–15) is left out. */
const HEADER_FIELDS: readonly [name: string, start: number, end: number][] = [
  ["magic", 0, 4],
  ["version", 4, 5],
  ["options", 5, 6],
  ["checksum", 6, 7],
  ["typesize", 7, 8],
  ["chunk-size", 8, 12],
  ["nchunks", 16, 24],
  ["meta-size", 24, 28],
  ["reserved", 28, 32],
];

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/**
 * How a written superchunk's header and metadata section differ from the reference file's, or
 * `undefined` when they agree: every header field but `last-chunk`, then the metadata section
 * (`[32, 32 + meta-size)` of the reference, when its options have bit 1 set).
 *
 * @example
 * ```ts
 * superchunkDifference(written, real); // "header typesize 08 vs 04"
 * ```
 */
export function superchunkDifference(written: Uint8Array, real: Uint8Array): string | undefined {
  if (written.length < 32) return `only ${written.length} bytes, no 32-byte header`;
  const fields = HEADER_FIELDS.filter(([, start, end]) => hex(written.subarray(start, end)) !== hex(real.subarray(start, end)));
  if (fields.length > 0) return `header ${fields.map(([name, start, end]) => `${name} ${hex(written.subarray(start, end))} vs ${hex(real.subarray(start, end))}`).join(", ")}`;
  if (real.length < 32 || (real[5]! & 0x02) === 0) return undefined;
  const metaSize = Buffer.from(real.buffer, real.byteOffset, real.byteLength).readInt32LE(24);
  if (metaSize <= 0) return undefined;
  const w = written.subarray(32, 32 + metaSize);
  const r = real.subarray(32, 32 + metaSize);
  if (Buffer.compare(w, r) === 0) return undefined;
  const text = (b: Uint8Array): string => JSON.stringify(Buffer.from(b).toString("latin1")).slice(0, 120);
  return `metadata section ${text(w)} vs ${text(r)}`;
}

/** Compares `files` of `written` and `real` byte for byte, pushing one problem per differing file. */
async function compareBytes(written: string, real: string, files: readonly string[], label: string, problems: string[]): Promise<void> {
  for (const file of files) {
    const w = await readFile(join(written, file)).catch(() => undefined);
    const r = await readFile(join(real, file)).catch(() => undefined);
    if (w === undefined && r === undefined) continue;
    if (w === undefined || r === undefined || Buffer.compare(w, r) !== 0) {
      const show = (b: Buffer | undefined): string => (b === undefined ? "(absent)" : JSON.stringify(b.toString("utf8")).slice(0, 160));
      problems.push(`${label}${file} differs: ${show(w)} vs ${show(r)}`);
    }
  }
}

/** A version-2 carray root: metadata byte for byte, and the superchunks present in both. */
async function compareCarrayV2(written: string, real: string, label: string, problems: string[]): Promise<void> {
  await compareBytes(written, real, ["meta/storage", "meta/shape", "__attrs__"], label, problems);
  const superchunks = (await readdir(join(real, "data")).catch(() => [] as string[])).filter((f) => /^__[1-9]\d*__\.bin$/.test(f)).sort();
  for (const f of superchunks) {
    const w = await readFile(join(written, "data", f)).catch(() => undefined);
    if (w === undefined) continue; // the file-set comparison reports a missing file where it applies
    const why = superchunkDifference(w, await readFile(join(real, "data", f)));
    if (why !== undefined) problems.push(`${label}data/${f}: ${why}`);
  }
}

/** A vlarray root (v2.md §12): its own meta/storage and `__attrs__`, then its two sub-carrays. */
async function compareVlarray(written: string, real: string, label: string, problems: string[]): Promise<void> {
  await compareBytes(written, real, ["meta/storage", "__attrs__"], label, problems);
  for (const sub of ["offsets", "values"]) await compareCarrayV2(join(written, sub), join(real, sub), `${label}${sub}/`, problems);
}

/**
 * Checks 2 and 3 of the write check for a format-2 case: compares the dataset the adapter wrote
 * (`written`) with the corpus's (`real`), pushing a message per difference onto `problems`.
 *
 * @example
 * ```ts
 * const problems: string[] = [];
 * await compareDatasetV2("/tmp/out.bcolz", "conformance/corpus/v2/synth/f8/data.bcolz", raw, problems);
 * ```
 */
export async function compareDatasetV2(written: string, real: string, raw: Json, problems: string[]): Promise<void> {
  if (raw.kind === "carray") return compareCarrayV2(written, real, "", problems);
  if (raw.kind === "vlarray") return compareVlarray(written, real, "", problems);
  await compareBytes(written, real, ["meta/storage", "__attrs__"], "", problems);
  for (const col of raw.columns as Json[]) {
    const name = col.name as string;
    const compare = isVlarray(col) ? compareVlarray : compareCarrayV2;
    await compare(columnDir(written, name, 2), columnDir(real, name, 2), `data/${name}/`, problems);
  }
}

/**
 * The layout check of a written format-2 dataset for manifest case `raw`: the files that do not
 * belong (see {@link strayFilesV2}).
 */
export function strayFilesOfCaseV2(files: readonly string[], raw: Json): string[] {
  const kind = raw.kind === "ctable" ? "ctable" : raw.kind === "vlarray" ? "vlarray" : "carray";
  const columns = ((raw.columns as Json[] | undefined) ?? []).map((col) => ({ name: col.name as string, vlarray: isVlarray(col) }));
  return strayFilesV2(files, kind, columns);
}
