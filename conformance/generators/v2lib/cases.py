"""The cases of conformance/corpus/v2 (see v2_corpus.py for how to run)."""
import json
import os
import random
import re
import shutil
import struct
import zlib

import blosc
import numpy as np

from . import values as V
from .dataset import Carray, Ctable, Vlarray, category, le_bytes, sha
from .fmt import (CHECKSUM_NAMES, bind, compress, jdump, meta_section, raw_checksum, relocate,
                  set_header, superchunk, next_file)

SEED = 20261124
# Spec rule ids each case pins (spec/conformance.md §2.3), kept for every hand-written set in one file.
with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "existing-rules.json"), encoding="utf-8") as _fh:
    EXISTING_RULES = json.load(_fh)
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
OUT = os.path.join(REPO, "conformance", "corpus", "v2")
SPEC = os.path.join(REPO, "spec", "v2.md")

VALID = []    # (name, files, expected {fname: bytes}, manifest entry)
BROKEN = []


def rng_for(name):
    return random.Random(SEED + zlib.crc32(name.encode()))


def patch(b, off, new):
    b = bytearray(b)
    b[off:off + len(new)] = new
    return bytes(b)


# ------------------------------------------------------------------ registration

def add_carray(name, ca, rule, *, files=None, ops=None, derived_from=None, notes=None, exp_arr=None):
    files = ca.build() if files is None else files
    exp = le_bytes(exp_arr) if exp_arr is not None else ca.expected()
    m = {"name": name, "rootdir": "data.bcolz", "kind": "carray", "format": 2}
    m.update(ca.manifest())
    if exp_arr is not None:
        m["shape"] = list(exp_arr.shape)
    m["attrs"] = ca.attrs
    m["expected"] = {"values.bin": sha(exp)}
    m["files"] = sorted(files)
    m["rule"] = rule
    m["ops"] = ops or ["create"]
    if derived_from:
        m["derived_from"] = "synth-valid/" + derived_from
    if notes:
        m["notes"] = notes
    VALID.append((name, files, {"values.bin": exp}, m))


def add_vlarray(name, vl, rule, *, files=None, ops=None, derived_from=None, notes=None):
    files = vl.build() if files is None else files
    exp = vl.expected()
    m = {"name": name, "rootdir": "data.bcolz", "kind": "vlarray", "format": 2}
    m.update(vl.manifest())
    m["attrs"] = vl.attrs
    m["expected"] = {"values.bin": sha(exp)}
    m["files"] = sorted(files)
    m["rule"] = rule
    m["ops"] = ops or ["create"]
    if derived_from:
        m["derived_from"] = "synth-valid/" + derived_from
    if notes:
        m["notes"] = notes
    VALID.append((name, files, {"values.bin": exp}, m))


def add_ctable(name, ct, rule, *, files=None, ops=None, derived_from=None, notes=None, length=None, cut=None):
    files = ct.build() if files is None else files
    cols, exps, dts = [], {}, []
    for name_c, col in ct.columns:
        if isinstance(col, Vlarray):
            mc = col.manifest()
            e = col.expected()
        else:
            mc = col.manifest()
            arr = col.arr if cut is None else col.arr[:cut]
            e = le_bytes(arr)
            mc["shape"] = list(arr.shape)
        fname = name_c + ".bin"
        exps[fname] = e
        c = {"name": name_c}
        c.update(mc)
        c.update({"attrs": col.attrs, "expected_file": fname})
        c.update(sha(e))
        cols.append(c)
        dts.append([name_c, mc["dtype"]])
    lens = {c["shape"][0] for c in cols}
    n = length if length is not None else lens.pop()
    m = {"name": name, "rootdir": "data.bcolz", "kind": "ctable", "format": 2, "dtype": dts, "len": n,
         "shape": [n]}
    cls = {c["chunklen"] for c in cols}
    m["chunklen"] = cls.pop() if len(cls) == 1 else None
    cps = {json.dumps(c["cparams"]) for c in cols}
    m["cparams"] = json.loads(cps.pop()) if len(cps) == 1 else None
    m["attrs"] = ct.attrs
    m["columns"] = cols
    m["expected"] = {k: sha(v) for k, v in exps.items()}
    m["files"] = sorted(files)
    m["rule"] = rule
    m["ops"] = ops or ["create"]
    if derived_from:
        m["derived_from"] = "synth-valid/" + derived_from
    if notes:
        m["notes"] = notes
    VALID.append((name, files, exps, m))


