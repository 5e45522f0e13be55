/**
 * Reading corpus manifests.
 *
 * A corpus set is a folder with a `manifest.json` whose `cases` array lists one entry per case
 * folder. Cases that must be rejected carry `expect.error` (a code of spec/errors.md); every other
 * case is valid and carries the metadata and value digests an adapter must reproduce: a carray
 * or a vlarray (format 2) has one value file, a ctable one per column.
 */
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Per-column expectations of a ctable case. */
export interface ColumnExpectation {
  name: string;
  dtype: string;
  shape: number[];
  chunklen: number;
  cparams: { clevel: number; shuffle: number; cname: string };
  sha256: string;
  bytes: number;
}

/** One case of a set, normalised from the manifest. */
export interface CorpusCase {
  set: string;
  name: string;
  /** Directory holding the dataset to read. */
  datasetDir: string;
  category: "valid" | "invalid" | "malformed";
  /** For invalid/malformed cases: the error code the adapter must report. */
  expectError?: string;
  /** `"vlarray"` only in format 2 (spec/v2.md §12); judged like a carray. */
  kind?: "carray" | "ctable" | "vlarray";
  /** The format version `result.json` must report; compared only when the manifest gives it. */
  format?: number;
  dtype?: unknown;
  shape?: number[];
  chunklen?: number | null;
  cparams?: { clevel: number; shuffle: number; cname: string } | null;
  attrs?: unknown;
  /** Carray (or vlarray) value digest. */
  values?: { sha256: string; bytes: number };
  columns?: ColumnExpectation[];
}

type Json = Record<string, unknown>;

function pickCparams(value: unknown): { clevel: number; shuffle: number; cname: string } | null {
  if (value === null || typeof value !== "object") return null;
  const c = value as Json;
  return { clevel: c.clevel as number, shuffle: Number(c.shuffle), cname: (c.cname as string) ?? "blosclz" };
}

/**
 * Load every set under `corpusRoot/v<version>/` that has a manifest.
 *
 * @example
 * ```ts
 * const cases = await loadCorpus("conformance/corpus", 1);
 * ```
 */
export async function loadCorpus(corpusRoot: string, version = 1): Promise<CorpusCase[]> {
  const out: CorpusCase[] = [];
  for (const { set, dir, manifest } of await readManifests(corpusRoot, version)) {
    for (const raw of manifest.cases as Json[]) out.push(normaliseCase(set, dir, raw));
  }
  return out;
}

/**
 * Every set under `corpusRoot/v<version>/` that has a `manifest.json`, in name order, with the
 * parsed manifest (read cases under `cases`, query cases under `queries`).
 *
 * @example
 * ```ts
 * for (const { set, manifest } of await readManifests("conformance/corpus", 2)) console.log(set, manifest.format);
 * ```
 */
export async function readManifests(corpusRoot: string, version = 1): Promise<{ set: string; dir: string; manifest: Json }[]> {
  const base = join(corpusRoot, `v${version}`);
  const out: { set: string; dir: string; manifest: Json }[] = [];
  for (const set of (await readdir(base)).sort()) {
    const manifestPath = join(base, set, "manifest.json");
    try {
      await stat(manifestPath);
    } catch {
      continue;
    }
    out.push({ set, dir: join(base, set), manifest: JSON.parse(await readFile(manifestPath, "utf8")) as Json });
  }
  return out;
}

function normaliseCase(set: string, setDir: string, raw: Json): CorpusCase {
  const name = raw.name as string;
  const datasetDir = join(setDir, name, (raw.rootdir as string | undefined) ?? "data.bcolz");
  const expect = raw.expect as Json | undefined;
  if (expect && typeof expect.error === "string") {
    const category = raw.category === "malformed" ? "malformed" : "invalid";
    return { set, name, datasetDir, category, expectError: expect.error };
  }
  const kind = raw.kind as "carray" | "ctable" | "vlarray";
  const c: CorpusCase = {
    set,
    name,
    datasetDir,
    category: "valid",
    kind,
    dtype: raw.dtype,
    shape: raw.shape as number[] | undefined,
    chunklen: (raw.chunklen as number | null | undefined) ?? null,
    cparams: pickCparams(raw.cparams),
    attrs: raw.attrs ?? {},
  };
  // A case's own `format` (an integer); a manifest's top-level `format` is an informative label.
  if (Number.isInteger(raw.format)) c.format = raw.format as number;
  if (kind !== "ctable") {
    const expected = raw.expected as Record<string, { sha256: string; bytes: number }>;
    c.values = expected["values.bin"];
  } else {
    const len = raw.len as number;
    c.shape = [len];
    c.columns = (raw.columns as Json[]).map((col) => ({
      name: col.name as string,
      dtype: col.dtype as string,
      shape: col.shape as number[],
      chunklen: col.chunklen as number,
      cparams: pickCparams(col.cparams)!,
      sha256: col.sha256 as string,
      bytes: col.bytes as number,
    }));
  }
  return c;
}
