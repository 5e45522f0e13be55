"""The must-fail cases of v2/synth-broken: one broken rule each, mostly variants of one base carray, with the expected error code."""
import json
import struct

import blosc
import numpy as np

from .dataset import Carray, Ctable, Vlarray
from .fmt import bind, compress, jdump, raw_checksum, next_file
from .registry import add_broken, patch


# ------------------------------------------------------------------ broken cases

def base(name="base", n=10):
    """<i4, len 10, chunklen 4, S 2, lz4, adler32, spare 10: superchunk 1 = chunks 0, 1; 2 = chunk 2 (2 rows)."""
    return Carray(np.arange(100, 100 + n, dtype="<i4"), chunklen=4, S=2, cparams=(5, 1, "lz4"))


BASE_DESC = "carray <i4 len 10, chunklen 4, superchunksize 2, adler32: data/__1__.bin (chunks 0, 1), data/__2__.bin (chunk 2, 2 rows)"


def B(name, code, rule, mutation, files):
    add_broken(name, files, code, rule, mutation)


def storage_variant(name, code, rule, fn, mutation):
    ca = base()
    st = ca.storage()
    st = fn(st)
    files = ca.build()
    files["meta/storage"] = st if isinstance(st, bytes) else jdump(st)
    B(name, code, rule, mutation, files)


def sc1_patch(name, code, rule, fn, mutation, s=1):
    ca = base()
    files = ca.build()
    key = "data/__%d__.bin" % s
    files[key] = fn(files[key], ca)
    B(name, code, rule, mutation, files)


def sc_built(name, code, rule, mutation, s=1, **kw):
    ca = base()
    ca.sc_kw[s] = kw
    B(name, code, rule, mutation, ca.build())


def hdr(off, fmt, v):
    return lambda b, ca: patch(b, off, struct.pack(fmt, v))


def padded(raw):
    return raw + b" " * ((-(32 + len(raw))) % 8)


