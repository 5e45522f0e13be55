#!/usr/bin/env node
// A tiny format-2 adapter for the runner's tests: `fake-v2.mjs MODE info|read|write …`.
//
// It reads and writes only what the tests build: little-endian dtypes, Blosc chunks stored
// uncompressed (memcpyed, the chunk layout of spec/v2.md §8.1), `adler32` or `none` checksums.
// MODE "good" follows spec/conformance.md §1 and spec/v2.md (its carray of v2.md §8.1 is
// byte for byte the worked example); every other MODE spoils exactly one thing, so that the
// tests can show that the runner catches it, or, for the parts the runner must not compare
// (last-chunk, spare room), that it does not. Not an implementation of the format.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const [mode, command, ...args] = process.argv.slice(2);

// ---- JSON in the dialect of v1.md §9.2 (enough for the tests: no floats needing repr rules) ----
function py(value) {
  if (Array.isArray(value)) return `[${value.map(py).join(", ")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${py(v)}`).join(", ")}}`;
  return JSON.stringify(value);
}
const put = (path, data) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
};

function adler32(bytes) {
  let a = 1;
  let b = 0;
  for (const x of bytes) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}
const CHECKSUMS = { none: [0, 0], adler32: [1, 4] };
const itemsizeOf = (dtype) => Number(/(\d+)$/.exec(dtype)[1]);

/** One superchunk (v2.md §4–§7): memcpyed Blosc chunks, offsets table of `capacity` entries. */
function superchunk(chunks, { s, S, checksum, spare, chunkSize, typesize }) {
  const [id, csize] = CHECKSUMS[checksum];
  let meta = py({ capacity: S, first_chunk: (s - 1) * S });
  if (mode === "meta-section") meta = py({ first_chunk: (s - 1) * S, capacity: S }); // same length, other bytes
  const metaSize = meta.length + ((8 - ((32 + meta.length) % 8)) % 8);
  const start = 32 + metaSize + 8 * S;
  const slots = [];
  const offsets = [];
  let at = start;
  for (const [i, payload] of chunks.entries()) {
    const chunk = Buffer.alloc(16 + payload.length);
    chunk.set([2, 1, 0x33, typesize], 0);
    chunk.writeUInt32LE(payload.length, 4);
    chunk.writeUInt32LE(payload.length, 8);
    chunk.writeUInt32LE(payload.length + 16, 12);
    chunk.set(payload, 16);
    const sum = Buffer.alloc(csize);
    if (id === 1) sum.writeUInt32LE((adler32(chunk) ^ ((s - 1) * S + i)) >>> 0, 0);
    const room = mode === "no-spare" ? 0 : Math.min(Math.ceil((chunk.length * spare) / 100), Math.max(0, chunkSize + 16 - chunk.length));
    offsets.push(at);
    slots.push(chunk, sum, Buffer.alloc(room));
    at += chunk.length + csize + room;
  }
  const head = Buffer.alloc(32);
  head.write("blpk", 0, "latin1");
  head.set([2, 0x03, id, mode === "typesize" ? 1 : typesize], 4);
  head.writeInt32LE(chunkSize, 8);
  head.writeInt32LE(mode === "last-chunk" ? -1 : chunks.at(-1).length, 12);
  head.writeBigInt64LE(BigInt(chunks.length), 16);
  head.writeInt32LE(metaSize, 24);
  const table = Buffer.alloc(8 * S);
  for (let i = 0; i < S; i++) table.writeBigInt64LE(BigInt(offsets[i] ?? -1), 8 * i);
  return Buffer.concat([head, Buffer.from(meta.padEnd(metaSize, " "), "latin1"), table, ...slots]);
}

/** A version-2 carray root (v2.md §10) holding `bytes` (rows of `rowsize` bytes). */
function writeCarray(dir, spec, bytes, rowsize) {
  const storage = {
    format_version: 2,
    kind: "carray",
    dtype: spec.dtype,
    cparams: spec.cparams,
    chunklen: spec.chunklen,
    superchunksize: spec.superchunksize,
    checksum: spec.checksum,
    spare: spec.spare,
    expectedlen: spec.expectedlen ?? bytes.length / rowsize,
    dflt: spec.dflt,
  };
  let storageText = py(storage);
  if (mode === "storage-order") storageText = py({ kind: "carray", ...storage });
  put(join(dir, "meta/storage"), `${storageText}\n`);
  const len = bytes.length / rowsize;
  put(join(dir, "meta/shape"), mode === "shape-spelling" ? `{"shape":[${len}]}\n` : `${py({ shape: [len] })}\n`);
  put(join(dir, "__attrs__"), `${py(spec.attrs ?? {})}\n`);
  if (mode === "v1-files") put(join(dir, "meta/sizes"), `${py({ shape: [len], nbytes: bytes.length, cbytes: 0 })}\n`);
  const chunkSize = spec.chunklen * rowsize;
  const chunks = [];
  for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(Buffer.from(bytes.subarray(at, at + chunkSize)));
  if (mode === "wrong-values" && spec.spoil && chunks.length > 0) chunks[0][0] ^= 1;
  const S = spec.superchunksize;
  for (let s = 1; (s - 1) * S < chunks.length; s++) {
    const file = superchunk(chunks.slice((s - 1) * S, s * S), { s, S, checksum: spec.checksum, spare: spec.spare, chunkSize, typesize: Math.min(255, itemsizeOf(spec.dtype)) });
    put(join(dir, `data/__${s}__.bin`), file);
  }
  if (mode === "extra-superchunk") put(join(dir, `data/__${Math.ceil(chunks.length / S) + 1}__.bin`), Buffer.alloc(32));
  if (mode === "lock") {
    put(join(dir, ".lock"), `${process.pid}\n`);
    put(join(dir, "data/__1__.bin.0.next"), "");
  }
}

/** A vlarray root (v2.md §12) from a value file in the layout of conformance.md §1.2. */
function writeVlarray(dir, spec, file) {
  const vtype = spec.vtype;
  const dtype = vtype === "ragged" ? spec.dtype.slice(3) : "|u1";
  const unit = itemsizeOf(dtype);
  const offsets = [0n];
  const parts = [];
  for (let at = 0; at < file.length; ) {
    const n = Number(file.readBigUInt64LE(at));
    parts.push(file.subarray(at + 8, at + 8 + n));
    offsets.push(offsets.at(-1) + BigInt(n / unit));
    at += 8 + n;
  }
  const storage = py({ format_version: 2, kind: "vlarray", vtype });
  put(join(dir, "meta/storage"), `${mode === "vl-storage" ? storage.replace(/}$/, " }") : storage}\n`);
  put(join(dir, "__attrs__"), `${py(spec.attrs ?? {})}\n`);
  const table = Buffer.alloc(8 * offsets.length);
  offsets.forEach((o, i) => table.writeBigInt64LE(o, 8 * i));
  const sub = { ...spec, attrs: {}, dflt: 0, expectedlen: null };
  writeCarray(join(dir, "offsets"), { ...sub, dtype: "<i8" }, table, 8);
  writeCarray(join(dir, "values"), { ...sub, dtype, spoil: true }, Buffer.concat(parts), unit);
  if (mode === "vl-stray") put(join(dir, "values/data/__1__.bin.tmp"), "");
}

function writeCase(caseJson, out) {
  const doc = JSON.parse(readFileSync(caseJson, "utf8"));
  if (doc.format !== 2) return fail("INVALID_ARGUMENT", "fake-v2 writes format 2 only");
  const caseDir = dirname(resolve(caseJson));
  rmSync(out, { recursive: true, force: true });
  const array = (dir, spec) => {
    const bytes = readFileSync(join(caseDir, spec.values));
    if (spec.vtype !== undefined) writeVlarray(dir, spec, bytes);
    else writeCarray(dir, { ...spec, spoil: true }, bytes, itemsizeOf(spec.dtype) * spec.shape.slice(1).reduce((a, b) => a * b, 1));
  };
  if (doc.kind === "carray" || doc.kind === "vlarray") return array(out, doc);
  put(join(out, "meta/storage"), `${py({ format_version: 2, kind: "ctable", columns: doc.columns.map((c) => c.name) })}\n`);
  put(join(out, "__attrs__"), `${py(doc.attrs)}\n`);
  for (const col of doc.columns) array(join(out, "data", col.name), col);
}

// ---- reading ----
function fail(code, message) {
  process.stdout.write(`${JSON.stringify({ code, message })}\n`);
  process.exit(3);
}
function readJson(path) {
  if (!existsSync(path)) fail("MISSING_FILE", `${path} is missing`);
  return JSON.parse(readFileSync(path, "utf8"));
}

/** A carray root: its description and its bytes (memcpyed chunks only). */
function readCarray(dir) {
  const storage = readJson(join(dir, "meta/storage"));
  const shape = readJson(join(dir, "meta/shape")).shape;
  const rowsize = itemsizeOf(storage.dtype) * shape.slice(1).reduce((a, b) => a * b, 1);
  const chunks = [];
  const N = Math.ceil(shape[0] / storage.chunklen);
  const S = storage.superchunksize;
  for (let s = 1; (s - 1) * S < N; s++) {
    const path = join(dir, `data/__${s}__.bin`);
    if (!existsSync(path)) fail("MISSING_FILE", `${path} is missing`);
    const file = readFileSync(path);
    if (file.toString("latin1", 0, 4) !== "blpk") fail("BAD_MAGIC", `${path}: not blpk`);
    const tableAt = 32 + file.readInt32LE(24);
    for (let i = 0; i < Math.min(S, N - (s - 1) * S); i++) {
      const at = Number(file.readBigInt64LE(tableAt + 8 * i));
      chunks.push(file.subarray(at + 16, at + 16 + file.readUInt32LE(at + 4)));
    }
  }
  const { clevel, shuffle, cname } = storage.cparams;
  const description = { dtype: storage.dtype, shape, chunklen: storage.chunklen, cparams: { clevel, shuffle, cname }, attrs: readJson(join(dir, "__attrs__")) };
  return { description, bytes: Buffer.concat(chunks).subarray(0, shape[0] * rowsize) };
}

/** A carray or vlarray root: its result.json description (kind included) and its value file. */
function readArray(dir) {
  const storage = readJson(join(dir, "meta/storage"));
  if (storage.kind !== "vlarray") return { ...readCarray(dir), kind: "carray" };
  const offsets = readCarray(join(dir, "offsets")).bytes;
  const values = readCarray(join(dir, "values"));
  const unit = itemsizeOf(values.description.dtype);
  const parts = [];
  for (let k = 0; k + 1 < offsets.length / 8; k++) {
    const from = Number(offsets.readBigInt64LE(8 * k)) * unit;
    const to = Number(offsets.readBigInt64LE(8 * k + 8)) * unit;
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(to - from));
    parts.push(length, values.bytes.subarray(from, to));
  }
  const bytes = Buffer.concat(parts);
  if (mode === "vl-values" && bytes.length > 0) bytes[bytes.length - 1] ^= 1;
  let dtype = storage.vtype === "ragged" ? `vl:${values.description.dtype}` : `vl:${storage.vtype}`;
  if (mode === "vl-dtype" && dtype === "vl:utf8") dtype = "vl:bytes";
  const description = { ...values.description, dtype, shape: [offsets.length / 8 - 1], attrs: readJson(join(dir, "__attrs__")) };
  return { description, bytes, kind: "vlarray" };
}

function readDataset(dataset, out) {
  const storage = readJson(join(dataset, "meta/storage"));
  if (storage.format_version !== 2) fail("UNSUPPORTED_VERSION", "fake-v2 reads format 2 only");
  const format = mode === "format-1" ? 1 : 2;
  mkdirSync(out, { recursive: true });
  if (storage.kind !== "ctable") {
    const { description, bytes, kind } = readArray(dataset);
    writeFileSync(join(out, "values.bin"), bytes);
    writeFileSync(join(out, "result.json"), JSON.stringify({ kind, format, ...description, columns: [] }));
    return;
  }
  const columns = storage.columns.map((name, i) => {
    const { description, bytes } = readArray(join(dataset, "data", name));
    writeFileSync(join(out, `col-${i}.bin`), bytes);
    return { name, ...description };
  });
  const common = (key) => (columns.every((c) => JSON.stringify(c[key]) === JSON.stringify(columns[0][key])) ? columns[0][key] : null);
  const result = {
    kind: "ctable",
    format,
    dtype: columns.map((c) => [c.name, c.dtype]),
    shape: columns[0].shape.slice(0, 1),
    chunklen: common("chunklen"),
    cparams: common("cparams"),
    attrs: readJson(join(dataset, "__attrs__")),
    columns,
  };
  writeFileSync(join(out, "result.json"), JSON.stringify(result));
}

const INFO = {
  "v1-only": { formats: [1], operations: ["read", "write"] },
  "read-only": { formats: [1, 2], operations: ["read"] },
};
if (command === "info") {
  process.stdout.write(`${JSON.stringify({ name: `fake-v2 ${mode}`, version: "0.0.0", ...(INFO[mode] ?? { formats: [1, 2], operations: ["read", "write"] }) })}\n`);
} else if (command === "read" && args.length === 2) {
  readDataset(args[0], args[1]);
} else if (command === "write" && args.length === 2) {
  writeCase(args[0], args[1]);
} else {
  process.stderr.write("usage: fake-v2.mjs MODE info | read DATASET_DIR OUT_DIR | write CASE_JSON DATASET_DIR\n");
  process.exit(2);
}
