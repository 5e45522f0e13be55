#!/usr/bin/env node
// Generates conformance/corpus/v1/bcolz-broken: datasets derived from real bcolz output
// (conformance/corpus/v1/bcolz-real) by one precise mutation each, so that every case breaks
// exactly one rule of spec/v1.md (or none, for the "valid" leniency cases) and its verdict is
// the code spec/errors.md assigns. Where a mutation needs a choice (which chunk, which bytes),
// fast-check makes it from a fixed seed, so a rerun reproduces the set byte for byte.
//
// Run: node conformance/generators/v1-broken.mjs   (rewrites the whole set)
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, appendFileSync, unlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import fc from "fast-check";

const here = dirname(fileURLToPath(import.meta.url));
const real = resolve(here, "../corpus/v1/bcolz-real");
const out = resolve(here, "../corpus/v1/bcolz-broken");
const SEED = 20261122;
const realManifest = JSON.parse(readFileSync(join(real, "manifest.json"), "utf8"));
const realCase = (name) => realManifest.cases.find((c) => c.name === name);

/** Deterministic choices: the k-th draw of an arbitrary under the set's seed. */
let draw = 0;
function pick(arb) {
  draw += 1;
  return fc.sample(arb, { seed: SEED + draw, numRuns: 1 })[0];
}

// Spec rule ids each case pins (spec/conformance.md §2.3), kept with the other sets' in existing-rules.json.
const ruleIds = JSON.parse(readFileSync(join(here, "existing-rules.json"), "utf8"));
const cases = [];
function makeCase({ name, from, category, error, rule, mutate, validAsSource = false, keepRows }) {
  const dir = join(out, name);
  cpSync(join(real, from, "data.bcolz"), join(dir, "data.bcolz"), { recursive: true });
  const root = join(dir, "data.bcolz");
  const detail = mutate(root);
  const entry = { name, rootdir: "data.bcolz", derived_from: `bcolz-real/${from}`, rule, mutation: detail };
  if (category === "valid") {
    // Same logical content as the source: reuse its expectations.
    const src = realCase(from);
    Object.assign(entry, { category: "valid", kind: src.kind, dtype: src.dtype, shape: src.kind === "ctable" ? [src.len] : src.shape, chunklen: src.chunklen, cparams: src.cparams, attrs: src.attrs, expected: src.expected, ...(src.columns ? { columns: src.columns, len: src.len } : {}) });
    if (keepRows !== undefined) Object.assign(entry, firstRowsOf(from, src, keepRows));
    else if (!validAsSource) throw new Error("valid cases must keep the source content (or name keepRows, the prefix it keeps)");
  } else {
    Object.assign(entry, { category, expect: { error } });
  }
  const ids = ruleIds[`v1/bcolz-broken/${name}`];
  if (ids === undefined) throw new Error(`no rule ids for ${name} in existing-rules.json`);
  Object.assign(entry, ids);
  cases.push(entry);
}

/**
 * The expectations of a ctable case that reads as the first `rows` rows of its source (an
 * interrupted append, v1 §8.5): each column's digest over that prefix of the source's expected
 * file, which real bcolz's values produced.
 */
function firstRowsOf(from, src, rows) {
  if (src.kind !== "ctable") throw new Error("keepRows is for ctables");
  const columns = src.columns.map((col) => {
    const itemsize = col.bytes / col.len;
    const prefix = readFileSync(join(real, from, "expected", col.expected_file)).subarray(0, rows * itemsize);
    return { ...col, shape: [rows, ...col.shape.slice(1)], len: rows, bytes: prefix.length, sha256: createHash("sha256").update(prefix).digest("hex") };
  });
  return { shape: [rows], len: rows, columns, expected: undefined };
}

const file = (root, key) => join(root, key);
const bytes = (root, key) => new Uint8Array(readFileSync(file(root, key)));
const put = (root, key, data) => writeFileSync(file(root, key), data);
const view = (b) => new DataView(b.buffer, b.byteOffset, b.byteLength);
const hex = (b) => Buffer.from(b).toString("hex");
function patch(root, key, offset, newBytes) {
  const b = bytes(root, key);
  const before = hex(b.subarray(offset, offset + newBytes.length));
  b.set(newBytes, offset);
  put(root, key, b);
  return `${key}: bytes at ${offset} ${before} -> ${hex(newBytes)}`;
}
const i32le = (v) => { const b = new Uint8Array(4); view(b).setInt32(0, v, true); return b; };
const i64le = (v) => { const b = new Uint8Array(8); view(b).setBigInt64(0, BigInt(v), true); return b; };
const editJson = (root, key, text) => { const before = readFileSync(file(root, key), "utf8").trim(); put(root, key, text); return `${key}: ${before} -> ${text.trim()}`; };

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const I4 = "carray_i4_n5000_cl1024"; // lz4, shuffle, 4 full chunks + leftover of 904 rows
const anyChunk = (n) => fc.integer({ min: 0, max: n - 1 });

