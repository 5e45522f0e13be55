/**
 * Building the write case of the write check (spec/conformance.md §1.3) from a corpus case: the
 * manifest gives the shape of the dataset, the case's `expected/` files its values, and the
 * dataset's own metadata files the members whose spelling must survive (`attrs`, `dflt`) or that
 * only the dataset records (format 2: `superchunksize`, `checksum`, `spare`, `vtype`).
 */
import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

type Json = Record<string, unknown>;

/** The text of a file, or `undefined` when it cannot be read. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Lower-case hex SHA-256 of `bytes`. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The `dflt` of a meta/storage text in the write-case convention (non-finite and big ints as strings). */
function dfltFromStorage(storage: string): string {
  const m = /"dflt": (.*)\}\s*$/.exec(storage);
  const token = m?.[1]?.trim() ?? "null";
  if (token === "NaN" || token === "Infinity" || token === "-Infinity") return JSON.stringify(token);
  if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) return JSON.stringify(token);
  return token;
}

function cparamsJson(c: unknown): string {
  const p = (c ?? {}) as Json;
  return JSON.stringify({ clevel: p.clevel, shuffle: Number(p.shuffle), cname: p.cname ?? "blosclz", quantize: p.quantize ?? 0 });
}

/**
 * A meta/storage text as an object, for its integer and string members: the non-finite float
 * spellings JSON lacks (a `dflt` of `NaN`) are read as null. `{}` when it is absent or unreadable.
 */
function storageObject(text: string | undefined): Json {
  try {
    const value = JSON.parse((text ?? "{}").replace(/-?\b(?:NaN|Infinity)\b/g, "null")) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
  } catch {
    return {};
  }
}

/** The format-2 members of v2.md §10.1 that a write case may carry, as found in a carray's meta/storage. */
const V2_STORAGE_KEYS = ["superchunksize", "checksum", "spare"] as const;

/**
 * Where one array of a case takes its spliced members from: `storageDir` holds the meta/storage
 * of the carray (for a vlarray, its `values` sub-carray), `attrsDir` the `__attrs__`.
 */
interface ArraySource {
  storageDir: string;
  attrsDir: string;
  format: number;
  /** Format 2 vlarray: its `vtype` (v2.md §12). */
  vtype?: string | undefined;
}

/** JSON members of one array of a case (attrs and dflt spliced verbatim from the dataset's own files, so floats keep their spelling). */
async function arrayCaseText(src: ArraySource, spec: Json, valuesFile: string, name?: string): Promise<string> {
  const storage = (await readText(join(src.storageDir, "meta/storage"))) ?? "";
  const attrs = ((await readText(join(src.attrsDir, "__attrs__"))) ?? "{}").trim();
  const parts = [
    ...(name === undefined ? [] : [`"name": ${JSON.stringify(name)}`]),
    ...(src.vtype === undefined ? [] : [`"vtype": ${JSON.stringify(src.vtype)}`]),
    `"dtype": ${JSON.stringify(spec.dtype)}`,
    `"shape": ${JSON.stringify(spec.shape)}`,
    `"chunklen": ${JSON.stringify(spec.chunklen)}`,
    `"cparams": ${cparamsJson(spec.cparams)}`,
  ];
  if (src.format === 2) {
    const parsed = storageObject(storage);
    for (const key of V2_STORAGE_KEYS) if (parsed[key] !== undefined) parts.push(`"${key}": ${JSON.stringify(parsed[key])}`);
  }
  parts.push(
    `"dflt": ${dfltFromStorage(storage)}`,
    `"expectedlen": ${JSON.stringify(spec.expectedlen ?? null)}`,
    `"attrs": ${attrs}`,
    `"values": ${JSON.stringify(valuesFile)}`,
  );
  return parts.join(", ");
}

