"""Variants of the Python reader for the corpus's mutation score (mutation_score.py).

Each variant drops one rule of the spec (a check skipped, a field not validated, a checksum not
verified, a leniency the spec forbids) or answers one of the spec's former open questions the
other way. It is written as a small source patch: in one function of pyreader, replace one
snippet (which must occur exactly once) by another; the patched function is compiled in its
module's namespace and swapped in for the original everywhere pyreader refers to it, then
restored. A patch whose snippet no longer matches raises StalePatch, so the list cannot silently
go stale when the reader changes.

The list was drawn from the MUSTs of spec/v1.md, spec/v2.md and spec/errors.md, not tuned to
what the corpus catches.
"""

import contextlib
import inspect
import sys
import textwrap

from pyreader import chunks, dtypes, jsondialect, reader, reader2, superchunk

MODULES = (chunks, dtypes, jsondialect, reader, reader2, superchunk)


class StalePatch(Exception):
    pass


class Patch:
    """In `module`, function or method `qualname` ("f" or "Class.method"), replace each snippet
    `old` by `new` (pairs old, new, old2, new2, ...). Snippets carry the file's own indentation."""

    def __init__(self, module, qualname, *pairs):
        assert pairs and len(pairs) % 2 == 0
        self.module, self.qualname = module, qualname
        self.pairs = list(zip(pairs[0::2], pairs[1::2]))

    def _target(self):
        owner = self.module
        parts = self.qualname.split(".")
        for part in parts[:-1]:
            owner = getattr(owner, part)
        return owner, parts[-1], vars(owner)[parts[-1]]

    def build(self):
        owner, name, original = self._target()
        src = inspect.getsource(original)
        for old, new in self.pairs:
            count = src.count(old)
            if count != 1:
                raise StalePatch("%s.%s: snippet found %d times, expected once:\n%s"
                                 % (self.module.__name__, self.qualname, count, old))
            src = src.replace(old, new)
        namespace = {}
        code = compile(textwrap.dedent(src), "<variant of %s.%s>" % (self.module.__name__, self.qualname),
                       "exec")
        exec(code, self.module.__dict__, namespace)
        return owner, name, original, namespace[name]


def _swap(original, replacement):
    """Rebind every module-level or class-level name in pyreader bound to `original`."""
    undo = []
    for mod in MODULES:
        for key, value in list(vars(mod).items()):
            if value is original:
                undo.append((mod, key, value))
                setattr(mod, key, replacement)
            elif inspect.isclass(value) and value.__module__ == mod.__name__:
                for attr, member in list(vars(value).items()):
                    if member is original:
                        undo.append((value, attr, member))
                        setattr(value, attr, replacement)
    return undo


class Variant:
    """`equivalent`, when given, says why no dataset can tell the variant from the reader under the
    runner's comparison (error codes, values, metadata); such variants are listed but not scored."""

    def __init__(self, name, rule, *patches, equivalent=None):
        self.name, self.rule, self.patches, self.equivalent = name, rule, patches, equivalent

    @contextlib.contextmanager
    def applied(self):
        undo = []
        try:
            for p in self.patches:
                _owner, _name, original, replacement = p.build()
                undo.extend(_swap(original, replacement))
            yield
        finally:
            for owner, key, value in reversed(undo):
                setattr(owner, key, value)


def check_all_apply(variants):
    for v in variants:
        for p in v.patches:
            p.build()


P = Patch