// ---- malformed: blpk header -------------------------------------------------------------
makeCase({ name: "blpk_bad_magic", from: I4, category: "malformed", error: "BAD_MAGIC", rule: "v1.md §4: magic blpk",
  mutate: (r) => patch(r, `data/__${pick(anyChunk(5))}.blp`, 0, new TextEncoder().encode("blpx")) });
makeCase({ name: "blpk_version_2", from: I4, category: "malformed", error: "UNSUPPORTED_VERSION", rule: "v1.md §4: blpk version 1",
  mutate: (r) => patch(r, `data/__${pick(anyChunk(5))}.blp`, 4, [2]) });
makeCase({ name: "blpk_nchunks_3", from: I4, category: "malformed", error: "BAD_HEADER", rule: "v1.md §4: nchunks 1",
  mutate: (r) => patch(r, "data/__2.blp", 8, i64le(3)) });
makeCase({ name: "chunk_file_10_bytes", from: I4, category: "malformed", error: "TRUNCATED", rule: "v1.md §4.3: file shorter than its header",
  mutate: (r) => { const k = pick(anyChunk(5)); put(r, `data/__${k}.blp`, bytes(r, `data/__${k}.blp`).subarray(0, 10)); return `data/__${k}.blp cut to 10 bytes`; } });
makeCase({ name: "chunk_file_cut_in_body", from: I4, category: "malformed", error: "TRUNCATED", rule: "v1.md §4.3: file shorter than 16 + cbytes",
  mutate: (r) => { const b = bytes(r, "data/__1.blp"); const cut = pick(fc.integer({ min: 1, max: 64 })); put(r, "data/__1.blp", b.subarray(0, b.length - cut)); return `data/__1.blp: last ${cut} bytes removed`; } });

// ---- malformed: Blosc header ------------------------------------------------------------
makeCase({ name: "blosc_version_3", from: I4, category: "malformed", error: "UNSUPPORTED_VERSION", rule: "v1.md §5.1: Blosc version 2",
  mutate: (r) => patch(r, "data/__0.blp", 16, [3]) });
makeCase({ name: "blosc_versionlz_2", from: I4, category: "malformed", error: "UNSUPPORTED_VERSION", rule: "v1.md §5.1: versionlz 1 in a compressed chunk",
  mutate: (r) => patch(r, "data/__3.blp", 17, [2]) });
makeCase({ name: "blosc_reserved_flag", from: I4, category: "malformed", error: "BAD_HEADER", rule: "v1.md §5.2: flag bit 3 is 0",
  mutate: (r) => { const b = bytes(r, "data/__0.blp"); return patch(r, "data/__0.blp", 18, [b[18] | 0x08]); } });
makeCase({ name: "blosc_codec_7", from: I4, category: "malformed", error: "UNKNOWN_CODEC", rule: "v1.md §5.2: codec format code 0-4",
  mutate: (r) => { const b = bytes(r, "data/__1.blp"); return patch(r, "data/__1.blp", 18, [(b[18] & 0x1f) | (7 << 5)]); } });
makeCase({ name: "blosc_typesize_0", from: I4, category: "malformed", error: "BAD_HEADER", rule: "v1.md §5.1: typesize >= 1",
  mutate: (r) => patch(r, "data/__2.blp", 19, [0]) });
makeCase({ name: "blosc_blocksize_0", from: I4, category: "malformed", error: "BAD_HEADER", rule: "v1.md §5.1: 0 < blocksize <= nbytes",
  mutate: (r) => patch(r, "data/__0.blp", 24, i32le(0)) });
makeCase({ name: "blosc_nbytes_over_limit", from: I4, category: "malformed", error: "SIZE_LIMIT", rule: "v1.md §5.8: nbytes <= 2147483631 (a 2 GiB claim in a small file)",
  mutate: (r) => patch(r, "data/__0.blp", 20, i32le(0x7ffffff8)) });
makeCase({ name: "blosc_cbytes_negative", from: I4, category: "malformed", error: "BAD_HEADER", rule: "v1.md §5.1: cbytes >= 16",
  mutate: (r) => patch(r, "data/__1.blp", 28, i32le(-1)) });