def add_broken(name, files, code, rule, mutation):
    m = {"name": name, "rootdir": "data.bcolz", "rule": rule, "mutation": mutation,
         "category": category(code), "expect": {"error": code}}
    BROKEN.append((name, files, {}, m))


# ------------------------------------------------------------------ spec self-test

def spec_hex(name):
    text = open(SPEC, encoding="utf-8").read()
    m = re.search(r"```hex %s\n(.*?)```" % re.escape(name), text, re.S)
    out = bytearray()
    for line in m.group(1).splitlines():
        line = re.sub(r"^[0-9A-Fa-f]{4}:\s*", "", line.strip())
        for tok in line.split():
            if re.fullmatch(r"[0-9A-Fa-f]{2}", tok):
                out.append(int(tok, 16))
            else:
                break
    return bytes(out)


def self_test():
    assert raw_checksum(1, b"abc") == bytes.fromhex("27014D02")
    assert raw_checksum(1, b"") == bytes.fromhex("01000000")
    c0 = compress(np.array([1, 2], "<i4").tobytes(), 4, 5, 1, "lz4")
    c1 = compress(np.array([3], "<i4").tobytes(), 4, 5, 1, "lz4")
    b, info = superchunk([c0, c1], cid=1, typesize=4, chunk_size=8, spare_pct=50, capacity=4)
    assert b == spec_hex("superchunk-dataset"), "§8.1"
    b2, _ = superchunk([c0, c1], cid=2, typesize=4, chunk_size=8, options=1)
    assert b2 == spec_hex("superchunk-no-metadata"), "§8.2"
    c1b = compress(np.array([3, 4], "<i4").tobytes(), 4, 5, 1, "lz4")
    b3, _ = relocate(b, info, 1, c1b, cid=1, g=1, spare_pct=50, chunk_size=8)
    assert set_header(b3, last_chunk=8) == spec_hex("superchunk-relocated"), "§8.3"


# ------------------------------------------------------------------ valid cases

