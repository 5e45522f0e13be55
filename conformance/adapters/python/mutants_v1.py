"""The variants of the Python reader that drop a rule of format version 1 (mutants.py).

The JSON dialect, v1 metadata (meta/storage, meta/sizes, __attrs__, dtypes), v1 ctables, v1 chunk
files and their Blosc containers, and value byte order: the rules of spec/v1.md, spec/errors.md
and conformance.md that version 2 takes over too. Each is a Patch of one pyreader function
(mutants_patch.py); mutants.py puts these first in the scored list.
"""

from mutants_patch import Patch, Variant
from pyreader import chunks, dtypes, jsondialect, reader


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
]