makeCase({ name: "blosc_bstart_past_end", from: I4, category: "malformed", error: "BAD_HEADER", rule: "v1.md §5.4: bstarts inside the chunk",
  mutate: (r) => { const b = bytes(r, "data/__2.blp"); const cbytes = view(b).getInt32(28, true); return patch(r, "data/__2.blp", 32, i32le(cbytes + pick(fc.integer({ min: 1, max: 1000 })))); } });
makeCase({ name: "memcpyed_cbytes_mismatch", from: "codec_lz4_c0_s1_i4", category: "malformed", error: "BAD_HEADER", rule: "v1.md §5.3: memcpyed cbytes = nbytes + 16",
  mutate: (r) => { const b = bytes(r, "data/__0.blp"); const cbytes = view(b).getInt32(28, true); const grown = new Uint8Array(b.length + 4); grown.set(b); view(grown).setInt32(28, cbytes + 4, true); put(r, "data/__0.blp", grown); return `data/__0.blp: cbytes ${cbytes} -> ${cbytes + 4}, 4 zero bytes appended`; } });

// ---- malformed: streams -----------------------------------------------------------------
function firstStream(b, { compressed = false } = {}) {
  // Streams of block 0 start at bstarts[0] (offsets are chunk-relative). With `compressed`, skip
  // streams stored raw (csize == neblock): garbage in a raw stream is just different data.
  const chunk = b.subarray(16);
  const dv = view(chunk);
  const flags = chunk[2];
  const typesize = chunk[3];
  const nbytes = dv.getInt32(4, true);
  const blocksize = dv.getInt32(8, true);
  const block0 = Math.min(blocksize, nbytes);
  const split = (flags & 0x10) === 0 && typesize <= 16 && Math.floor(block0 / typesize) >= 128 && block0 === blocksize;
  const nsplits = split ? typesize : 1;
  const neblock = block0 / nsplits;
  let pos = dv.getInt32(16, true);
  for (let k = 0; k < nsplits; k++) {
    const csize = dv.getInt32(pos, true);
    if (!compressed || csize !== neblock) return { prefix: 16 + pos, csize };
    pos += 4 + csize;
  }
  throw new Error("no compressed stream in block 0");
}
makeCase({ name: "stream_csize_negative", from: I4, category: "malformed", error: "TRUNCATED", rule: "v1.md §5.5: csize within the chunk",
  mutate: (r) => { const { prefix } = firstStream(bytes(r, "data/__0.blp")); return patch(r, "data/__0.blp", prefix, i32le(-5)); } });
makeCase({ name: "stream_lz4_garbage", from: I4, category: "malformed", error: "CORRUPT_STREAM", rule: "v1.md §7.1: LZ4 stream decodes to neblock bytes",
  mutate: (r) => { const b = bytes(r, "data/__0.blp"); const { prefix, csize } = firstStream(b, { compressed: true }); return patch(r, "data/__0.blp", prefix + 4, new Uint8Array(csize).fill(0xff)); } });
makeCase({ name: "stream_zlib_bad_header", from: "codec_zlib_c5_s1_f8", category: "malformed", error: "CORRUPT_STREAM", rule: "v1.md §7.3: zlib stream",
  mutate: (r) => { const b = bytes(r, "data/__1.blp"); const { prefix } = firstStream(b, { compressed: true }); return patch(r, "data/__1.blp", prefix + 4, [0x00, 0x00]); } });
makeCase({ name: "stream_blosclz_far_before_start", from: "codec_blosclz_c5_s1_f8", category: "malformed", error: "CORRUPT_STREAM", rule: "v1.md §6: match source inside the output",
  mutate: (r) => { const b = bytes(r, "data/__0.blp"); const { prefix } = firstStream(b, { compressed: true }); return patch(r, "data/__0.blp", prefix + 4, [0x20, 0x00, 0x3f, 0xff, 0xff, 0xff]); } });

// ---- malformed: files and JSON -----------------------------------------------------------
makeCase({ name: "missing_chunk_file", from: I4, category: "malformed", error: "MISSING_FILE", rule: "v1.md §8: every needed chunk file exists",
  mutate: (r) => { const k = pick(anyChunk(5)); unlinkSync(file(r, `data/__${k}.blp`)); return `data/__${k}.blp deleted`; } });