def valid_cases():
    # §8.1 exactly
    ca = Carray(np.array([1, 2, 3], "<i4"), chunklen=2, S=4, cparams=(5, 1, "lz4"), spare=50)
    add_carray("spec_8_1_i4_adler32", ca, "v2.md §8.1 (worked example, byte for byte)")

    # dtype / codec / shuffle / checksum matrix
    matrix = [
        # name, dtype, n, trailing, chunklen, S, (clevel, shuffle, cname), checksum, spare
        ("b1_blosclz_crc32", "|b1", 1000, (), 256, 2, (5, 1, "blosclz"), "crc32", 10),
        ("i1_lz4_noshuffle_md5", "|i1", 777, (), 100, 3, (5, 0, "lz4"), "md5", 10),
        ("i2_lz4hc_bitshuffle_sha1", "<i2", 1500, (), 200, 4, (9, 2, "lz4hc"), "sha1", 10),
        ("i4_zlib_sha224", "<i4", 5000, (), 1024, 2, (6, 1, "zlib"), "sha224", 10),
        ("i8_zstd_sha256", "<i8", 3000, (), 500, 8, (3, 1, "zstd"), "sha256", 20),
        ("u1_snappy_sha384", "|u1", 600, (), 128, 1, (5, 0, "snappy"), "sha384", 10),
        ("u2_blosclz_bitshuffle_sha512", "<u2", 2000, (), 300, 3, (9, 2, "blosclz"), "sha512", 10),
        ("u4_lz4_c1_none", "<u4", 1234, (), 234, 2, (1, 1, "lz4"), "none", 10),
        ("u8_lz4_bitshuffle_leftover100", "<u8", 2100, (), 400, 2, (5, 2, "lz4"), "adler32", 10),
        ("f2_zstd_crc32_exact", "<f2", 1000, (), 250, 2, (5, 1, "zstd"), "crc32", 10),
        ("f4_zlib_c1_s1_three_files", "<f4", 999, (), 333, 1, (1, 1, "zlib"), "adler32", 10),
        ("f8_blosclz_partial", "<f8", 4000, (), 512, 4, (5, 1, "blosclz"), "adler32", 10),
        ("S7_lz4", "|S7", 800, (), 128, 2, (5, 1, "lz4"), "adler32", 10),
        ("U5_zstd_sha256", "<U5", 500, (), 64, 4, (5, 1, "zstd"), "sha256", 10),
        ("M8ns_lz4_crc32", "<M8[ns]", 700, (), 100, 3, (5, 1, "lz4"), "crc32", 10),
        ("be_i4_lz4", ">i4", 1000, (), 300, 2, (5, 1, "lz4"), "adler32", 10),
        ("be_f8_zlib_bitshuffle_md5", ">f8", 900, (), 256, 2, (5, 2, "zlib"), "md5", 10),
        ("be_U3_blosclz_sha1", ">U3", 300, (), 100, 2, (5, 1, "blosclz"), "sha1", 10),
        ("be_u2_snappy", ">u2", 1000, (), 400, 1, (5, 1, "snappy"), "adler32", 0),
        ("be_M8ns_zstd_noshuffle_crc32", ">M8[ns]", 200, (), 64, 2, (5, 0, "zstd"), "crc32", 10),
        ("be_i8_lz4hc_sha512", ">i8", 500, (), 128, 3, (7, 1, "lz4hc"), "sha512", 10),
        ("be_f4_lz4_sha384", ">f4", 640, (), 160, 2, (4, 1, "lz4"), "sha384", 100),
        ("f8_rows3_lz4", "<f8", 1000, (3,), 200, 2, (5, 1, "lz4"), "adler32", 10),
        ("i2_rows2x4_zstd_bitshuffle", "<i2", 333, (2, 4), 50, 3, (5, 2, "zstd"), "crc32", 10),
        ("S300_wide_lz4", "|S300", 50, (), 16, 2, (5, 1, "lz4"), "adler32", 10),
        ("i4_clevel0_memcpyed_zstd", "<i4", 1000, (), 256, 2, (0, 1, "zstd"), "adler32", 10),
        ("i4_len1", "<i4", 1, (), 1024, 4, (5, 1, "lz4"), "adler32", 10),
        ("f8_len_below_chunklen", "<f8", 100, (), 128, 2, (5, 1, "lz4"), "adler32", 10),
        ("i4_two_full_superchunks", "<i4", 1024, (), 128, 4, (5, 1, "lz4"), "adler32", 10),
        ("i4_superchunksize1_chunklen1", "<i4", 7, (), 1, 1, (5, 1, "lz4"), "crc32", 10),
        ("i4_superchunk_many_chunks_S64", "<i4", 3000, (), 16, 64, (5, 1, "blosclz"), "adler32", 10),
    ]
    for name, dt, n, tr, cl, S, cp, ck, sp in matrix:
        arr = V.make(rng_for(name), dt, n, tr)
        ca = Carray(arr, chunklen=cl, S=S, cparams=cp, checksum=ck, spare=sp)
        add_carray(name, ca, "v2.md §10, §4-§7 (dtype %s, %s, shuffle %d, checksum %s)" % (dt, cp[2], cp[1], ck))

    ca = Carray(np.zeros(0, "<i4"), chunklen=100, S=4)
    add_carray("i4_len0_no_data_dir", ca, "v2.md §10.3: len 0 requires no superchunk and no data/")

    # attrs, dflt
    ca = Carray(V.make(rng_for("attrs"), "<f8", 300), chunklen=100, S=2, dflt=float("nan"),
                attrs={"units": "m/s", "scale": 0.5, "n": 3, "ok": True, "none": None,
                       "nested": {"list": [1, 2.5, "x", [None, False]], "deep": {"k": "v", "e": []}},
                       "unicode": "na\u00efve \u2603 \U0001F600", "big": 18446744073709551615,
                       "small": 1e-05, "exp": 1e+16})
    add_carray("f8_attrs_nan_dflt", ca, "v1.md §12.1, §11.2 via v2.md §10.1 (dflt NaN as bare token)")
    ca = Carray(V.make(rng_for("u8dflt"), "<u8", 100), chunklen=32, S=2, dflt=18446744073709551615)
    add_carray("u8_dflt_max", ca, "v1.md §11.2 via v2.md §10.1 (exact 64-bit dflt)")
    ca = Carray(V.make(rng_for("b1d"), "|b1", 50), chunklen=16, S=2, dflt=True)
    add_carray("b1_dflt_true", ca, "v1.md §11.2 (bool dflt)")

    # ---- leniencies and layouts a writer's later operations leave (derived_from: no write check)
    # §8.3: relocated by append, committed
    ca = Carray(np.array([1, 2, 3, 4], "<i4"), chunklen=2, S=4, spare=50)
    src = Carray(np.array([1, 2, 3], "<i4"), chunklen=2, S=4, spare=50)
    b = src.superchunk_bytes(1)
    b, _ = relocate(b, src.infos[1], 1, ca.chunk(1), cid=1, g=1, spare_pct=50, chunk_size=8)
    b = set_header(b, last_chunk=8)
    files = {"meta/storage": jdump(ca.storage()), "meta/shape": jdump({"shape": [4]}),
             "__attrs__": jdump({}), "data/__1__.bin": b}
    add_carray("spec_8_3_relocated_dead_space", ca, "v2.md §8.3, §13.5, §7.1 (offsets not increasing, dead space with zeroed Blosc header)",
               files=files, ops=["create len 3", "append 1 (relocation)"], derived_from="spec_8_1_i4_adler32")
    # same file, killed before meta/shape was replaced: length 3, chunk 1 holds 2 rows
    files = dict(files)
    files["meta/shape"] = jdump({"shape": [3]})
    add_carray("spec_8_3_killed_before_commit", src, "v2.md §8.3 last paragraph, §10.4 leniency (last chunk holds more rows than the length needs)",
               files=files, ops=["create len 3", "append 1 killed before meta/shape"], derived_from="spec_8_1_i4_adler32")

    # trim interrupted: last chunk full although the length needs fewer rows; nchunks > n_s; stale last-chunk
    name = "i4_trim_interrupted"
    full = V.make(rng_for(name), "<i4", 1100)
    ca = Carray(full, chunklen=128, S=4, cparams=(5, 1, "lz4"))
    files = ca.build()  # 9 chunks: superchunks 1 (0-3), 2 (4-7), 3 (8, partial)
    files["meta/shape"] = jdump({"shape": [1000]})  # N = 8 -> superchunks 1, 2; chunk 7 needs 104 rows
    add_carray(name, ca, "v2.md §13.3, §10.4 (superchunks beyond the required ones ignored)",
               files=files, ops=["create 1100", "trim(1000) killed after the commit"], derived_from="i4_two_full_superchunks",
               exp_arr=full[:1000])
    name = "i4_trim_interrupted_partial_last"
    full = V.make(rng_for(name), "<i4", 1000)
    ca = Carray(full, chunklen=128, S=4)
    files = ca.build()
    files["meta/shape"] = jdump({"shape": [950]})  # last required chunk 7 (104 rows stored, 54 needed)
    add_carray(name, ca, "v2.md §10.4: last required chunk with nbytes ≥ rest × atomsize, ≤ chunklen × atomsize",
               files=files, ops=["create 1000", "trim(950) killed after the commit"], derived_from="i4_two_full_superchunks",
               exp_arr=full[:950])

    # header nchunks above n_s (interrupted append wrote a further chunk), last-chunk stale
    name = "i4_nchunks_above_required"
    full = V.make(rng_for(name), "<i4", 700)
    ca = Carray(full[:600], chunklen=100, S=8)
    extra = compress(full[600:700].tobytes(), 4, 5, 1, "lz4")
    ca.extra_chunks[1] = [extra]
    ca.sc_kw[1] = {"last_chunk": 100 * 4}
    add_carray(name, ca, "v2.md §10.4 (nchunks ≥ n_s), §4.2 (last-chunk is a hint), §13.2",
               ops=["create 600", "append 100 killed before meta/shape"], derived_from="i4_two_full_superchunks")

    name = "i4_last_chunk_hint_wrong"
    ca = Carray(V.make(rng_for(name), "<i4", 250), chunklen=100, S=4)
    ca.sc_kw[1] = {"last_chunk": 7}
    add_carray(name, ca, "v2.md §4.2: last-chunk is a hint; readers use the chunk's own nbytes",
               derived_from="i4_two_full_superchunks")

    name = "i4_free_entries_garbage"
    ca = Carray(V.make(rng_for(name), "<i4", 250), chunklen=100, S=6)
    ca.sc_kw[1] = {"free_fill": 123456789}
    add_carray(name, ca, "v2.md §7.1: entries at or above nchunks are ignored whatever they hold",
               derived_from="i4_two_full_superchunks")

    name = "f8_slots_reverse_order"
    ca = Carray(V.make(rng_for(name), "<f8", 1000), chunklen=100, S=8, cparams=(5, 1, "zstd"))
    ca.sc_kw[1] = {"order": [7, 3, 5, 1, 0, 6, 2, 4]}
    ca.sc_kw[2] = {"order": [1, 0]}
    add_carray(name, ca, "v2.md §7.1: offsets need not increase; readers must not derive positions",
               derived_from="i4_two_full_superchunks")

    name = "i4_relocated_middle_chunk_zeroed"
    arr = V.make(rng_for(name), "<i4", 800)
    old = arr.copy()
    old[300:400] = 0
    ca = Carray(arr, chunklen=100, S=8, cparams=(5, 1, "lz4"), checksum="sha1", spare=10)
    src = Carray(old, chunklen=100, S=8, cparams=(5, 1, "lz4"), checksum="sha1", spare=10)
    files = src.build()
    b, _ = relocate(files["data/__1__.bin"], src.infos[1], 3, ca.chunk(3), cid=4, g=3, spare_pct=10, chunk_size=400)
    files["data/__1__.bin"] = b
    add_carray(name, ca, "v2.md §13.5: relocation of one chunk; old slot's Blosc header zeroed (dead space)",
               files=files, ops=["create", "set rows 300-399 (relocation)"], derived_from="i4_two_full_superchunks")

    # journal unfinished (§13.4)
    for name, installed, deleted in [("i4_journal_during_install", [(1, 1, 1), (1, 2, 2)], []),
                                     ("i4_journal_during_cleanup", [(1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 0, 4)], [(1, 1), (1, 2)])]:
        new = V.make(rng_for("journal"), "<i4", 1000)
        old = new.copy()
        old[150:450] = -1
        ca = Carray(new, chunklen=100, S=4, checksum="crc32")
        src = Carray(old, chunklen=100, S=4, checksum="crc32")
        files = src.build()
        infos = dict(src.infos)
        for s_, i, g in installed:
            key = "data/__%d__.bin" % s_
            b = files[key]
            nc = ca.chunk(g)
            img = nc + bind(raw_checksum(2, nc), g)
            if len(img) <= infos[s_]["slot"][i][1]:
                b = patch(b, infos[s_]["offsets"][i], img)  # in place (§13.4 step 3)
            else:  # does not fit: relocation (§13.4 step 3, §13.5)
                b, infos[s_] = relocate(b, infos[s_], i, nc, cid=2, g=g, spare_pct=10, chunk_size=400)
            files[key] = b
        for s_, i, g in [(1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 0, 4)]:
            if (s_, i) not in deleted:
                files["data/__%d__.bin.%d.next" % (s_, i)] = next_file(ca.chunk(g), 2, g)
        files[".journal"] = jdump({"format": 2, "chunks": [[1, 1], [1, 2], [1, 3], [2, 0]]})
        add_carray(name, ca, "v2.md §13.4: while .journal exists listed chunks are read from .next when present, else from the superchunk",
                   files=files, ops=["create", "set rows 150-449 (journaled), killed in step %s" % ("3" if not deleted else "4")],
                   derived_from="i4_two_full_superchunks",
                   notes="chunks (1,1)..(2,0) listed; installed: %s; .next deleted: %s" % ([x[:2] for x in installed], deleted))

    name = "i4_next_without_journal_ignored"
    arr = V.make(rng_for(name), "<i4", 400)
    ca = Carray(arr, chunklen=100, S=4)
    files = ca.build()
    files["data/__1__.bin.1.next"] = next_file(compress(np.full(100, 7, "<i4").tobytes(), 4, 5, 1, "lz4"), 1, 1)
    files["data/__1__.bin.compact"] = b"garbage left by an interrupted compaction"
    files["data/__2__.bin"] = b"not a superchunk: beyond the required ones, never read"
    files[".lock"] = b'{"token": "x"}\n'
    add_carray(name, ca, "v2.md §13.4 (before the commit .next files are invisible), §13.6, §10.4 (superchunks beyond ignored), §10.5",
               files=files, ops=["create", "update killed before .journal"], derived_from="i4_two_full_superchunks")

    name = "i4_chunk_typesize_differs"
    arr = V.make(rng_for(name), "<i4", 500)
    ca = Carray(arr, chunklen=128, S=2, cparams=(5, 1, "lz4"))
    ca.typesize = 1  # chunks compressed with Blosc typesize 1
    ca.header_typesize = 255
    add_carray(name, ca, "v2.md §4.2 (header typesize informational), v1.md §11.3 (chunk headers authoritative)",
               derived_from="i4_two_full_superchunks")

    name = "i4_checksum_per_file"
    ca = Carray(V.make(rng_for(name), "<i4", 900), chunklen=100, S=4, checksum="adler32")
    ca.sc_cid = {2: 6, 3: 0}
    add_carray(name, ca, "v2.md §10.1: each file's header decides its checksum (adler32, sha256, none)",
               derived_from="i4_two_full_superchunks")

    name = "i4_bcolz_dtype_spelling_unknown_keys"
    ca = Carray(V.make(rng_for(name), "<i4", 300), chunklen=100, S=2, dtype_str="int32")
    ca.storage_extra = [("comment", "unknown keys are ignored"), ("future", {"x": 1})]
    mraw = meta_section({"capacity": 2, "first_chunk": 0, "writer": "synth"}, extra_ws=b"\t\n\r ")
    ca.sc_kw[1] = {"meta_raw": mraw}
    ca.sc_kw[2] = {"meta_raw": meta_section({"first_chunk": 2, "capacity": 2, "x": [1, 2]}, extra_ws=b"\n")}
    files = ca.build()
    files["meta/shape"] = jdump({"shape": [300], "note": "extra keys allowed"})
    add_carray(name, ca, "v2.md §10.1 (dtype in any v1 §13 spelling; unknown keys ignored), §5 (other keys, JSON whitespace)",
               files=files, derived_from="i4_two_full_superchunks")

    # ---- vlarrays
    r = rng_for("vl")
    words = ["ab", "", "héllo", "naïve ☃", "\U0001F600 emoji", "x" * 150, "", "中文", "end"]
    words += ["".join(r.choice(V.UNI + list("abc ")) for _ in range(r.randint(0, 12))) for _ in range(200)]
    vl = Vlarray(words, "utf8", chunklen=64, S=4, attrs={"kind": "words"})
    add_vlarray("vl_utf8", vl, "v2.md §12 (utf8, elements spanning chunks)")
    # A write case carries one chunklen per vlarray, so the offsets' own chunklen is pinned by a
    # read-only case (derived_from keeps it out of the write check).
    vl = Vlarray(words, "utf8", chunklen=64, off_chunklen=32, S=4, attrs={"kind": "words"})
    add_vlarray("vl_utf8_offsets_chunklen_32", vl, "v2.md §12: offsets/ and values/ are carrays of their own (chunklens differ)",
                derived_from="vl_utf8")
    vl = Vlarray(["ab", "", "héllo"], "utf8", chunklen=4, S=2)
    add_vlarray("vl_utf8_spec_example", vl, "v2.md §12 example ['ab', '', 'héllo'] with values chunklen 4")
    r = rng_for("vlb")
    blobs = [bytes([0, 255, 10, 13]), b"", b"\x00" * 20] + [bytes(r.randrange(256) for _ in range(r.randint(0, 40))) for _ in range(60)]
    vl = Vlarray(blobs, "bytes", chunklen=100, S=2, cparams=(5, 0, "zstd"), checksum="sha256")
    add_vlarray("vl_bytes", vl, "v2.md §12 (bytes)")
    r = rng_for("vlr")
    rag = [[r.randint(-2 ** 31, 2 ** 31 - 1) for _ in range(r.randint(0, 9))] for _ in range(100)]
    vl = Vlarray(rag, "ragged", values_dtype="<i4", chunklen=50, S=3, cparams=(5, 1, "lz4hc"))
    add_vlarray("vl_ragged_i4", vl, "v2.md §12 (ragged <i4)")
    rag = [[r.gauss(0, 1) for _ in range(r.randint(0, 5))] for _ in range(80)]
    vl = Vlarray(rag, "ragged", values_dtype=">f8", chunklen=40, S=2, cparams=(5, 2, "zlib"), checksum="crc32")
    add_vlarray("vl_ragged_be_f8", vl, "v2.md §12 (ragged >f8; value file little-endian)")
    vl = Vlarray([], "utf8", chunklen=16, S=2)
    add_vlarray("vl_utf8_empty", vl, "v2.md §12: len(offsets) = 1, no element; values of length 0")
    vl = Vlarray(["one", "two", "three"], "utf8", chunklen=8, S=2, extra_values="tail of an interrupted append".encode())
    add_vlarray("vl_values_beyond_offsets", vl, "v2.md §12: values beyond offsets[n] are ignored",
                ops=["create", "append killed after values"], derived_from="vl_utf8")

    # ---- ctables
    name = "ctable_mixed"
    r = rng_for(name)
    n = 1500
    cols = [("id", Carray(np.arange(n, dtype="<i8"), chunklen=400, S=2)),
            ("price", Carray(V.make(r, "<f8", n), chunklen=400, S=2)),
            ("sym", Carray(V.make(r, "|S4", n), chunklen=400, S=2, dflt="")),
            ("name", Carray(V.make(r, "<U3", n), chunklen=400, S=2, dflt="")),
            ("flag", Carray(V.make(r, "|b1", n), chunklen=400, S=2, dflt=False))]
    add_ctable(name, Ctable(cols, attrs={"source": "synth"}), "v2.md §11 (columns under data/<name>/)")
    name = "ctable_with_vlarrays"
    r = rng_for(name)
    n = 120
    texts = ["".join(r.choice(V.UNI) for _ in range(r.randint(0, 6))) for _ in range(n)]
    rag = [[r.randint(0, 1000) for _ in range(r.randint(0, 4))] for _ in range(n)]
    cols = [("k", Carray(np.arange(n, dtype=">i4"), chunklen=50, S=2, cparams=(5, 1, "zstd"))),
            ("text", Vlarray(texts, "utf8", chunklen=64, S=2)),
            ("nums", Vlarray(rag, "ragged", values_dtype="<u2", chunklen=32, S=3)),
            ("pos", Carray(V.make(r, "<f4", n, (2,)), chunklen=16, S=4, checksum="sha1"))]
    add_ctable(name, Ctable(cols), "v2.md §11, §12 (vlarray columns; chunklen differs between columns)")
    name = "ctable_len0"
    cols = [("a", Carray(np.zeros(0, "<i4"), chunklen=10, S=2)),
            ("b", Vlarray([], "bytes", chunklen=10, S=2))]
    add_ctable(name, Ctable(cols), "v2.md §11, §10.3 (len 0)")
    name = "ctable_append_in_progress"
    r = rng_for(name)
    a = V.make(r, "<i4", 300)
    b_ = V.make(r, "<f8", 300)
    ca_a = Carray(a, chunklen=128, S=2)
    ca_b = Carray(b_[:260], chunklen=128, S=2)
    ct = Ctable([("a", ca_a), ("b", ca_b)])
    files = ct.build()
    files[".append"] = jdump({"format": 2, "length": 250})
    ca_b2 = Carray(b_[:260], chunklen=128, S=2)
    add_ctable(name, Ctable([("a", ca_a), ("b", ca_b2)]), "v2.md §11 (append journal .append, v1.md §8.5: recorded length wins while every column has at least it)",
               files=files, ops=["create 250", "append 50 killed after column a, during column b"], derived_from="ctable_mixed",
               length=250, cut=250)


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


