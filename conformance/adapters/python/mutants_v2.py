"""The variants of the Python reader that drop a rule of format version 2 (mutants.py).

Version dispatch and meta/storage, the superchunk header and metadata section, dataset
superchunks and their offsets, checksums, ctables and vlarrays: the rules of spec/v2.md. Each is a
Patch of one pyreader function (mutants_patch.py); mutants.py puts these after the version-1 ones.
"""

from mutants_patch import Patch, Variant
from pyreader import reader, reader2, superchunk


P = Patch

VARIANTS = [
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