makeCase({ name: "missing_meta_sizes", from: I4, category: "malformed", error: "MISSING_FILE", rule: "v1.md §3: meta/sizes exists",
  mutate: (r) => { unlinkSync(file(r, "meta/sizes")); return "meta/sizes deleted"; } });
makeCase({ name: "missing_attrs", from: I4, category: "malformed", error: "MISSING_FILE", rule: "v1.md §3: __attrs__ exists",
  mutate: (r) => { unlinkSync(file(r, "__attrs__")); return "__attrs__ deleted"; } });
makeCase({ name: "storage_bad_json", from: I4, category: "malformed", error: "BAD_JSON", rule: "v1.md §9: JSON dialect",
  mutate: (r) => editJson(r, "meta/storage", '{"dtype": "int32", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 1024, \n') });
makeCase({ name: "attrs_duplicate_key", from: I4, category: "malformed", error: "BAD_JSON", rule: "v1.md §9: no repeated keys",
  mutate: (r) => editJson(r, "__attrs__", '{"a": 1, "a": 2}\n') });

// ---- invalid: metadata -------------------------------------------------------------------
makeCase({ name: "storage_clevel_12", from: I4, category: "invalid", error: "BAD_METADATA", rule: "v1.md §11: clevel 0-9",
  mutate: (r) => editJson(r, "meta/storage", readFileSync(file(r, "meta/storage"), "utf8").replace('"clevel": 5', '"clevel": 12')) });
makeCase({ name: "sizes_negative_shape", from: I4, category: "invalid", error: "BAD_METADATA", rule: "v1.md §10: shape of non-negative integers",
  mutate: (r) => editJson(r, "meta/sizes", readFileSync(file(r, "meta/sizes"), "utf8").replace('"shape": [5000]', '"shape": [-5000]')) });
makeCase({ name: "attrs_not_object", from: I4, category: "invalid", error: "BAD_METADATA", rule: "v1.md §9: top-level object",
  mutate: (r) => editJson(r, "__attrs__", "[1, 2]\n") });
makeCase({ name: "storage_dtype_object", from: I4, category: "invalid", error: "UNSUPPORTED_DTYPE", rule: "v1.md §13: storable dtypes",
  mutate: (r) => editJson(r, "meta/storage", readFileSync(file(r, "meta/storage"), "utf8").replace('"dtype": "int32"', '"dtype": "object"')) });
makeCase({ name: "storage_dtype_complex", from: "carray_f8_n6000_cl1600", category: "invalid", error: "UNSUPPORTED_DTYPE", rule: "v1.md §13: complex cannot be stored by bcolz",
  mutate: (r) => editJson(r, "meta/storage", readFileSync(file(r, "meta/storage"), "utf8").replace('"dtype": "float64"', '"dtype": "complex64"')) });

// ---- invalid: cross-file rules ------------------------------------------------------------
makeCase({ name: "chunk_nbytes_differs_from_chunklen", from: "edge_f8_3chunks_plus_leftover", category: "invalid", error: "INCONSISTENT", rule: "v1.md §8: full chunk holds chunklen rows",
  mutate: (r) => { cpSync(file(r, "data/__3.blp"), file(r, "data/__0.blp")); return "data/__0.blp replaced by the 42-row leftover chunk data/__3.blp"; } });
// A claim past the adapter's read allowance (spec/conformance.md §1.2: 2^31 − 1 bytes), refused
// from the metadata alone: a reader that skips the check reaches the missing chunk files instead.
makeCase({ name: "sizes_over_read_allowance", from: I4, category: "invalid", error: "SIZE_LIMIT", rule: "v1.md §16 and conformance.md §1.2: a call over the read allowance fails before any chunk is read",
  mutate: (r) => editJson(r, "meta/sizes", readFileSync(file(r, "meta/sizes"), "utf8").replace('"shape": [5000], "nbytes": 20000', '"shape": [600000000], "nbytes": 2400000000')) });