# ------------------------------------------------------------------ output

PROV_VALID = """# Provenance of `v2/synth-valid`

Valid format-version-2 datasets: carrays over every dtype of v1.md §13 (little- and big-endian,
`S`, `U`, `M8[ns]`, N-d rows), every codec (blosclz, lz4, lz4hc, snappy, zlib, zstd), shuffles
0/1/2, every checksum id 0–8, one or many superchunks, `superchunksize` 1 to 64, partial and exact
last chunks, len 0 and 1; the byte-exact worked examples of v2.md §8.1 and §8.3; and the layouts
interrupted or later writes leave, which readers must accept: a relocated chunk with dead space
and a zeroed old Blosc header, a last chunk holding more rows than the length needs, header
`nchunks` above `n_s`, a stale `last-chunk`, garbage in free offsets entries, slots in any order,
an unfinished `.journal` with `data/__s__.bin.i.next` files, ignored `.next`/`.compact`/extra
superchunk files, per-file checksum ids; vlarrays (utf8, bytes, ragged) alone and as ctable
columns; ctables.

Made by `conformance/generators/v2_corpus.py` (run `python3 conformance/generators/v2_corpus.py`;
it re-executes itself with `/usr/bin/python3` when the interpreter lacks python3-blosc). The
generator was written from `spec/` alone (v2.md, v1.md, errors.md, conformance.md,
schemas/v2/) without reading or importing any implementation of this repository. Values come
from `random.Random(%(seed)d + crc32(case name))`; Blosc chunks are compressed by real c-blosc
%(blosc)s through python3-blosc %(pyblosc)s (one thread); superchunk headers, metadata sections,
offsets tables, checksums (Python's zlib and hashlib), spare room and all JSON files are built by
the generator. Expected value files are computed from the chosen values with numpy %(numpy)s, never read
back from the datasets. The generator first checks that it reproduces the hex examples of v2.md
§8.1–§8.3 byte for byte. Rerunning it reproduces this folder byte for byte.

Cases whose layout only a later operation produces carry `derived_from` (so the runner leaves
them out of the write check) and `ops`. Open questions about the spec: see
`conformance/generators/V2-SPEC-QUESTIONS.md`.
"""