def broken_cases():
    # -------- root dispatch §3.1
    ca = base()
    f = ca.build(); del f["meta/storage"]
    B("root_meta_storage_missing", "MISSING_FILE", "v2.md §3.1 step 2: meta/storage absent", "meta/storage deleted", f)
    storage_variant("root_meta_storage_bad_json", "BAD_JSON", "v2.md §3.1 step 3 (v1.md §9.1)",
                    lambda st: jdump(st)[:-10] + b"\n", "meta/storage cut in the middle of the object")
    storage_variant("root_meta_storage_not_object", "BAD_METADATA", "v2.md §3.1 step 3: a non-object is BAD_METADATA",
                    lambda st: jdump([2, "carray"]), "meta/storage is a JSON array")
    storage_variant("root_format_version_3", "UNSUPPORTED_VERSION", "v2.md §3.1 step 4: any other format_version",
                    lambda st: dict(st, format_version=3), "format_version 3")
    storage_variant("root_format_version_string", "UNSUPPORTED_VERSION", "v2.md §3.1 step 4: format_version must be the integer 1 or 2",
                    lambda st: dict(st, format_version="2"), 'format_version "2" (a string)')
    storage_variant("root_format_version_float", "UNSUPPORTED_VERSION", "v2.md §3.1 step 4: format_version must be the integer 1 or 2",
                    lambda st: jdump(st).replace(b'"format_version": 2', b'"format_version": 2.5'), "format_version 2.5")
    storage_variant("root_format_version_2_0", "UNSUPPORTED_VERSION", "v2.md §15.1 item 2: format_version is the token 2; 2.0 is another version",
                    lambda st: jdump(st).replace(b'"format_version": 2', b'"format_version": 2.0'), "format_version 2.0")
    storage_variant("root_no_format_version_read_as_v1", "MISSING_FILE", "v2.md §3.1 step 4 (no format_version → version 1), v1.md §3: meta/sizes absent",
                    lambda st: {k: v for k, v in st.items() if k != "format_version"}, "format_version key removed")
    storage_variant("root_format_version_1_read_as_v1", "MISSING_FILE", "v2.md §3.1 step 4 (format_version 1 → version 1), v1.md §3: meta/sizes absent",
                    lambda st: dict(st, format_version=1), "format_version 1")
    ca = base(); f = ca.build(); f["__rootdirs__"] = jdump({"names": ["a"]})
    B("root_rootdirs_present_read_as_v1_ctable", "MISSING_FILE", "v2.md §3.1 step 1 (__rootdirs__ → version-1 ctable), §3.3; v1.md §3: column a has no meta/storage",
      "__rootdirs__ {\"names\": [\"a\"]} added to a v2 carray root", f)

    # -------- meta/storage schema §10.1
    sv = [
        ("storage_superchunksize_0", "BAD_METADATA", "superchunksize 1 … 65536", lambda st: dict(st, superchunksize=0), "superchunksize 0"),
        ("storage_superchunksize_65537", "BAD_METADATA", "superchunksize 1 … 65536", lambda st: dict(st, superchunksize=65537), "superchunksize 65537"),
        ("storage_superchunksize_missing", "BAD_METADATA", "all keys required", lambda st: {k: v for k, v in st.items() if k != "superchunksize"}, "superchunksize removed"),
        ("storage_checksum_unknown", "BAD_METADATA", "checksum one of the names of §6", lambda st: dict(st, checksum="crc64"), 'checksum "crc64"'),
        ("storage_checksum_as_id", "BAD_METADATA", "checksum one of the names of §6", lambda st: dict(st, checksum=1), "checksum 1 (the id, not the name)"),
        ("storage_spare_101", "BAD_METADATA", "spare 0 … 100", lambda st: dict(st, spare=101), "spare 101"),
        ("storage_spare_missing", "BAD_METADATA", "all keys required", lambda st: {k: v for k, v in st.items() if k != "spare"}, "spare removed"),
        ("storage_kind_missing", "BAD_METADATA", "all keys required (kind)", lambda st: {k: v for k, v in st.items() if k != "kind"}, "kind removed"),
        ("storage_cparams_quantize_missing", "BAD_METADATA", "cparams: all four keys REQUIRED", lambda st: dict(st, cparams={"clevel": 5, "shuffle": 1, "cname": "lz4"}), "cparams without quantize"),
        ("storage_cparams_shuffle_true", "BAD_METADATA", "cparams: shuffle is an integer", lambda st: dict(st, cparams={"clevel": 5, "shuffle": True, "cname": "lz4", "quantize": 0}), "cparams.shuffle true"),
        ("storage_cparams_cname_unknown", "BAD_METADATA", "cparams.cname one of six names", lambda st: dict(st, cparams={"clevel": 5, "shuffle": 1, "cname": "brotli", "quantize": 0}), 'cparams.cname "brotli"'),
        ("storage_cparams_clevel_10", "BAD_METADATA", "cparams.clevel 0 … 9", lambda st: dict(st, cparams={"clevel": 10, "shuffle": 1, "cname": "lz4", "quantize": 0}), "cparams.clevel 10"),
        ("storage_chunklen_0", "BAD_METADATA", "chunklen ≥ 1", lambda st: dict(st, chunklen=0), "chunklen 0"),
        ("storage_expectedlen_negative", "BAD_METADATA", "expectedlen ≥ 0", lambda st: dict(st, expectedlen=-1), "expectedlen -1"),
        ("storage_dflt_wrong_type", "BAD_METADATA", "dflt fits the dtype (v1.md §11.2)", lambda st: dict(st, dflt="zero"), 'dflt "zero" for <i4'),
        ("storage_dtype_complex", "UNSUPPORTED_DTYPE", "dtype per v1.md §13 (complex excluded)", lambda st: dict(st, dtype="<c8"), 'dtype "<c8"'),
        ("storage_dtype_timedelta", "UNSUPPORTED_DTYPE", "dtype per v1.md §13 (timedelta excluded)", lambda st: dict(st, dtype="<m8[s]"), 'dtype "<m8[s]"'),
        ("storage_dtype_generic_datetime", "UNSUPPORTED_DTYPE", "dtype per v1.md §13 (datetime64 without unit)", lambda st: dict(st, dtype="<M8"), 'dtype "<M8"'),
        ("storage_dtype_garbage", "UNSUPPORTED_DTYPE", "dtype per v1.md §13", lambda st: dict(st, dtype="int33"), 'dtype "int33"'),
        ("storage_kind_unknown", "BAD_METADATA", "kind is carray, ctable or vlarray (schema const)", lambda st: dict(st, kind="table"), 'kind "table"'),
        ("storage_duplicate_key", "BAD_JSON", "v1.md §9.1: repeated key", lambda st: jdump(st).replace(b'"spare": 10', b'"spare": 10, "spare": 10'), "key spare repeated"),
    ]
    for name, code, rule, fn, mut in sv:
        storage_variant(name, code, "v2.md §10.1: " + rule if not rule.startswith("v1") else rule, fn, mut)

    # -------- meta/shape §10.2, __attrs__, .journal
    ca = base(); f = ca.build(); del f["meta/shape"]
    B("shape_missing", "MISSING_FILE", "v2.md §10.5, §15: meta/shape required", "meta/shape deleted", f)
    for name, raw, code, rule in [
        ("shape_bad_json", b'{"shape": [10]\n', "BAD_JSON", "v1.md §9.1 (meta/shape)"),
        ("shape_trailing_dim_0", jdump({"shape": [10, 0]}), "BAD_METADATA", "v2.md §10.2: trailing dimensions ≥ 1"),
        ("shape_negative", jdump({"shape": [-10]}), "BAD_METADATA", "v2.md §10.2, shape schema: integers ≥ 0"),
        ("shape_not_list", jdump({"shape": 10}), "BAD_METADATA", "v2.md §10.2: shape is a list"),
        ("shape_empty_list", jdump({"shape": []}), "BAD_METADATA", "shape schema: minItems 1"),
        ("shape_key_missing", jdump({"len": 10}), "BAD_METADATA", "shape schema: shape required"),
        ("shape_float", jdump({"shape": [10.0]}), "BAD_METADATA", "shape schema: integers"),
    ]:
        ca = base(); f = ca.build(); f["meta/shape"] = raw
        B(name, code, rule, "meta/shape = " + raw.decode().strip(), f)
    ca = base(); f = ca.build(); del f["__attrs__"]
    B("attrs_missing", "MISSING_FILE", "v2.md §10.5: __attrs__ required (v1.md §12.1)", "__attrs__ deleted", f)
    ca = base(); f = ca.build(); f["__attrs__"] = jdump(["a"])
    B("attrs_not_object", "BAD_METADATA", "v1.md §12.1: top-level object", "__attrs__ = [\"a\"]", f)
    for name, raw, code, rule in [
        ("journal_bad_json", b'{"format": 2, "chunks": [[1, 0]]', "BAD_JSON", "v2.md §13.1, §15: .journal JSON"),
        ("journal_format_1", jdump({"format": 1, "chunks": [0]}), "BAD_METADATA", "journal schema: format 2"),
        ("journal_superchunk_0", jdump({"format": 2, "chunks": [[0, 0]]}), "BAD_METADATA", "journal schema: s ≥ 1"),
        ("journal_pair_of_three", jdump({"format": 2, "chunks": [[1, 0, 0]]}), "BAD_METADATA", "journal schema: pairs"),
        ("journal_extra_key", jdump({"format": 2, "chunks": [], "x": 1}), "BAD_METADATA", "journal schema: no other keys"),
        ("journal_not_object", jdump([[1, 0]]), "BAD_METADATA", "v1.md §9.1: non-object"),
    ]:
        ca = base(); f = ca.build(); f[".journal"] = raw
        B(name, code, rule, ".journal = " + raw.decode().strip(), f)

    # journal-listed .next files (§13.4: checked as §7.4 and checksum verified)
    ca = base(); f = ca.build(); f[".journal"] = jdump({"format": 2, "chunks": [[1, 1]]})
    nf = next_file(compress(np.arange(4, dtype="<i4").tobytes(), 4, 5, 1, "lz4"), 1, 1)
    f["data/__1__.bin.1.next"] = patch(nf, 20, b"\x63")
    B("next_checksum_mismatch", "CHECKSUM_MISMATCH", "v2.md §13.4: .next checksum verified", "data/__1__.bin.1.next payload byte changed after checksumming", f)
    ca = base(); f = ca.build(); f[".journal"] = jdump({"format": 2, "chunks": [[1, 1]]})
    f["data/__1__.bin.1.next"] = next_file(compress(np.arange(4, dtype="<i4").tobytes(), 4, 5, 1, "lz4"), 1, 1, has_meta=False)
    B("next_checksum_unbound", "CHECKSUM_MISMATCH", "v2.md §6: .next files bind the same way as their superchunk", "data/__1__.bin.1.next checksum not XORed with g = 1", f)
    ca = base(); f = ca.build(); f[".journal"] = jdump({"format": 2, "chunks": [[1, 0]]})
    f["data/__1__.bin.0.next"] = next_file(compress(np.arange(5, dtype="<i4").tobytes(), 4, 5, 1, "lz4"), 1, 0)
    B("next_nbytes_above_chunk_size", "BAD_HEADER", "v2.md §13.4, §7.4 step 3: .next of a non-last chunk with nbytes ≠ chunk-size", "data/__1__.bin.0.next holds 5 rows (20 bytes) where chunk-size is 16", f)
    ca = base(); f = ca.build(); f[".journal"] = jdump({"format": 2, "chunks": [[1, 1]]})
    f["data/__1__.bin.1.next"] = next_file(compress(np.arange(4, dtype="<i4").tobytes(), 4, 5, 1, "lz4"), 1, 1)[:30]
    B("next_truncated", "TRUNCATED", "v2.md §13.4, §7.4 step 2: chunk cbytes in the file", "data/__1__.bin.1.next cut to 30 bytes", f)

    # -------- superchunk presence §10.3
    ca = base(); f = ca.build(); del f["data/__2__.bin"]
    B("superchunk_2_missing", "MISSING_FILE", "v2.md §10.4: required superchunk present", "data/__2__.bin deleted", f)
    ca = base(); f = ca.build(); f["data/__01__.bin"] = f.pop("data/__1__.bin")
    B("superchunk_name_leading_zero", "MISSING_FILE", "v2.md §3.2: names formed without leading zeros; data/ never listed", "data/__1__.bin renamed data/__01__.bin", f)

    # -------- header §4.3
    hv = [
        ("hdr_file_10_bytes", "TRUNCATED", "§4.3 step 1: shorter than 16 bytes", lambda b, ca: b[:10], "data/__1__.bin cut to 10 bytes"),
        ("hdr_bad_magic", "BAD_MAGIC", "§4.3 step 2: magic blpk", lambda b, ca: patch(b, 0, b"blpx"), "bytes 0-3 'blpx'"),
        ("hdr_bad_magic_short", "BAD_MAGIC", "§3.2: magic checked before the version and before the 32-byte length", lambda b, ca: patch(b[:20], 0, b"BLPK"), "bytes 0-3 'BLPK', file cut to 20 bytes"),
        ("hdr_version_1", "UNSUPPORTED_VERSION", "§4.3 step 3, §3.2: byte 4 = 1 is a v1 chunk file", lambda b, ca: patch(b, 4, b"\x01"), "byte 4 = 1"),
        ("hdr_version_3", "UNSUPPORTED_VERSION", "§4.3 step 3, §3.2: byte 4 = 3 is bloscpack ≥ 0.3", lambda b, ca: patch(b, 4, b"\x03"), "byte 4 = 3"),
        ("hdr_version_0", "UNSUPPORTED_VERSION", "§4.3 step 3", lambda b, ca: patch(b, 4, b"\x00"), "byte 4 = 0"),
        ("hdr_file_20_bytes", "TRUNCATED", "§4.3 step 4: shorter than 32 bytes", lambda b, ca: b[:20], "data/__1__.bin cut to 20 bytes"),
        ("hdr_option_bit2", "BAD_HEADER", "§4.3 step 5: option bits 2-7 are 0", lambda b, ca: patch(b, 5, b"\x07"), "options 0x07"),
        ("hdr_option_bit7", "BAD_HEADER", "§4.3 step 5: option bits 2-7 are 0", lambda b, ca: patch(b, 5, b"\x83"), "options 0x83"),
        ("hdr_checksum_id_9", "BAD_HEADER", "§4.3 step 6: checksum id ≤ 8", lambda b, ca: patch(b, 6, b"\x09"), "checksum id 9"),
        ("hdr_checksum_id_255", "BAD_HEADER", "§4.3 step 6: checksum id ≤ 8", lambda b, ca: patch(b, 6, b"\xff"), "checksum id 255"),
        ("hdr_chunk_size_0", "BAD_HEADER", "§4.2: chunk-size ≥ 1 or -1", hdr(8, "<i", 0), "chunk-size 0"),
        ("hdr_chunk_size_minus2", "BAD_HEADER", "§4.2: chunk-size ≥ 1 or -1", hdr(8, "<i", -2), "chunk-size -2"),
        ("hdr_chunk_size_over_limit", "SIZE_LIMIT", "§4.2: chunk-size ≤ 2,147,483,631", hdr(8, "<i", 2147483632), "chunk-size 2147483632"),
        ("hdr_nchunks_minus2", "BAD_HEADER", "§4.2: nchunks ≥ 0 or -1", hdr(16, "<q", -2), "nchunks -2"),
        ("hdr_nchunks_minus1_with_offsets", "BAD_HEADER", "§4.2: nchunks -1 only without offsets", hdr(16, "<q", -1), "nchunks -1 with option bit 0"),
        ("hdr_nchunks_2pow53", "SIZE_LIMIT", "§4.2: nchunks above 2^53 - 1", hdr(16, "<q", 2 ** 53), "nchunks 2^53"),
        ("hdr_last_chunk_minus2", "BAD_HEADER", "§4.2: last-chunk ≥ 0 or -1", hdr(12, "<i", -2), "last-chunk -2"),
        ("hdr_last_chunk_above_chunk_size", "BAD_HEADER", "§4.2: last-chunk ≤ chunk-size", hdr(12, "<i", 17), "last-chunk 17 > chunk-size 16"),
        ("hdr_nchunks_0_last_chunk_nonzero", "BAD_HEADER", "§4.2: nchunks 0 → last-chunk 0 or -1", lambda b, ca: patch(b, 12, struct.pack("<iq", 16, 0)), "nchunks 0, last-chunk 16"),
        ("hdr_meta_size_negative", "BAD_HEADER", "§4.2: meta-size ≥ 0", hdr(24, "<i", -8), "meta-size -8"),
        ("hdr_meta_size_0_with_bit1", "BAD_HEADER", "§4.2: meta-size ≥ 2 when option bit 1 is set", hdr(24, "<i", 0), "meta-size 0 with options 0x03"),
        ("hdr_meta_size_1_with_bit1", "BAD_HEADER", "§4.2: meta-size ≥ 2 when option bit 1 is set", hdr(24, "<i", 1), "meta-size 1 with options 0x03"),
        ("hdr_meta_size_without_bit1", "BAD_HEADER", "§4.2: meta-size 0 when option bit 1 is clear", lambda b, ca: patch(b, 5, b"\x01"), "options 0x01 while meta-size is 40"),
        ("hdr_reserved_nonzero", "BAD_HEADER", "§4.3 step 8: reserved bytes 28-31 zero", lambda b, ca: patch(b, 28, b"\x01"), "byte 28 = 1"),
        ("hdr_reserved_last_byte", "BAD_HEADER", "§4.3 step 8: reserved bytes 28-31 zero", lambda b, ca: patch(b, 31, b"\x80"), "byte 31 = 0x80"),
    ]
    for name, code, rule, fn, mut in hv:
        sc1_patch(name, code, "v2.md " + rule, fn, "data/__1__.bin: " + mut)
    # bloscpack 3 header in a superchunk's place (§8.4)
    ca = base(); f = ca.build(); f["data/__2__.bin"] = bytes.fromhex("626C706B03030104000004008O1A0200".replace("O", "0")) + bytes.fromhex("02000000000000001400000000000000") + b"\0" * 64
    B("hdr_bloscpack3_file", "UNSUPPORTED_VERSION", "v2.md §3.2, §8.4: a bloscpack ≥ 0.3 file is never a superchunk", "data/__2__.bin replaced by a bloscpack format-3 header (§8.4) + 64 zero bytes", f)
    ca = base(); f = ca.build(); f["data/__1__.bin"] = bytes.fromhex("626C706B010000000100000000000000") + ca.chunk(0)
    B("hdr_v1_chunk_file", "UNSUPPORTED_VERSION", "v2.md §3.2: a version-1 chunk file in a superchunk's place", "data/__1__.bin replaced by a v1 chunk file (16-byte blpk v1 header + chunk 0)", f)

    # -------- metadata section §5
    sc1_patch("meta_truncated", "TRUNCATED", "v2.md §5: file shorter than 32 + meta-size", lambda b, ca: b[:50], "data/__1__.bin cut to 50 bytes (meta-size 40)")
    for name, raw, code, rule in [
        ("meta_python_quotes", padded(b"{'capacity': 2, 'first_chunk': 0}"), "BAD_JSON", "v2.md §5, §17 #9: strict JSON"),
        ("meta_not_object", padded(b"[2, 0]"), "BAD_METADATA", "v2.md §5: a value that is not an object"),
        ("meta_nul_padding", b'{"capacity": 2, "first_chunk": 0}' + b"\0" * 7, "BAD_JSON", "v2.md §5: no NUL padding (not JSON whitespace)"),
        ("meta_duplicate_key", padded(b'{"capacity": 2, "capacity": 2, "first_chunk": 0}'), "BAD_JSON", "v2.md §5: repeated key"),
        ("meta_trailing_garbage", padded(b'{"capacity": 2, "first_chunk": 0}x'), "BAD_JSON", "v2.md §5: one JSON value followed by whitespace"),
        ("meta_invalid_utf8", padded(b'{"capacity": 2, "first_chunk": 0, "w": "\xff"}'), "BAD_JSON", "v2.md §5: invalid UTF-8"),
        ("meta_capacity_below_nchunks", padded(b'{"capacity": 1, "first_chunk": 0}'), "BAD_METADATA", "v2.md §5: capacity below nchunks"),
        ("meta_capacity_string", padded(b'{"capacity": "2", "first_chunk": 0}'), "BAD_METADATA", "superchunk-meta schema: capacity integer"),
        ("meta_capacity_65537", padded(b'{"capacity": 65537, "first_chunk": 0}'), "BAD_METADATA", "superchunk-meta schema: capacity ≤ 65536"),
        ("meta_first_chunk_negative", padded(b'{"capacity": 2, "first_chunk": -1}'), "BAD_METADATA", "superchunk-meta schema: first_chunk ≥ 0"),
    ]:
        sc_built(name, code, rule, "data/__1__.bin metadata section = %r" % raw.decode("latin-1"), meta_raw=raw, capacity=2)

    # -------- dataset superchunk §10.4
    ca = base(); ca.sc_kw[1] = {"options": 0x01, "capacity": 2}
    B("ds_options_no_metadata", "BAD_HEADER", "v2.md §10.4: options = 0x03 in a dataset", "data/__1__.bin written without metadata section (options 0x01, meta-size 0, unbound checksums: a valid bloscpack-0.2 file)", ca.build())
    sc_built("ds_meta_size_misaligned", "BAD_HEADER", "v2.md §10.4: 32 + meta-size multiple of 8", "data/__1__.bin metadata section without padding spaces (meta-size 33)",
             meta_raw=b'{"capacity": 2, "first_chunk": 0}')
    sc_built("ds_meta_size_misaligned_extra_space", "BAD_HEADER", "v2.md §10.4: 32 + meta-size multiple of 8", "data/__1__.bin metadata padded with 8 spaces (meta-size 41)",
             meta_raw=b'{"capacity": 2, "first_chunk": 0}' + b" " * 8)
    sc1_patch("ds_chunk_size_inconsistent", "INCONSISTENT", "v2.md §10.4: chunk-size = chunklen × atomsize", hdr(8, "<i", 12),
              "data/__2__.bin: chunk-size 12 (its only chunk, the last, holds 8 bytes)", s=2)
    sc1_patch("ds_nchunks_below_required", "INCONSISTENT", "v2.md §10.4: nchunks ≥ n_s", hdr(16, "<q", 1), "data/__1__.bin: nchunks 1 (n_s = 2)")
    sc_built("ds_capacity_not_S", "INCONSISTENT", "v2.md §10.4: capacity = S", "data/__1__.bin: capacity 3 (S = 2), table of 3 entries", capacity=3)
    # v2.md §15.1 item 3: §5's defaults are for stand-alone files; in a dataset both are required.
    sc_built("ds_capacity_absent", "INCONSISTENT", "v2.md §15.1 item 3: capacity REQUIRED in a dataset superchunk", "data/__1__.bin metadata section without capacity",
             meta_raw=padded(b'{"first_chunk": 0}'), capacity=2)
    sc_built("ds_first_chunk_absent", "INCONSISTENT", "v2.md §15.1 item 3: first_chunk REQUIRED in a dataset superchunk", "data/__1__.bin metadata section without first_chunk",
             meta_raw=padded(b'{"capacity": 2}'), capacity=2)
    sc_built("ds_first_chunk_wrong", "INCONSISTENT", "v2.md §10.4: first_chunk = (s - 1)·S", "data/__2__.bin: first_chunk 0 (must be 2); checksums bound to 0 + i to match the file",
             s=2, first_chunk=0)
    sc_built("ds_first_chunk_too_high", "INCONSISTENT", "v2.md §10.4: first_chunk = (s - 1)·S", "data/__1__.bin: first_chunk 2 (must be 0); checksums bound to 2 + i",
             first_chunk=2)

    # -------- offsets §7.1
    sc1_patch("off_truncated", "TRUNCATED", "v2.md §7.1: file ends inside the live entries", lambda b, ca: b[:76], "data/__1__.bin cut to 76 bytes (table at 72)")
    # v2.md §15.1 item 4: the file must hold all min(nchunks, capacity) live entries, not only the
    # required ones. A cut inside the table also leaves entry 0 pointing past the end; the table's
    # length is checked before the entries' range, so the code is TRUNCATED, not BAD_HEADER.
    ca = base(); ca.sc_kw[2] = {"nchunks": 2, "last_chunk": 8}
    f = ca.build()
    cut = ca.infos[2]["table_off"] + 12
    f["data/__2__.bin"] = f["data/__2__.bin"][:cut]
    B("off_truncated_in_unrequired_entry", "TRUNCATED", "v2.md §15.1 item 4: the file holds all min(nchunks, capacity) live entries",
      "data/__2__.bin: nchunks 2 (n_s = 1: entry 1 live, not required), cut to %d bytes inside entry 1 (table at %d); entry 0 is whole but now points past the end (TRUNCATED is checked first, §7.1)"
      % (cut, ca.infos[2]["table_off"]), f)
    sc1_patch("off_live_minus1", "BAD_HEADER", "v2.md §7.1: -1 in a live entry", hdr(80, "<q", -1), "data/__1__.bin: offsets[1] = -1")
    sc1_patch("off_past_end", "BAD_HEADER", "v2.md §7.1: live entry ≤ file length - 16", lambda b, ca: patch(b, 80, struct.pack("<q", len(b) - 15)), "data/__1__.bin: offsets[1] = file length - 15")
    sc1_patch("off_huge", "BAD_HEADER", "v2.md §7.1: live entry in range", hdr(80, "<q", 2 ** 62), "data/__1__.bin: offsets[1] = 2^62")
    sc1_patch("off_inside_table", "BAD_HEADER", "v2.md §7.1: live entry ≥ start of data", hdr(72, "<q", 72), "data/__1__.bin: offsets[0] = 72 (the table itself)")
    sc1_patch("off_points_at_other_chunk", "CHECKSUM_MISMATCH", "v2.md §6 binding, §6.1: an entry landing on another chunk's slot", hdr(80, "<q", 88),
              "data/__1__.bin: offsets[1] = offsets[0] = 88 (chunk 0, same nbytes; its checksum is bound to index 0)")

    # -------- chunks §7.4, §6
    ca = base(); ca.chunk_override[0] = compress(np.arange(3, dtype="<i4").tobytes(), 4, 5, 1, "lz4")
    B("chunk_nbytes_not_chunk_size", "BAD_HEADER", "v2.md §7.4 step 3: a chunk other than the last has nbytes = chunk-size", "chunk 0 holds 3 rows (12 bytes), chunk-size 16; checksum valid", ca.build())
    ca = base(); ca.chunk_override[2] = compress(np.arange(5, dtype="<i4").tobytes(), 4, 5, 1, "lz4"); ca.sc_kw[2] = {"last_chunk": 8}
    B("chunk_last_above_chunk_size", "BAD_HEADER", "v2.md §7.4 step 3: the last has nbytes ≤ chunk-size", "chunk 2 (last of data/__2__.bin) holds 5 rows (20 bytes) > chunk-size 16; last-chunk hint 8", ca.build())
    sc1_patch("chunk_payload_flipped", "CHECKSUM_MISMATCH", "v2.md §6: checksum over the stored chunk", lambda b, ca: patch(b, 124 + 16, bytes([b[124 + 16] ^ 0x01])),
              "data/__1__.bin: one bit of chunk 1's payload flipped (memcpyed, so it decodes)")
    ca = base(); ca.checksum = "sha256"
    f = ca.build()
    off = ca.infos[1]["offsets"][0] + 32 + 20
    f["data/__1__.bin"] = patch(f["data/__1__.bin"], off, bytes([f["data/__1__.bin"][off] ^ 0x10]))
    B("chunk_sha256_digest_flipped", "CHECKSUM_MISMATCH", "v2.md §6: stored digest compared (bytes beyond the first 8 stored as computed)", "sha256 file: byte 20 of chunk 0's stored digest flipped", f)
    sc_built("chunk_checksum_unbound", "CHECKSUM_MISMATCH", "v2.md §6: with a metadata section stored = checksum XOR g", "data/__1__.bin checksums stored unbound (chunk 1 differs, g = 1)",
             stored_checksum=lambda i, c, raw, st: raw)
    sc_built("chunk_checksum_bound_local_index", "CHECKSUM_MISMATCH", "v2.md §6: bound to the global index first_chunk + i", "data/__2__.bin: chunk bound to its local index 0 instead of g = 2",
             s=2, bind_base=0)
    sc_built("chunk_adler32_big_endian", "CHECKSUM_MISMATCH", "v2.md §6: Adler-32 as a little-endian u32", "data/__1__.bin: Adler-32 values stored big-endian (then bound)",
             stored_checksum=lambda i, c, raw, st: bind(raw[::-1], i))
    sc_built("chunk_checksum_excludes_header", "CHECKSUM_MISMATCH", "v2.md §6 coverage: the Blosc header is covered", "data/__1__.bin: Adler-32 computed over the payload only",
             stored_checksum=lambda i, c, raw, st: bind(raw_checksum(1, c[16:]), i))
    ca = base(); ca.checksum = "crc32"; ca.sc_kw[1] = {"stored_checksum": lambda i, c, raw, st: bind(raw_checksum(1, c), i)}
    B("chunk_checksum_wrong_function", "CHECKSUM_MISMATCH", "v2.md §6, §6.1: the header's checksum id decides", "crc32 file whose stored values are Adler-32", ca.build())
    sc1_patch("chunk_truncated_in_checksum", "TRUNCATED", "v2.md §6: file ends before the checksum's last byte", lambda b, ca: b[:114], "data/__2__.bin cut to 114 bytes (checksum at 112-115)", s=2)
    sc1_patch("chunk_truncated_in_chunk", "TRUNCATED", "v2.md §7.4 step 2: cbytes bytes in the file", lambda b, ca: b[:106], "data/__2__.bin cut to 106 bytes (chunk at 88, cbytes 24)", s=2)

    def blosc_mut(name, code, rule, mut, fn, g=1):
        ca = base()
        ca.chunk_override[g] = fn(ca.chunk(g))
        B(name, code, rule, mut, ca.build())
    blosc_mut("blosc_version_3", "UNSUPPORTED_VERSION", "v1.md §5.1 via v2.md §7.4 step 2", "chunk 1 Blosc version 3 (checksum recomputed)", lambda c: patch(c, 0, b"\x03"))
    blosc_mut("blosc_reserved_flag", "BAD_HEADER", "v1.md §5.2 via v2.md §7.4 step 2", "chunk 1 flags bit 3 set (checksum recomputed)", lambda c: patch(c, 2, bytes([c[2] | 0x08])))
    blosc_mut("blosc_typesize_0", "BAD_HEADER", "v1.md §5.1 via v2.md §7.4", "chunk 1 typesize 0 (checksum recomputed)", lambda c: patch(c, 3, b"\x00"))
    blosc_mut("blosc_memcpyed_cbytes_mismatch", "BAD_HEADER", "v1.md §5.3: memcpyed cbytes = nbytes + 16", "chunk 1 memcpyed with 4 extra bytes and cbytes 36 (checksum over 36 bytes)",
              lambda c: patch(c, 12, struct.pack("<i", 36)) + b"\0\0\0\0")
    blosc_mut("blosc_zeroed_header", "UNSUPPORTED_VERSION", "v2.md §13.5, §6.1: an entry landing on a dead slot with a zeroed Blosc header", "chunk 1's Blosc header zeroed (checksum recomputed)",
              lambda c: b"\0" * 16 + c[16:])
    # compressed chunk with damaged streams
    big = Carray(np.arange(2000, dtype="<i4"), chunklen=1000, S=2, cparams=(5, 1, "zlib"))
    c = big.chunk(0)
    assert not (c[2] & 0x02), "expected a compressed chunk"
    bad = patch(c, len(c) - 1, bytes([c[-1] ^ 0xFF]))
    try:
        blosc.decompress(bad)
        raise AssertionError("damaged zlib chunk decodes")
    except AssertionError:
        raise
    except Exception:
        pass
    big.chunk_override[0] = bad
    B("blosc_zlib_trailer_corrupt", "CORRUPT_STREAM", "v1.md §7.3 via v2.md §7.4 step 5", "<i4 len 2000, chunklen 1000, zlib: chunk 0's last zlib stream Adler-32 trailer byte flipped (checksum recomputed)", big.build())
    big = Carray(np.arange(2000, dtype="<i4"), chunklen=1000, S=2, cparams=(5, 1, "lz4"))
    c = big.chunk(0)
    assert not (c[2] & 0x02)
    big.chunk_override[0] = patch(c, 2, bytes([(c[2] & 0x1F) | 0xA0]))
    B("blosc_codec_5", "UNKNOWN_CODEC", "v1.md §5.2 via v2.md §7.4", "<i4 len 2000, chunklen 1000, lz4: chunk 0 codec code 5 (checksum recomputed)", big.build())

    # §10.4 chunk rows
    ca = base(); ca.chunk_override[2] = compress(np.arange(1, dtype="<i4").tobytes(), 4, 5, 1, "lz4")
    B("rows_last_chunk_too_few", "INCONSISTENT", "v2.md §10.4: last required chunk nbytes ≥ rest × atomsize", "chunk 2 holds 1 row, length needs 2", ca.build())
    ca = base(); ca.chunk_override[2] = compress(np.arange(3, dtype="<i4").tobytes()[:10], 4, 5, 1, "lz4")
    B("rows_last_chunk_not_multiple", "INCONSISTENT", "v2.md §10.4: last required chunk nbytes a multiple of atomsize", "chunk 2 holds 10 bytes (atomsize 4)", ca.build())
    ca = base(); ca.chunk_override[1] = compress(np.arange(3, dtype="<i4").tobytes(), 4, 5, 1, "lz4")
    B("rows_full_chunk_short_last_in_file", "INCONSISTENT", "v2.md §10.4: a full required chunk has nbytes = chunklen × atomsize",
      "chunk 1 (last live chunk of data/__1__.bin, allowed ≤ chunk-size by §7.4) holds 3 rows; chunk 1 is full by the length", ca.build())

    # -------- ctables §11
    def ct(names=None, cols=None, attrs=True):
        cols = cols or [("a", Carray(np.arange(10, dtype="<i4"), chunklen=4, S=2)),
                        ("b", Carray(np.arange(10, dtype="<f8"), chunklen=4, S=2))]
        t = Ctable(cols)
        f = t.build()
        if names is not None:
            f["meta/storage"] = jdump({"format_version": 2, "kind": "ctable", "columns": names})
        if not attrs:
            del f["__attrs__"]
        return f
    for name, names, code, mut in [
        ("ct_name_climbs_out", ["a", "../b"], "UNSAFE_NAME", 'columns ["a", "../b"]'),
        ("ct_name_with_slash", ["a", "b/c"], "UNSAFE_NAME", 'columns ["a", "b/c"]'),
        ("ct_name_leading_digit", ["a", "9b"], "UNSAFE_NAME", 'columns ["a", "9b"]'),
        ("ct_name_non_ascii", ["a", "na\u00efve"], "UNSAFE_NAME", 'columns ["a", "naïve"] (stricter than v1)'),
        ("ct_name_attrs", ["a", "__attrs__"], "UNSAFE_NAME", 'columns ["a", "__attrs__"]'),
        ("ct_name_rootdirs", ["a", "__rootdirs__"], "UNSAFE_NAME", 'columns ["a", "__rootdirs__"]'),
        ("ct_name_empty", ["a", ""], "UNSAFE_NAME", 'columns ["a", ""]'),
        ("ct_name_space", ["a", "b c"], "UNSAFE_NAME", 'columns ["a", "b c"]'),
        ("ct_name_dot_lock", ["a", ".lock"], "UNSAFE_NAME", 'columns ["a", ".lock"]'),
        ("ct_columns_empty", [], "BAD_METADATA", "columns []"),
        ("ct_columns_duplicate", ["a", "a"], "BAD_METADATA", 'columns ["a", "a"]'),
        ("ct_columns_not_strings", ["a", 1], "BAD_METADATA", 'columns ["a", 1]'),
        ("ct_columns_not_list", "a", "BAD_METADATA", 'columns "a"'),
    ]:
        rule = "v2.md §11: column names are distinct ASCII identifiers" if code == "UNSAFE_NAME" else "v2.md §11, ctable-storage schema: non-empty list of distinct strings"
        B(name, code, rule, "meta/storage " + mut, ct(names))
    f = ct(); del f["meta/storage"]; f["meta/storage"] = b'{"format_version": 2, "kind": "ctable"}\n'
    B("ct_columns_missing", "BAD_METADATA", "ctable-storage schema: columns required", "meta/storage without columns", f)
    B("ct_column_lengths_differ", "INCONSISTENT", "v2.md §11: all columns have the same length", "column b has 9 rows, a 10",
      ct(cols=[("a", Carray(np.arange(10, dtype="<i4"), chunklen=4, S=2)), ("b", Carray(np.arange(9, dtype="<f8"), chunklen=4, S=2))]))
    f = ct(); st = json.loads(f["data/b/meta/storage"]); st["format_version"] = 1; f["data/b/meta/storage"] = jdump(st)
    B("ct_column_format_version_1", "INCONSISTENT", "v2.md §11: a column's own format_version MUST be 2", "data/b/meta/storage format_version 1", f)
    f = ct(); st = json.loads(f["data/b/meta/storage"]); del st["format_version"]; f["data/b/meta/storage"] = jdump(st)
    B("ct_column_no_format_version", "INCONSISTENT", "v2.md §11: a column's own format_version MUST be 2", "data/b/meta/storage without format_version", f)
    f = ct()
    for k in [k for k in f if k.startswith("data/b/")]:
        del f[k]
    inner = Ctable([("x", Carray(np.arange(10, dtype="<i4"), chunklen=4, S=2))]).build()
    for k, v in inner.items():
        f["data/b/" + k] = v
    B("ct_nested_ctable", "BAD_METADATA", "v2.md §11: a nested ctable is BAD_METADATA (/kind)", "column b is itself a ctable", f)
    B("ct_attrs_missing", "MISSING_FILE", "v2.md §11: table root __attrs__ required", "__attrs__ of the table root deleted", ct(attrs=False))
    f = ct()
    for k in [k for k in f if k.startswith("data/b/")]:
        del f[k]
    B("ct_column_dir_missing", "MISSING_FILE", "v2.md §11, §3.1 step 2: the column's meta/storage absent", "data/b/ deleted", f)
    f = ct(); del f["data/b/meta/shape"]
    B("ct_column_shape_missing", "MISSING_FILE", "v2.md §10.5 in a column", "data/b/meta/shape deleted", f)
    f = ct(); f["data/b/data/__1__.bin"] = patch(f["data/b/data/__1__.bin"], 6, b"\x09")
    B("ct_column_superchunk_bad_header", "BAD_HEADER", "v2.md §4.3 step 6 in a column", "data/b/data/__1__.bin checksum id 9", f)
    f = ct(); st = json.loads(f["data/a/meta/storage"]); st["kind"] = "vlarray"; f["data/a/meta/storage"] = jdump(st)
    B("ct_column_kind_mismatch", "BAD_METADATA", "v2.md §12, vlarray-storage schema: a root of kind vlarray needs vtype", "data/a/meta/storage kind \"vlarray\" (no vtype)", f)

    # -------- vlarrays §12
    words = ["ab", "", "héllo", "xyz", "ok"]

    def vl_files(fn=None, vtype="utf8", elements=words, **kw):
        v = Vlarray(elements, vtype, chunklen=4, S=2, **kw)
        if fn:
            fn(v)
        return v.build()

    def set_offsets(v, arr):
        v.offsets = Carray(np.array(arr, dtype="<i8") if not isinstance(arr, np.ndarray) else arr, chunklen=v.offsets.chunklen, S=2)

    B("vl_offsets0_nonzero", "INCONSISTENT", "v2.md §12: offsets[0] MUST be 0", "offsets [1, 2, 2, 8, 11, 13]", vl_files(lambda v: set_offsets(v, [1, 2, 2, 8, 11, 13])))
    B("vl_offsets_decreasing", "INCONSISTENT", "v2.md §12: offsets[k] ≤ offsets[k+1]", "offsets [0, 2, 2, 8, 6, 13]", vl_files(lambda v: set_offsets(v, [0, 2, 2, 8, 6, 13])))
    B("vl_offsets_past_values", "INCONSISTENT", "v2.md §12: offsets[k+1] ≤ len(values)", "offsets [0, 2, 2, 8, 11, 14] with 13 values", vl_files(lambda v: set_offsets(v, [0, 2, 2, 8, 11, 14])))
    B("vl_offsets_empty", "INCONSISTENT", "v2.md §12: len(offsets) ≥ 1", "offsets carray of length 0", vl_files(lambda v: set_offsets(v, np.zeros(0, "<i8"))))
    B("vl_offsets_dtype_i4", "INCONSISTENT", "v2.md §12: offsets/ dtype <i8", "offsets carray of <i4", vl_files(lambda v: set_offsets(v, np.array([0, 2, 2, 8, 11, 13], "<i4"))))
    B("vl_offsets_2d", "INCONSISTENT", "v2.md §12: offsets/ one-dimensional", "offsets carray of shape [3, 2]", vl_files(lambda v: set_offsets(v, np.array([[0, 2], [2, 8], [11, 13]], "<i8"))))
    B("vl_values_dtype_i2_utf8", "INCONSISTENT", "v2.md §12: values/ of |u1 for utf8", "values carray of <i2",
      vl_files(lambda v: setattr(v, "values", Carray(np.arange(13, dtype="<i2"), chunklen=4, S=2))))
    B("vl_values_dtype_i1_bytes", "INCONSISTENT", "v2.md §12: values/ of |u1 for bytes", "values carray of |i1 in a bytes vlarray",
      vl_files(lambda v: setattr(v, "values", Carray(np.arange(13, dtype="|i1"), chunklen=4, S=2)), vtype="bytes", elements=[w.encode() for w in words]))
    B("vl_values_2d", "INCONSISTENT", "v2.md §12: values/ one-dimensional", "values carray of shape [13, 1]",
      vl_files(lambda v: setattr(v, "values", Carray(np.frombuffer("abhéllo".encode() + b"xyzok", "|u1").reshape(13, 1).copy(), chunklen=4, S=2))))
    B("vl_invalid_utf8", "INCONSISTENT", "v2.md §12: a utf8 element MUST be valid UTF-8", "element 3 = 78 FF 7A",
      vl_files(lambda v: setattr(v, "values", Carray(np.frombuffer("abhéllo".encode() + b"x\xffzok", "|u1").copy(), chunklen=4, S=2))))
    B("vl_utf8_surrogate", "INCONSISTENT", "v2.md §12: valid UTF-8 (no encoded surrogates)", "element 3 = ED A0 80 (U+D800)",
      vl_files(lambda v: setattr(v, "values", Carray(np.frombuffer("abhéllo".encode() + b"\xed\xa0\x80ok", "|u1").copy(), chunklen=4, S=2))))
    B("vl_utf8_overlong", "INCONSISTENT", "v2.md §12: valid UTF-8 (no overlong forms)", "element 3 = C0 AF 7A (overlong '/')",
      vl_files(lambda v: setattr(v, "values", Carray(np.frombuffer("abhéllo".encode() + b"\xc0\xafzok", "|u1").copy(), chunklen=4, S=2))))
    B("vl_utf8_split_sequence", "INCONSISTENT", "v2.md §12: each element valid UTF-8 on its own", "offsets [0, 2, 2, 4, 11, 13]: element 2 ends inside é (68 C3)",
      vl_files(lambda v: set_offsets(v, [0, 2, 2, 4, 11, 13])))
    f = vl_files(); f["meta/storage"] = jdump({"format_version": 2, "kind": "vlarray", "vtype": "string"})
    B("vl_vtype_unknown", "BAD_METADATA", "vlarray-storage schema: vtype utf8, bytes or ragged", 'vtype "string"', f)
    f = vl_files(); f["meta/storage"] = jdump({"format_version": 2, "kind": "vlarray"})
    B("vl_vtype_missing", "BAD_METADATA", "vlarray-storage schema: vtype required", "no vtype", f)
    f = vl_files(); del f["__attrs__"]
    B("vl_attrs_missing", "MISSING_FILE", "v2.md §12: vlarray root __attrs__ required", "__attrs__ deleted", f)
    f = vl_files()
    for k in [k for k in f if k.startswith("values/")]:
        del f[k]
    B("vl_values_missing", "MISSING_FILE", "v2.md §12: values/ carray root required", "values/ deleted", f)
    f = vl_files(); del f["offsets/__attrs__"]
    B("vl_offsets_attrs_missing", "MISSING_FILE", "v2.md §12: each sub-carray has its own __attrs__", "offsets/__attrs__ deleted", f)
    f = vl_files(); f["values/data/__1__.bin"] = patch(f["values/data/__1__.bin"], 0, b"BLPK")
    B("vl_values_bad_magic", "BAD_MAGIC", "v2.md §4.3 in a vlarray's values", "values/data/__1__.bin magic BLPK", f)
    # vlarray as ctable column with invalid UTF-8
    bad_vl = Vlarray(words, "utf8", chunklen=4, S=2)
    bad_vl.values = Carray(np.frombuffer("abhéllo".encode() + b"x\xffzok", "|u1").copy(), chunklen=4, S=2)
    f = Ctable([("k", Carray(np.arange(5, dtype="<i4"), chunklen=4, S=2)), ("s", bad_vl)]).build()
    B("ct_vlarray_column_invalid_utf8", "INCONSISTENT", "v2.md §11, §12: utf8 column element invalid", "column s element 3 = 78 FF 7A", f)
    f = Ctable([("k", Carray(np.arange(6, dtype="<i4"), chunklen=4, S=2)), ("s", Vlarray(words, "utf8", chunklen=4, S=2))]).build()
    B("ct_vlarray_column_length_differs", "INCONSISTENT", "v2.md §11: all columns have the same length (a vlarray's length is its element count)", "column k has 6 rows, vlarray column s 5 elements", f)