// The leftover chunk's leniency (v1 §8.5) stops at chunksize: a memcpyed chunk of 1100 rows (the
// real leftover's 904 then zeros) in place of __4.blp, where the chunksize is 1024 rows.
makeCase({ name: "leftover_over_chunksize", from: I4, category: "malformed", error: "INCONSISTENT", rule: "v1.md §8.5: a larger leftover chunk holds at most chunksize bytes",
  mutate: (r) => {
    const rows = 1100, nbytes = rows * 4;
    const values = new Uint8Array(nbytes);
    values.set(readFileSync(join(real, I4, "expected", "values.bin")).subarray(4096 * 4, 5000 * 4));
    const chunk = new Uint8Array(16 + nbytes);
    chunk.set([2, 1, 0x02, 4]); // Blosc version 2, versionlz 1, flags: memcpyed, typesize 4
    view(chunk).setInt32(4, nbytes, true); view(chunk).setInt32(8, nbytes, true); view(chunk).setInt32(12, 16 + nbytes, true);
    chunk.set(values, 16);
    const blpk = bytes(r, "data/__4.blp").subarray(0, 16);
    const fileBytes = new Uint8Array(16 + chunk.length); fileBytes.set(blpk); fileBytes.set(chunk, 16);
    put(r, "data/__4.blp", fileBytes);
    return `data/__4.blp: a memcpyed chunk of ${rows} rows (${nbytes} bytes; chunksize 4096, leftover 904 rows)`;
  } });
makeCase({ name: "sizes_nbytes_wrong", from: I4, category: "invalid", error: "INCONSISTENT", rule: "v1.md §10: nbytes = len x atomsize",
  mutate: (r) => editJson(r, "meta/sizes", readFileSync(file(r, "meta/sizes"), "utf8").replace('"nbytes": 20000', '"nbytes": 20008')) });
makeCase({ name: "sizes_claims_more_rows", from: I4, category: "invalid", error: "INCONSISTENT", rule: "v1.md §8: chunk files hold the rows meta/sizes claims",
  mutate: (r) => editJson(r, "meta/sizes", readFileSync(file(r, "meta/sizes"), "utf8").replace('"shape": [5000], "nbytes": 20000', '"shape": [5120], "nbytes": 20480')) });
makeCase({ name: "ctable_column_length_differs", from: "ctable_mixed", category: "invalid", error: "INCONSISTENT", rule: "v1.md §12.3: columns have one length",
  mutate: (r) => editJson(r, "qty/meta/sizes", readFileSync(file(r, "qty/meta/sizes"), "utf8").replace('"shape": [4321], "nbytes": 17284', '"shape": [4000], "nbytes": 16000')) });
makeCase({ name: "ctable_name_climbs_out", from: "ctable_mixed", category: "invalid", error: "UNSAFE_NAME", rule: "v1.md §12.2: column names are identifiers",
  mutate: (r) => editJson(r, "__rootdirs__", '{"names": ["id", "../price", "qty", "flag", "sym", "ts", "code", "ratio"]}\n') });
makeCase({ name: "ctable_name_with_slash", from: "blosc114_ctable_mixed", category: "invalid", error: "UNSAFE_NAME", rule: "v1.md §12.2: column names are identifiers",
  mutate: (r) => editJson(r, "__rootdirs__", '{"names": ["i", "f/x", "s"]}\n') });
makeCase({ name: "ctable_names_repeated", from: "blosc114_ctable_mixed", category: "invalid", error: "BAD_METADATA", rule: "v1.md §12.2: names are distinct",
  mutate: (r) => editJson(r, "__rootdirs__", '{"names": ["i", "f", "s", "i"]}\n') });
makeCase({ name: "storage_dflt_wrong_type", from: I4, category: "invalid", error: "BAD_METADATA", rule: "v1.md §11.2: dflt of a JSON type that fits the dtype kind (§16)",
  mutate: (r) => { const text = readFileSync(file(r, "meta/storage"), "utf8"); return editJson(r, "meta/storage", text.replace(/"dflt": [^}]*\}/, '"dflt": "x"}')); } });
makeCase({ name: "ctable_names_empty", from: "blosc114_ctable_mixed", category: "invalid", error: "BAD_METADATA", rule: "v1.md §12.2: at least one column",
  mutate: (r) => editJson(r, "__rootdirs__", '{"names": []}\n') });
makeCase({ name: "ctable_missing_column_dir", from: "blosc114_ctable_mixed", category: "malformed", error: "MISSING_FILE", rule: "v1.md §3: every named column exists",
  mutate: (r) => editJson(r, "__rootdirs__", '{"names": ["i", "f", "s", "ghost"]}\n') });

// Issue 9 items 6 and 7 (found by a hostile-input probe): these read with exit 0 (or, for the long
// name, an untyped ENAMETOOLONG) before readers applied the whole of §10 and §12.2.
makeCase({ name: "sizes_trailing_dim_zero", from: I4, category: "invalid", error: "BAD_METADATA", rule: "v1.md §10: trailing dimensions are at least 1",
  mutate: (r) => editJson(r, "meta/sizes", readFileSync(file(r, "meta/sizes"), "utf8").replace('"shape": [5000], "nbytes": 20000', '"shape": [5000, 0], "nbytes": 0')) });