/**
 * Whether an array of a format-2 case is a vlarray: the top-level `kind`, a `vtype` member, or a
 * column `dtype` in the `vl:…` spelling of spec/conformance.md §1.2.
 *
 * @example
 * ```ts
 * isVlarray({ kind: "vlarray" }); // true
 * isVlarray({ name: "sym", dtype: "vl:utf8" }); // true
 * isVlarray({ name: "id", dtype: "<i8" }); // false
 * ```
 */
export function isVlarray(spec: Json): boolean {
  return spec.kind === "vlarray" || typeof spec.vtype === "string" || (typeof spec.dtype === "string" && spec.dtype.startsWith("vl:"));
}

/**
 * Where the spliced members of one array of a case come from. `arrayDir` is the array's root in
 * the dataset: a format-2 vlarray takes `vtype` from its own meta/storage, `dflt` and the §10.1
 * keys from its `values` sub-carray.
 */
async function arraySource(arrayDir: string, spec: Json, format: number): Promise<ArraySource> {
  if (format !== 2 || !isVlarray(spec)) return { storageDir: arrayDir, attrsDir: arrayDir, format };
  const vtype = storageObject(await readText(join(arrayDir, "meta/storage"))).vtype;
  return { storageDir: join(arrayDir, "values"), attrsDir: arrayDir, format, vtype: typeof vtype === "string" ? vtype : undefined };
}

/**
 * The root of ctable column `name` inside the dataset: `<root>/<name>` in format 1 (v1.md §3.3),
 * `<root>/data/<name>` in format 2 (v2.md §11).
 *
 * @example
 * ```ts
 * columnDir("/c/data.bcolz", "price", 2); // "/c/data.bcolz/data/price"
 * ```
 */
export function columnDir(root: string, name: string, format: number): string {
  return format === 2 ? join(root, "data", name) : join(root, name);
}

/**
 * Writes the case JSON (and copies the value files) for manifest case `raw` into `dir`; returns
 * the case file's path. `format` is the corpus format the case comes from (the `v<N>/` folder):
 * a format-2 case also carries `superchunksize`, `checksum` and `spare` per array, and `vtype`
 * for a vlarray (alone, `"kind": "vlarray"`, or as a column), whose value file has the vlarray
 * layout of spec/conformance.md §1.2.
 *
 * @example
 * ```ts
 * const caseJson = await buildWriteCase(raw, "conformance/corpus/v1/bcolz-real", "/tmp/case");
 * const v2Case = await buildWriteCase(raw2, "conformance/corpus/v2/synth", "/tmp/case2", 2);
 * ```
 */
export async function buildWriteCase(raw: Json, setDir: string, dir: string, format = 1): Promise<string> {
  const caseDir = join(setDir, raw.name as string);
  const real = join(caseDir, (raw.rootdir as string | undefined) ?? "data.bcolz");
  await mkdir(dir, { recursive: true });
  let text: string;
  if (raw.kind !== "ctable") {
    await copyFile(join(caseDir, "expected", "values.bin"), join(dir, "values.bin"));
    const kind = format === 2 && raw.kind === "vlarray" ? "vlarray" : "carray";
    text = `{"format": ${format}, "kind": "${kind}", ${await arrayCaseText(await arraySource(real, raw, format), raw, "values.bin")}, "columns": []}`;
  } else {
    const columns: string[] = [];
    for (const [i, col] of (raw.columns as Json[]).entries()) {
      await copyFile(join(caseDir, "expected", col.expected_file as string), join(dir, `col-${i}.bin`));
      const src = await arraySource(columnDir(real, col.name as string, format), col, format);
      columns.push(`{${await arrayCaseText(src, col, `col-${i}.bin`, col.name as string)}}`);
    }
    const attrs = ((await readText(join(real, "__attrs__"))) ?? "{}").trim();
    text = `{"format": ${format}, "kind": "ctable", "attrs": ${attrs}, "columns": [${columns.join(", ")}]}`;
  }
  const path = join(dir, "case.json");
  await writeFile(path, `${text}\n`);
  return path;
}
