"""The valid cases of v2/synth-valid: the dtype/codec/checksum matrix, attrs, the layouts later operations leave, vlarrays and ctables."""
import struct

import numpy as np

from . import values as V
from .dataset import Carray, Ctable, Vlarray
from .fmt import bind, compress, jdump, meta_section, raw_checksum, relocate, set_header, next_file
from .registry import add_carray, add_ctable, add_vlarray, patch, rng_for


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

    # v2.md §15.1 item 4: of the live entries, only those of required chunks are range-checked
    # (§7.1); the others are ignored with their chunks. Only the last required superchunk can hold
    # such entries (nchunks above n_s, §6.1, §10.4); its required chunks are full here, so that
    # §7.4 step 3 (nbytes = chunk-size below nchunks - 1) holds for them whatever nchunks says.
    name = "i4_unrequired_live_entries_free"
    ca = Carray(V.make(rng_for(name), "<i4", 500), chunklen=100, S=4)
    # data/__2__.bin: n_s = 1; nchunks 3 (one flipped bit of 1, §6.1); entries 1 and 2 still -1
    ca.sc_kw[2] = {"nchunks": 3, "last_chunk": 100 * 4}
    add_carray(name, ca, "v2.md §15.1 item 4, §6.1 (nchunks above n_s): live entries -1 of chunks the length does not need are ignored",
               ops=["create 500", "data/__2__.bin nchunks 1 -> 3 (a flipped bit)"], derived_from="i4_two_full_superchunks",
               notes="data/__2__.bin: n_s = 1, nchunks 3, capacity 4; offsets[1] = offsets[2] = -1 (live by nchunks, not required)")

    name = "i4_unrequired_live_entries_out_of_range"
    # spare 0: the last required chunk's checksum ends at the end of the file
    ca = Carray(V.make(rng_for(name), "<i4", 900), chunklen=100, S=8, spare=0)
    ca.sc_kw[2] = {"nchunks": 8, "last_chunk": 100 * 4}
    files = ca.build()
    b = files["data/__2__.bin"]
    info = ca.infos[2]
    data_start = info["table_off"] + 8 * 8
    # one value of each kind §7.1 refuses. offsets[1] = file length - 15 is also the entry after
    # the last required chunk: a reader that bounded chunk 0's read by it (§9's "entry i + 1 when
    # it is live") would cut off chunk 0's checksum; as an ignored entry it must not be used.
    bad = {1: len(b) - 15, 2: -1, 3: 0, 4: 32, 5: data_start - 8, 6: 2 ** 62, 7: -(2 ** 63)}
    for i, v in bad.items():
        b = patch(b, info["table_off"] + 8 * i, struct.pack("<q", v))
    files["data/__2__.bin"] = b
    add_carray(name, ca, "v2.md §15.1 item 4: live entries of chunks the length does not need are not range-checked (§7.1) and their chunks are not read",
               files=files, ops=["create 900", "data/__2__.bin nchunks 1 -> 8, entries 1-7 damaged"], derived_from="i4_two_full_superchunks",
               notes="data/__2__.bin: n_s = 1, nchunks 8 = capacity; valid offsets %d..%d (file length - 16); offsets[1..7] = %s"
                     % (data_start, len(b) - 16, ", ".join(str(bad[i]) for i in range(1, 8))))

    name = "i4_unrequired_live_chunk_zeroed"
    full = V.make(rng_for(name), "<i4", 600)
    ca = Carray(full[:500], chunklen=100, S=4)
    # an append killed after a power failure: the entry and nchunks reached the disk, the new
    # slot's bytes did not (zeros); meta/shape still says 500, so chunk 5 is not required
    ca.extra_chunks[2] = [compress(full[500:600].tobytes(), 4, 5, 1, "lz4")]
    files = ca.build()
    off, slot_len = ca.infos[2]["slot"][1]
    files["data/__2__.bin"] = patch(files["data/__2__.bin"], off, b"\0" * slot_len)
    add_carray(name, ca, "v2.md §15.1 item 4, §10.4: an in-range live entry of a chunk the length does not need is ignored with its chunk (zeroed slot)",
               files=files, ops=["create 500", "append 100 killed: entry and nchunks written, slot bytes lost"], derived_from="i4_two_full_superchunks",
               notes="data/__2__.bin: n_s = 1, nchunks 2; offsets[1] = %d, a slot of %d zero bytes (Blosc version 0, checksum not matching)" % (off, slot_len))

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