makeCase({ name: "ctable_name_leading_digit", from: "blosc114_ctable_mixed", category: "invalid", error: "UNSAFE_NAME", rule: "v1.md §12.2: column names are identifiers",
  mutate: (r) => { renameSync(file(r, "f"), file(r, "1f")); return `column directory f renamed to 1f; ${editJson(r, "__rootdirs__", '{"names": ["i", "1f", "s"]}\n')}`; } });
makeCase({ name: "ctable_name_with_space", from: "blosc114_ctable_mixed", category: "invalid", error: "UNSAFE_NAME", rule: "v1.md §12.2: column names are identifiers",
  mutate: (r) => { renameSync(file(r, "f"), file(r, "f x")); return `column directory f renamed to "f x"; ${editJson(r, "__rootdirs__", '{"names": ["i", "f x", "s"]}\n')}`; } });
makeCase({ name: "ctable_name_control_char", from: "blosc114_ctable_mixed", category: "invalid", error: "UNSAFE_NAME", rule: "v1.md §12.2: column names are identifiers",
  mutate: (r) => editJson(r, "__rootdirs__", '{"names": ["i", "f\\u0001x", "s"]}\n') });
makeCase({ name: "ctable_name_too_long", from: "blosc114_ctable_mixed", category: "invalid", error: "UNSAFE_NAME", rule: "v1.md §12.2: column names are at most 255 characters",
  mutate: (r) => editJson(r, "__rootdirs__", `{"names": ["i", "${"x".repeat(300)}", "s"]}\n`) });

// ---- valid: what readers must tolerate --------------------------------------------------
makeCase({ name: "valid_append_journal_shortens", from: "ctable_addcol", category: "valid", keepRows: 2000, rule: "v1.md §8.5: while .append exists and every column has at least its length, that is the table's length",
  mutate: (r) => { writeFileSync(file(r, ".append"), '{"format": 1, "length": 2000}\n'); return ".append {\"format\": 1, \"length\": 2000} added (columns hold 3000 rows: an append in progress)"; } });
makeCase({ name: "valid_trailing_bytes_after_chunk", from: I4, category: "valid", validAsSource: true, rule: "v1.md §4.3: bytes after cbytes are ignored",
  mutate: (r) => { const extra = Uint8Array.from(pick(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 64 }))); appendFileSync(file(r, "data/__1.blp"), extra); return `data/__1.blp: ${extra.length} random bytes appended`; } });
makeCase({ name: "valid_stale_chunk_files", from: "trim_f4", category: "valid", validAsSource: true, rule: "v1.md §8: files beyond the length are never read",
  mutate: (r) => { const junk = Uint8Array.from(pick(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 0, maxLength: 100 }))); writeFileSync(file(r, "data/__7.blp"), junk); writeFileSync(file(r, "data/__41.blp"), new TextEncoder().encode("not a chunk")); return "garbage files data/__7.blp and data/__41.blp added"; } });
makeCase({ name: "valid_blpk_reserved_nonzero", from: I4, category: "valid", validAsSource: true, rule: "v1.md §4: reserved header bytes are ignored",
  mutate: (r) => patch(r, "data/__0.blp", 5, [0xaa, 0xbb, 0xcc]) });
makeCase({ name: "valid_old_cparams_spelling", from: "codec_blosclz_c5_s1_f8", category: "valid", validAsSource: true, rule: "v1.md §11: bcolz <= 1.0 wrote shuffle as true and no cname (cname defaults to blosclz)",
  mutate: (r) => editJson(r, "meta/storage", readFileSync(file(r, "meta/storage"), "utf8").replace('"cparams": {"clevel": 5, "shuffle": 1, "cname": "blosclz", "quantize": 0}', '"cparams": {"clevel": 5, "shuffle": true}')) });

const manifest = {
  format: "bcolz-1x corpus manifest v1",
  set: "bcolz-broken",
  seed: SEED,
  generator: "conformance/generators/v1-broken.mjs (fast-check choices from the seed) applied to bcolz-real",
  notes: [
    "each case applies one mutation to a real bcolz dataset (derived_from) and breaks exactly one rule (rule)",
    "invalid/malformed cases carry expect.error, the code of spec/errors.md; valid cases keep the source's logical content and expectations",
  ],
  cases,
};
writeFileSync(join(out, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
console.log(`${cases.length} cases written to ${out}`);