PROV_BROKEN = """# Provenance of `v2/synth-broken`

Must-fail format-version-2 datasets: each breaks exactly one rule of v2.md §3–§13 that a reader
checks (every row of the §15 checklist is covered), named in the case's `rule`, with the error
code of errors.md in `expect.error` and the code's class as `category`. Most cases are small
variants of one base carray (`<i4`, len 10, chunklen 4, superchunksize 2, lz4, adler32:
`data/__1__.bin` holds chunks 0 and 1, `data/__2__.bin` chunk 2 with 2 rows); `mutation` says what
differs. Where a rule cannot be broken without also breaking a later check (for example a
`chunk-size` of 0 also contradicts chunklen), the expected code is the one of the check that
v2.md's reader order (§4.3, §15) reaches first. Checksums are recomputed after a mutation of a
chunk so that only the intended rule breaks, unless the checksum is the rule.

Made by `conformance/generators/v2_corpus.py` (seed %(seed)d), written from `spec/` alone, with
c-blosc %(blosc)s through python3-blosc; see `../synth-valid/PROVENANCE.md`. Rerunning it
reproduces this folder byte for byte.
"""


def write_set(setname, cases, notes, prov):
    d = os.path.join(OUT, setname)
    os.makedirs(d)
    manifest = {"format": "bcolz corpus manifest v2", "set": setname, "format_version": 2, "seed": SEED,
                "generator": "conformance/generators/v2_corpus.py (written from spec/ alone; c-blosc %s via python3-blosc)" % blosc.blosclib_version.split()[0],
                "notes": notes, "cases": []}
    names = set()
    for name, files, exps, m in cases:
        assert name not in names, name
        names.add(name)
        root = os.path.join(d, name, "data.bcolz")
        os.makedirs(root)
        for rel, data in sorted(files.items()):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as fh:
                fh.write(data)
        for sub in ("meta", "data"):
            pass
        ed = os.path.join(d, name, "expected")
        os.makedirs(ed)
        for fname, data in exps.items():
            with open(os.path.join(ed, fname), "wb") as fh:
                fh.write(data)
        ids = EXISTING_RULES.get("v2/%s/%s" % (setname, name))
        if ids is None:
            raise KeyError("no rule ids for v2/%s/%s in existing-rules.json" % (setname, name))
        m.update(ids)
        manifest["cases"].append(m)
    with open(os.path.join(d, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    with open(os.path.join(d, "PROVENANCE.md"), "w", encoding="utf-8") as fh:
        fh.write(prov)


def main():
    self_test()
    valid_cases()
    broken_cases()
    if os.path.isdir(OUT):
        for s in ("synth-valid", "synth-broken"):
            if os.path.isdir(os.path.join(OUT, s)):
                shutil.rmtree(os.path.join(OUT, s))
    info = {"seed": SEED, "blosc": blosc.blosclib_version.split()[0], "pyblosc": blosc.__version__, "numpy": np.__version__}
    write_set("synth-valid", VALID, [
        "valid format-version-2 datasets built from spec/ alone; expected/*.bin are little-endian C-order values (vlarrays: u64 LE byte length + bytes per element)",
        "cases with derived_from have layouts that only later operations produce and are left out of the write check",
    ], PROV_VALID % info)
    write_set("synth-broken", BROKEN, [
        "each case breaks exactly one rule (rule) and must fail with expect.error; category is the code's class in spec/errors.md",
    ], PROV_BROKEN % info)
    print("synth-valid: %d cases, synth-broken: %d cases" % (len(VALID), len(BROKEN)))