VARIANTS = [
    # ---------------- JSON dialect (v1.md section 9.1) ----------------
    Variant("json_repeated_key_kept",
            "v1 §9.1: an object with the same key twice MUST be BAD_JSON (variant keeps the last, as Python)",
            P(jsondialect, "parse", """\
                if key in top.keys:
                    fail("repeated key %r" % key)""", """\
                if False:
                    pass""")),
    Variant("json_bom_accepted",
            "v1 §9.1: a byte-order mark MUST be BAD_JSON (variant skips it)",
            P(jsondialect, "parse", """\
    if raw.startswith(b"\\xef\\xbb\\xbf"):
        fail("byte-order mark")""", """\
    if raw.startswith(b"\\xef\\xbb\\xbf"):
        raw = raw[3:]""")),
    Variant("json_trailing_text_ignored",
            "v1 §9.1: anything but one JSON value plus whitespace MUST be BAD_JSON (variant ignores trailing text)",
            P(jsondialect, "parse", """\
    if pos != n:
        fail("trailing data at offset %d" % pos)""", """\
    pass""")),
    Variant("json_big_int_rounded",
            "v1 §9.1: integers of any size MUST be kept exact (variant reads integers as doubles)",
            P(jsondialect, "parse", """\
        if is_int:
            return int(tok), p""", """\
        if is_int:
            v = int(tok)
            return (v if abs(v) <= 2 ** 53 else int(float(tok))), p"""),
            equivalent="the runner parses result.json and the manifests with JSON.parse, which rounds "
                       "integers beyond 2^53 on both sides; conformance.md §1.2's 'all their digits' is "
                       "not checked"),

    # ---------------- v1 metadata: meta/storage, meta/sizes, __attrs__, dtypes ----------------
    Variant("v1_nbytes_not_checked",
            "v1 §10: readers MUST check nbytes = len × atomsize (INCONSISTENT)",
            P(reader, "Carray._load", """\
        if self.nbytes != self.len * atomsize:""", """\
        if False:""")),
    Variant("v1_trailing_dim_zero_accepted",
            "v1 §10: trailing dimensions MUST be >= 1 (BAD_METADATA)",
            P(reader, "Carray._check_sizes", """\
            if d < 1:""", """\
            if d < 0:""")),
    Variant("v1_cparams_not_validated",
            "v1 §11.1: clevel 0-9, shuffle 0/1/2/true/false, known cname; anything else BAD_METADATA "
            "(variant takes cparams as written)",
            P(reader, "Carray._check_cparams", """\
        if not is_int(clevel) or not 0 <= clevel <= 9:""", """\
        return {"clevel": clevel, "shuffle": int(cp.get("shuffle", 0)) if not isinstance(cp.get("shuffle"), (list, dict, str, type(None))) else cp.get("shuffle"), "cname": cp.get("cname", "blosclz")}
        if not is_int(clevel) or not 0 <= clevel <= 9:""")),
    Variant("v1_dflt_type_not_checked",
            "v1 §11.2: a dflt of a JSON type that does not fit the dtype kind is BAD_METADATA",
            P(reader, "Carray._check_storage", """\
        if not dflt_fits(self.dtype.kind, dflt):""", """\
        if False:""")),
    Variant("v1_dtype_other_spellings_accepted",
            "v1 §13: any string outside the listed spellings MUST be UNSUPPORTED_DTYPE "
            "(variant accepts whatever numpy parses)",
            P(dtypes, "parse_dtype", """\
    m = _CODE_RE.fullmatch(text)
    if not m:
        raise bad()
""", """\
    m = _CODE_RE.fullmatch(text)
    if not m:
        try:
            import numpy as np
            d = np.dtype(text)
        except Exception:
            raise bad()
        if d.kind not in "biufSUMV" or d.shape != () or d.names:
            raise bad()
        return Dtype(d.str, d.kind, d.itemsize, 0)
""")),
    Variant("v1_attrs_not_object_accepted",
            "v1 §12.1: a top-level __attrs__ value that is not an object is BAD_METADATA",
            P(reader, "Carray._load", """\
        if not isinstance(attrs, dict):
            raise _meta_error(p, "__attrs__", "attrs", "top-level value is not an object")""", """\
        if not isinstance(attrs, dict):
            attrs = {}""")),
    Variant("v1_missing_attrs_accepted",
            "v1 §12.1: readers MUST report a missing __attrs__ as MISSING_FILE (variant uses {})",
            P(reader, "Carray._load", """\
        attrs = _load_json(self.root, "__attrs__", p)""", """\
        attrs = _load_json(self.root, "__attrs__", p) if _read(self.root, "__attrs__") is not None else {}""")),

    # ---------------- v1 ctables ----------------
    Variant("v1_rootdirs_names_unchecked",
            "v1 §12.2: each column name MUST be an identifier of at most 255 bytes, not __attrs__/"
            "__rootdirs__ (UNSAFE_NAME) (variant only refuses '/' and '..')",
            P(reader, "_check_names", """\
        if (not NAME_RE.fullmatch(name) or len(name.encode("utf-8")) > 255
                or name in ("__attrs__", "__rootdirs__")):""", """\
        if "/" in name or name in ("", ".", ".."):""")),
    Variant("v1_ctable_unequal_lengths_accepted",
            "v1 §12.3: all columns MUST have the same shape[0] (INCONSISTENT) (variant takes the shortest)",
            P(reader, "_read_ctable", """\
        elif all(x == lens[0] for x in lens):
            length = lens[0]
            break""", """\
        else:
            length = min(lens)
            break""")),
    Variant("v1_append_journal_ignored",
            "v1 §8.5: while .append exists and every column has at least its length, that is the "
            "table's length (variant ignores .append)",
            P(reader, "_read_ctable", """\
        raw = _read(root, ".append")""", """\
        raw = None""")),

    # ---------------- v1 chunk files: blpk and Blosc containers ----------------
    Variant("v1_missing_chunk_reads_dflt",
            "v1 §8.1: a chunk file the length requires MUST be present (MISSING_FILE) (variant fills zeros)",
            P(reader, "Carray.read_values", """\
            if buf is None:
                raise FormatError("MISSING_FILE", "%s%s is missing" % (self.prefix, rel),
                                  path=self.prefix + rel)""", """\
            if buf is None:
                pieces.append(bytes(chunksize if k < nfull else rest * self.atomsize))
                continue""")),
    Variant("v1_blpk_magic_not_checked",
            "v1 §4.3 step 2: bytes 0-3 MUST be 'blpk' (BAD_MAGIC)",
            P(chunks, "decode_chunk_file", """\
    if buf[0:4] != b"blpk":""", """\
    if False:""")),
    Variant("v1_blpk_version_not_checked",
            "v1 §4.3 step 3: byte 4 MUST be 1 (UNSUPPORTED_VERSION)",
            P(chunks, "decode_chunk_file", """\
    if buf[4] != 1:""", """\
    if False:""")),
    Variant("v1_blpk_nchunks_not_checked",
            "v1 §4.3 step 4: blpk nchunks MUST be 1 (BAD_HEADER)",
            P(chunks, "decode_chunk_file", """\
    if nchunks != 1:""", """\
    if False:""")),
    Variant("chunk_cbytes_past_file_accepted",
            "v1 §4.3 step 7, v2 §7.4 step 2: the chunk's cbytes bytes MUST be in the file (TRUNCATED) "
            "(variant leaves it to the decoder)",
            P(chunks, "check_blosc_header", """\
    if available is not None and cbytes > available:""", """\
    if False:""")),
    Variant("v1_leftover_leniency_dropped",
            "v1 §8.5: a leftover chunk with more rows (multiple of atomsize, <= chunksize) MUST be accepted "
            "(variant requires the exact size)",
            P(chunks, "decode_chunk_file", """\
        if leftover_max is not None:""", """\
        if False:""")),
    Variant("v1_leftover_leniency_unbounded",
            "v1 §8.5: the lenient leftover chunk MUST hold at most chunksize bytes, a multiple of atomsize "
            "(variant accepts any larger size)",
            P(chunks, "decode_chunk_file", """\
            ok = nbytes > expected and nbytes % atomsize == 0 and nbytes <= chunksize""", """\
            ok = nbytes > expected""")),
    Variant("v1_chunk_nbytes_not_checked",
            "v1 §8.1: a chunk's nbytes MUST equal its expected size (INCONSISTENT) (variant trusts the chunk)",
            P(chunks, "decode_chunk_file", """\
        if not ok:
            raise err("INCONSISTENT", "blosc.nbytes",""", """\
        if not ok and nbytes < expected:
            raise err("INCONSISTENT", "blosc.nbytes",""")),
    Variant("blosc_version_not_checked",
            "v1 §5.1: Blosc version byte MUST be 2 (UNSUPPORTED_VERSION)",
            P(chunks, "check_blosc_header", """\
    if version != 2:""", """\
    if False:""")),
    Variant("blosc_reserved_flag_ignored",
            "v1 §5.2: flag bit 3 is reserved, set is BAD_HEADER",
            P(chunks, "check_blosc_header", """\
    if flags & 0x08:""", """\
    if False:""")),
    Variant("blosc_typesize_zero_accepted",
            "v1 §5.1: typesize 0 is BAD_HEADER",
            P(chunks, "check_blosc_header", """\
    if typesize == 0:""", """\
    if False:""")),
    Variant("blosc_blocksize_range_not_checked",
            "v1 §5.1: blocksize MUST be in [1, nbytes] when nbytes > 0 (BAD_HEADER)",
            P(chunks, "check_blosc_header", """\
    if blocksize == 0:""", """\
    if False:""", """\
    if blocksize > nbytes:""", """\
    if False:""")),
    Variant("blosc_size_limit_not_checked",
            "v1 §5.8: nbytes > 2,147,483,631 or blocksize > 715,827,542 is SIZE_LIMIT",
            P(chunks, "check_blosc_header", """\
    if nbytes > NBYTES_LIMIT or nbytes > allowance:""", """\
    if False:""")),
    Variant("blosc_unknown_codec_as_corrupt",
            "errors.md/v1 §5.2: a codec format code above 4 MUST be UNKNOWN_CODEC "
            "(variant leaves it to the decoder: CORRUPT_STREAM)",
            P(chunks, "check_blosc_header", """\
    if codec > 4:""", """\
    if False:""")),
    Variant("blosc_memcpyed_cbytes_not_checked",
            "v1 §5.3: a memcpyed chunk MUST have cbytes = nbytes + 16 (BAD_HEADER)",
            P(chunks, "check_blosc_header", """\
        if cbytes != nbytes + 16:""", """\
        if False:""")),
    Variant("blosc_bstarts_not_checked",
            "v1 §5.4: each bstart MUST lie in [16 + 4·nblocks, cbytes − 4] (BAD_HEADER)",
            P(chunks, "decode_blosc_body", """\
        if bstart < table_end or bstart > cbytes - 4:""", """\
        if False:""")),
    Variant("blosc_stream_bounds_not_checked",
            "v1 §5.5: every stream's csize prefix and payload MUST lie inside cbytes (TRUNCATED)",
            P(chunks, "decode_blosc_body", """\
            if csize < 0 or pos + 4 + csize > cbytes:""", """\
            if False:""")),
    Variant("blosc_decoded_length_not_checked",
            "v1 §5.5: a stream MUST decode to exactly neblock bytes (CORRUPT_STREAM) "
            "(variant pads or cuts the decoded chunk)",
            P(chunks, "decode_blosc_body", """\
    if len(out) != nbytes:
        raise err("CORRUPT_STREAM", "blosc.stream",
                  "decoded %d bytes, header says %d" % (len(out), nbytes))""", """\
    out = bytes(out[:nbytes]).ljust(nbytes, b"\\0")"""),
            equivalent="python-blosc's decompress returns exactly the header's nbytes or raises"),
    Variant("v1_allowance_not_checked",
            "v1 §16: the read allowance MUST be checked from the metadata before any chunk is read (SIZE_LIMIT)",
            P(reader, "_check_allowance", """\
    if total_bytes > MAX_READ_BYTES:""", """\
    return
    if total_bytes > MAX_READ_BYTES:""")),

    Variant("blosc_versionlz_not_checked",
            "v1 §5.1: versionlz MUST be 1 unless the chunk is memcpyed (UNSUPPORTED_VERSION)",
            P(chunks, "check_blosc_header", """\
    if versionlz != 1:""", """\
    if False:""")),
    Variant("blosc_cbytes_below_16_accepted",
            "v1 §5.1: cbytes < 16 is BAD_HEADER",
            P(chunks, "check_blosc_header", """\
    if cbytes < 16:""", """\
    if False:""")),
    Variant("json_invalid_utf8_replaced",
            "v1 §9.1: invalid UTF-8 MUST be BAD_JSON (variant decodes with replacement characters)",
            P(jsondialect, "parse", """\
        text = raw.decode("utf-8", errors="strict")""", """\
        text = raw.decode("utf-8", errors="replace")""")),
    Variant("v1_rootdirs_duplicates_accepted",
            "v1 §12.2: names MUST be distinct (BAD_METADATA)",
            P(reader, "_check_names", """\
    if len(set(names)) != len(names):""", """\
    if False:""")),
    Variant("values_not_swapped",
            "conformance.md §1.2: value files are little-endian; big-endian dtypes (v1 §13) are swapped "
            "(variant writes the stored byte order)",
            P(reader, "_swap_to_little", """\
    if not dtype.big_endian or not data:""", """\
    if True:""")),
    # ---------------- v2: version dispatch and meta/storage ----------------
    Variant("v2_unknown_version_read_as_v1",
            "v2 §3.1: a format_version other than 1 or 2 MUST be UNSUPPORTED_VERSION (variant reads it as v1)",
            P(reader, "read_dataset", """\
        if not (is_int(fv) and fv == 1):""", """\
        if False:""")),
    Variant("v2_version_2_0_accepted",
            "v2 §15.1 item 2: format_version is the token 2; 2.0 is UNSUPPORTED_VERSION (variant compares numerically)",
            P(reader, "read_dataset", """\
        if is_int(fv) and fv == 2:""", """\
        if type(fv) in (int, float) and fv == 2:""")),
    Variant("v2_storage_keys_optional",
            "v2 §10.1: superchunksize, checksum and spare are required (BAD_METADATA) (variant defaults them)",
            P(reader2, "Carray2._check_storage", """\
            if key not in st:
                raise bad(key, "required key %r missing" % key)""", """\
            if key not in st and key in ("superchunksize", "checksum", "spare"):
                continue
            if key not in st:
                raise bad(key, "required key %r missing" % key)""")),
    Variant("v2_kind_not_checked",
            "v2 §15.1 item 1: a kind other than the context requires is BAD_METADATA (variant reads any kind as carray)",
            P(reader2, "_open_root", """\
    if kind == "carray":""", """\
    if kind not in ("vlarray",):"""),
            P(reader2, "Carray2._check_storage", """\
            if key == "kind" and v != "carray":""", """\
            if key == "kind" and v in ("vlarray", "ctable"):""")),
    Variant("v2_column_version_not_checked",
            "v2 §11/§15.1 item 2: a column's own format_version MUST be 2 (INCONSISTENT) (variant reads v1 columns)",
            P(reader2, "_open_column", """\
    if not (is_int(fv) and fv == 2):
        raise _inconsistent(prefix + "meta/storage", "/format_version",
                            "column %r has format_version %r, not 2" % (name, fv))""", """\
    if not (is_int(fv) and fv == 2):
        raise _meta_error(prefix, "meta/storage", "/format_version", "not 2")""")),
    Variant("v2_journal_not_validated",
            "v2 §13.4/§15: .journal MUST follow its schema (BAD_METADATA) (variant ignores a bad one)",
            P(reader2, "Carray2._load_journal", """\
        j = jsondialect.parse(raw, p + rel)""", """\
        try:
            j = jsondialect.parse(raw, p + rel)
        except FormatError:
            return set()
        if not isinstance(j, dict) or j.get("format") != 2 or not isinstance(j.get("chunks"), list):
            return set()
        j = {"format": 2, "chunks": [c for c in j["chunks"] if isinstance(c, list) and len(c) == 2]}""")),
    Variant("v2_journal_next_ignored",
            "v2 §13.4: while .journal lists a chunk, a reader MUST read it from its .next file",
            P(reader2, "Carray2.read_values", """\
                if (s, i) in self.journal:""", """\
                if False:""")),

    # ---------------- v2: superchunk header and metadata section ----------------
    Variant("v2_header_version_not_checked",
            "v2 §4.3 step 3: blpk version byte MUST be 2 in a superchunk (UNSUPPORTED_VERSION)",
            P(superchunk, "parse_header", """\
    if buf[4] != 2:""", """\
    if False:""")),
    Variant("v2_header_options_not_checked",
            "v2 §4.3: options bits 2-7 MUST be zero (BAD_HEADER)",
            P(superchunk, "parse_header", """\
    if h.options & 0xFC:""", """\
    if False:"""),
            equivalent="in a dataset, §10.4's options = 0x03 check reports the same BAD_HEADER; "
                       "only the field differs, which the runner does not compare"),
    Variant("v2_header_checksum_id_not_checked",
            "v2 §4.3 step 6: checksum id above 8 is BAD_HEADER",
            P(superchunk, "parse_header", """\
    if h.checksum > 8:""", """\
    if False:""")),
    Variant("v2_header_reserved_not_checked",
            "v2 §4.3 step 8: reserved bytes 28-31 MUST be zero (BAD_HEADER)",
            P(superchunk, "parse_header", """\
    if buf[28:32] != b"\\0\\0\\0\\0":""", """\
    if False:""")),
    Variant("v2_header_last_chunk_not_checked",
            "v2 §4.2: last-chunk MUST be -1 or in [0, chunk-size] (BAD_HEADER)",
            P(superchunk, "parse_header", """\
    if h.last_chunk != -1 and h.chunk_size != -1 and h.last_chunk > h.chunk_size:""", """\
    if False:""")),
    Variant("v2_meta_section_not_validated",
            "v2 §5: capacity 0-65536 and first_chunk >= 0 integers (BAD_METADATA) (variant skips the schema)",
            P(superchunk, "parse_meta", """\
    if "capacity" in meta:
        cap = meta["capacity"]""", """\
    if False:
        cap = meta["capacity"]""")),
    Variant("v2_meta_absent_defaults",
            "v2 §15.1 item 3: capacity and first_chunk are REQUIRED in a dataset superchunk (INCONSISTENT) "
            "(variant applies §5's stand-alone defaults)",
            P(reader2, "Carray2.read_values", """\
            capacity = meta.get("capacity")""", """\
            capacity = meta.get("capacity", h.nchunks)""", """\
            fc = meta.get("first_chunk")""", """\
            fc = meta.get("first_chunk", 0)""")),

    Variant("v2_capacity_below_nchunks_accepted",
            "v2 §5: capacity below nchunks is BAD_METADATA",
            P(superchunk, "parse_meta", """\
    if "capacity" in meta and h.nchunks != -1 and meta["capacity"] < h.nchunks:""", """\
    if False:""")),
    Variant("v2_meta_truncation_not_checked",
            "v2 §5: a file shorter than 32 + meta-size is TRUNCATED (variant parses what is there)",
            P(superchunk, "parse_meta", """\
    if len(buf) < end:""", """\
    if False:""")),
    # ---------------- v2: dataset superchunk (§10.4) and offsets (§7.1) ----------------
    Variant("v2_missing_superchunk_zero_filled",
            "v2 §10.4: a required superchunk MUST be present (MISSING_FILE) (variant reads it as dflt rows)",
            P(reader2, "Carray2.read_values", """\
            if buf is None:
                raise FormatError("MISSING_FILE", "%s is missing" % path, path=path)""", """\
            if buf is None:
                k = N - (s - 1) * S
                pieces.append(bytes(min(length - (s - 1) * S * chunklen, S * chunklen) * atomsize))
                continue""")),
    Variant("v2_dataset_options_not_checked",
            "v2 §10.4: a dataset superchunk MUST have options 0x03 (BAD_HEADER)",
            P(reader2, "Carray2.read_values", """\
            if h.options != 0x03:""", """\
            if False:""")),
    Variant("v2_meta_alignment_not_checked",
            "v2 §5/§10.4: 32 + meta-size MUST be a multiple of 8 (BAD_HEADER)",
            P(reader2, "Carray2.read_values", """\
            if (32 + h.meta_size) % 8:""", """\
            if False:""")),
    Variant("v2_chunk_size_not_checked",
            "v2 §10.4: chunk-size MUST equal chunklen × atomsize (INCONSISTENT)",
            P(reader2, "Carray2.read_values", """\
            if h.chunk_size != chunksize:""", """\
            if False:""")),
    Variant("v2_nchunks_not_checked",
            "v2 §10.4: nchunks MUST be >= n_s (INCONSISTENT)",
            P(reader2, "Carray2.read_values", """\
            if h.nchunks < n_s:""", """\
            if False:""")),
    Variant("v2_first_chunk_not_checked",
            "v2 §10.4: first_chunk MUST be (s − 1)·S (INCONSISTENT)",
            P(reader2, "Carray2.read_values", """\
            if fc != (s - 1) * S:""", """\
            if False:""")),
    Variant("v2_offsets_range_not_checked",
            "v2 §7.1: a live entry MUST lie in [start of data, file length − 16] (BAD_HEADER)",
            P(superchunk, "read_offsets", """\
        if off < data_start or off > len(buf) - 16:""", """\
        if False:""")),
    Variant("v2_offsets_truncation_not_checked",
            "v2 §7.1: a file that ends inside the live entries is TRUNCATED",
            P(superchunk, "read_offsets", """\
    if len(buf) < start + 8 * h.nchunks:""", """\
    if False:""")),
    Variant("v2_chunk_nbytes_vs_chunk_size_not_checked",
            "v2 §7.4 step 3: a non-last chunk MUST have nbytes = chunk-size (BAD_HEADER)",
            P(superchunk, "read_chunk", """\
        if not is_last and bh.nbytes != h.chunk_size:""", """\
        if False:""")),
    Variant("v2_dataset_nbytes_rule_dropped",
            "v2 §10.4: a required chunk's nbytes MUST match chunklen and the length (INCONSISTENT)",
            P(superchunk, "read_chunk", """\
    if check_nbytes is not None:""", """\
    if False:""")),
    Variant("v2_nbytes_rule_after_decoding",
            "v2 §15.1 item 6: §10.4's nbytes rule sits before decompression "
            "(variant checks it after decoding, as the reader once did)",
            P(superchunk, "read_chunk", """\
    if check_nbytes is not None:
        check_nbytes(bh.nbytes)
    return bh, decode_blosc_body(chunk, bh, path)""", """\
    payload = decode_blosc_body(chunk, bh, path)
    if check_nbytes is not None:
        check_nbytes(bh.nbytes)
    return bh, payload""")),
    Variant("v2_leftover_leniency_dropped",
            "v2 §10.4: the last required chunk may hold more rows (multiple of atomsize, <= chunksize) "
            "(variant requires the exact size)",
            P(reader2, "Carray2._nbytes_rule", """\
                ok = nbytes % atomsize == 0 and want <= nbytes <= chunksize""", """\
                ok = nbytes == want""")),

    # ---------------- v2: checksums (§6) ----------------
    Variant("v2_checksum_not_verified",
            "v2 §6/§7.4 step 4: the stored checksum MUST match (CHECKSUM_MISMATCH)",
            P(superchunk, "read_chunk", """\
    if stored != actual:""", """\
    if False:""")),
    Variant("v2_checksum_not_bound",
            "v2 §6 binding: with a metadata section the checksum is XORed with the global index "
            "(variant compares the plain checksum)",
            P(superchunk, "read_chunk", """\
    if g is not None:
        actual = bind(actual, g)""", """\
    pass""")),
    Variant("v2_checksum_bound_to_local_index",
            "v2 §6 binding: the index is the GLOBAL one, first_chunk + i (variant binds the local index)",
            P(reader2, "Carray2.read_values", """\
                g = fc + i""", """\
                g = i""")),
    Variant("v2_checksum_truncation_not_checked",
            "v2 §7.4 step 4: a file ending before the checksum is TRUNCATED (variant compares what is there)",
            P(superchunk, "read_chunk", """\
    if end + csize > len(buf):""", """\
    if False:""")),

    # ---------------- v2: ctables and vlarrays (§11, §12) ----------------
    Variant("v2_column_names_unchecked",
            "v2 §11: column names MUST be ASCII identifiers, not __attrs__/__rootdirs__ (UNSAFE_NAME)",
            P(reader2, "_check_columns", """\
        if (not NAME_RE.fullmatch(name) or not name.isascii() or len(name) > 255
                or name in ("__attrs__", "__rootdirs__")):""", """\
        if "/" in name or name in ("", ".", ".."):""")),
    Variant("v2_columns_duplicates_accepted",
            "v2 §11: columns MUST be distinct (BAD_METADATA)",
            P(reader2, "_check_columns", """\
    if len(set(names)) != len(names):""", """\
    if False:""")),
    Variant("v2_ctable_unequal_lengths_accepted",
            "v2 §11: all columns MUST have the same length (INCONSISTENT) (variant takes the shortest)",
            P(reader2, "_read_ctable", """\
        elif all(x == lens[0] for x in lens):
            length = lens[0]
            break""", """\
        else:
            length = min(lens)
            break""")),
    Variant("v2_vlarray_offsets_dtype_not_checked",
            "v2 §12: offsets/ MUST be a one-dimensional <i8 carray (INCONSISTENT)",
            P(reader2, "Vlarray.__init__", """\
        if o.dtype.str != "<i8" or len(o.shape) != 1:""", """\
        if False:""")),
    Variant("v2_vlarray_values_dtype_not_checked",
            "v2 §12: values/ of a utf8 or bytes vlarray MUST be a one-dimensional |u1 carray (INCONSISTENT)",
            P(reader2, "Vlarray.__init__", """\
        if len(v.shape) != 1 or (vtype != "ragged" and v.dtype.str != "|u1"):""", """\
        if False:""")),
    Variant("v2_vlarray_offsets_decreasing_accepted",
            "v2 §12: offsets[k] <= offsets[k+1] <= len(values) (INCONSISTENT) "
            "(variant checks only the upper bound)",
            P(reader2, "Vlarray.output", """\
            if not offs[k] <= offs[k + 1] <= nvalues:""", """\
            if not offs[k + 1] <= nvalues:""")),
    Variant("v2_vlarray_offsets_start_not_checked",
            "v2 §12: offsets[0] MUST be 0 (INCONSISTENT)",
            P(reader2, "Vlarray.output", """\
        if offs[0] != 0:""", """\
        if False:""")),
    Variant("v2_vlarray_utf8_not_checked",
            "v2 §12: a utf8 element MUST be valid UTF-8 (INCONSISTENT)",
            P(reader2, "Vlarray.output", """\
            if self.vtype == "utf8":""", """\
            if False:""")),
    Variant("v2_vlarray_vtype_not_checked",
            "v2 §12: vtype MUST be utf8, bytes or ragged (BAD_METADATA) (variant treats others as bytes)",
            P(reader2, "Vlarray.__init__", """\
        if vtype not in ("utf8", "bytes", "ragged") or not isinstance(vtype, str):
            raise _meta_error(prefix, "meta/storage", "/vtype",
                              "vtype %r is not utf8, bytes or ragged" % (vtype,))""", """\
        if vtype not in ("utf8", "bytes", "ragged") or not isinstance(vtype, str):
            vtype = "bytes\"""")),
]
