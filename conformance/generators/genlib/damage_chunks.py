"""Chunk-level damage of a built dataset: v1 `.blp` chunk files and v2 superchunk files."""
import json
import struct

from . import damage as D
from v2lib import fmt as F2


def v1_chunk_damage(files, t, dmg, u, v):
    prefix, _, ca = t
    how = dmg["kind"]
    ks = list(range(len(ca.chunks)))
    if how in ("blosc_versionlz", "blosc_codec"):
        ks = [k for k in ks if not D.memcpyed(ca.chunks[k])]
    if how == "blosc_memcpy_cbytes":
        ks = [k for k in ks if D.memcpyed(ca.chunks[k])]
    if how == "chunk_nbytes":
        ks = [k for k in ks if k < ca.nfull]
    k = D.pick(ks, u)
    path = prefix + "data/__%d.blp" % k
    b = files[path]
    if how == "blpk_magic":
        bit = D.span(0, 31, v)
        nb = bytearray(b)
        nb[bit // 8] ^= 1 << (bit % 8)
        files[path] = bytes(nb)
        return files, "%s: bit %d of the blpk magic flipped" % (path, bit)
    if how == "blpk_version":
        val = D.pick([x for x in range(256) if x != 1], v)
        files[path] = D.patch(b, 4, bytes([val]))
        return files, "%s: blpk version byte %d" % (path, val)
    if how == "blpk_nchunks":
        val = D.pick([0, 2, 3, 255, -1, 2 ** 32 + 1, 2 ** 63 - 1, -(2 ** 63)], v)
        files[path] = D.patch(b, 8, struct.pack("<q", val))
        return files, "%s: blpk nchunks %d" % (path, val)
    if how == "truncate":
        cut = D.span(0, len(b) - 1, v)
        files[path] = b[:cut]
        return files, "%s: cut to %d of %d bytes" % (path, cut, len(b))
    if how.startswith("blosc_"):
        chunk, text = D.blosc_header_damage(b[16:], how[len("blosc_"):], u, v)
        files[path] = b[:16] + chunk
        return files, "%s: %s" % (path, text)
    if how == "chunk_nbytes":
        rows = D.pick([r for r in range(1, 2 * ca.chunklen + 1) if r != ca.chunklen], v)
        files[path] = b[:16] + ca.rows_chunk(k, rows)
        return files, "%s: full chunk holds %d rows instead of chunklen %d" % (path, rows, ca.chunklen)
    raise ValueError(how)


def v2_damage(files, t, dmg, u, v):
    prefix, _, ca = t
    how = dmg["kind"]
    s = D.span(1, ca.nsuper, dmg.get("s", 0.0))
    path = prefix + "data/__%d__.bin" % s
    b = files[path]
    info = ca.infos[s]
    first = (s - 1) * ca.S
    ns = min(ca.S, ca.N - first)
    meta_size = info["meta_size"]
    data_start = 32 + meta_size + 8 * ca.S
    cs = F2.CHECKSUM_SIZE[ca.cid(s)]
    if how == "sc_magic":
        bit = D.span(0, 31, v)
        nb = bytearray(b)
        nb[bit // 8] ^= 1 << (bit % 8)
        files[path] = bytes(nb)
        return files, "%s: bit %d of the blpk magic flipped" % (path, bit)
    if how == "sc_version":
        val = D.pick([x for x in range(256) if x != 2], v)
        files[path] = D.patch(b, 4, bytes([val]))
        return files, "%s: blpk version byte %d" % (path, val)
    if how == "sc_truncate_head":
        cut = D.span(0, 32 + meta_size + 8 * ns - 1, v)
        files[path] = b[:cut]
        return files, "%s: cut to %d bytes (header, metadata and live offsets take %d)" % (path, cut, 32 + meta_size + 8 * ns)
    if how == "sc_truncate_tail":
        # the last slot of the file is the last live chunk's: cut into its chunk or checksum, keeping its header
        last = max(info["slot"], key=lambda i: info["slot"][i][0])
        off, slot_len = info["slot"][last]
        clen = len(ca.chunk(first + last))
        spare = slot_len - clen - cs
        cut_from_end = D.span(spare + 1, spare + clen + cs - 16, v)
        files[path] = b[:len(b) - cut_from_end]
        return files, "%s: last %d bytes removed (chunk %d keeps its Blosc header)" % (path, cut_from_end, last)
    if how == "sc_options":
        val = dmg["value"]
        files[path] = D.patch(b, 5, bytes([val]))
        return files, "%s: options 0x%02x" % (path, val)
    if how == "sc_checksum_id":
        val = D.span(9, 255, v)
        files[path] = D.patch(b, 6, bytes([val]))
        return files, "%s: checksum id %d" % (path, val)
    if how == "sc_reserved":
        pos = D.span(28, 31, u)
        val = D.span(1, 255, v)
        files[path] = D.patch(b, pos, bytes([val]))
        return files, "%s: reserved byte %d = %d" % (path, pos, val)
    if how == "sc_chunk_size_bad":
        val = D.pick([0, -2, -1000, -(2 ** 31)], v)
        files[path] = D.patch(b, 8, struct.pack("<i", val))
        return files, "%s: chunk-size %d" % (path, val)
    if how == "sc_nchunks_bad":
        val = D.pick([-2, -1000, -(2 ** 63)], v)
        files[path] = D.patch(b, 16, struct.pack("<q", val))
        return files, "%s: nchunks %d" % (path, val)
    if how == "sc_last_chunk_bad":
        val = D.pick([-2, -1000, -(2 ** 31)], v)
        files[path] = D.patch(b, 12, struct.pack("<i", val))
        return files, "%s: last-chunk %d" % (path, val)
    if how == "sc_meta_size_bad":
        val = D.pick([-1, -8, -(2 ** 31)], v)
        files[path] = D.patch(b, 24, struct.pack("<i", val))
        return files, "%s: meta-size %d" % (path, val)
    if how == "sc_meta_json":
        raw = b[32:32 + meta_size]
        text = raw.rstrip(b" ")
        pos = D.span(0, meta_size - 1, u)
        if pos < len(text):
            new = D.patch(raw, pos, b"\xff" if v < 0.5 else b"#")
            what = "JSON byte %d replaced" % pos
        else:
            new = D.patch(raw, pos, b"x")
            what = "padding space %d replaced by x" % pos
        files[path] = b[:32] + new + b[32 + meta_size:]
        return files, "%s: metadata section %s" % (path, what)
    if how == "sc_chunk_size_other":
        val = ca.chunklen * ca.atomsize + D.span(1, 4096, v)
        files[path] = D.patch(b, 8, struct.pack("<i", val))
        return files, "%s: chunk-size %d instead of chunklen x atomsize %d" % (path, val, ca.chunklen * ca.atomsize)
    if how == "sc_nchunks_few":
        if ns < 2:
            raise ValueError("needs two required chunks")
        val = D.span(1, ns - 1, v)
        files[path] = D.patch(b, 16, struct.pack("<q", val))
        return files, "%s: nchunks %d, %d chunks required" % (path, val, ns)
    if how in ("sc_capacity", "sc_first_chunk", "sc_meta_missing_key"):
        meta = {"capacity": ca.S, "first_chunk": first}
        if how == "sc_capacity":
            meta["capacity"] = ca.S + D.span(1, 5, v)
        elif how == "sc_first_chunk":
            meta["first_chunk"] = D.pick([x for x in range(first + 10) if x != first], v)
        else:
            del meta[D.pick(["capacity", "first_chunk"], v)]
        kw = dict(meta=meta)
        if "capacity" not in meta:
            kw["capacity"] = ca.S
        ca.sc_kw[s] = kw
        files[path] = ca.superchunk_bytes(s)
        ca.sc_kw.pop(s)
        ca.superchunk_bytes(s)
        return files, "%s: metadata section %s" % (path, json.dumps(meta))
    if how == "sc_offset_out":
        i = D.span(0, ns - 1, u)
        val = D.pick([-1, 0, 32, data_start - 1, len(b) - 15, len(b), 2 ** 62], v)
        files[path] = D.patch(b, info["table_off"] + 8 * i, struct.pack("<q", val))
        return files, "%s: offsets[%d] = %d (data %d..%d)" % (path, i, val, data_start, len(b) - 16)
    if how in ("chunk_flip", "checksum_flip"):
        if cs == 0:
            raise ValueError("needs a checksum")
        i = D.span(0, ns - 1, u)
        off, _ = info["slot"][i]
        clen = len(ca.chunk(first + i))
        if how == "chunk_flip":
            lo, hi = off + 16, off + clen - 1
        else:
            lo, hi = off + clen, off + clen + cs - 1
        bit = D.span(lo * 8, hi * 8 + 7, v)
        nb = bytearray(b)
        nb[bit // 8] ^= 1 << (bit % 8)
        files[path] = bytes(nb)
        return files, "%s: bit %d of byte %d flipped (chunk %d at %d, %d bytes + %d checksum bytes)" % (path, bit % 8, bit // 8, i, off, clen, cs)
    if how.startswith("blosc_"):
        i = D.span(0, ns - 1, u)
        if how in ("blosc_versionlz", "blosc_codec"):
            cands = [j for j in range(ns) if not D.memcpyed(ca.chunk(first + j))]
            i = D.pick(cands, u)
        if how == "blosc_memcpy_cbytes":
            cands = [j for j in range(ns) if D.memcpyed(ca.chunk(first + j))]
            i = D.pick(cands, u)
        off, _ = info["slot"][i]
        chunk = ca.chunk(first + i)
        new, text = D.blosc_header_damage(chunk, how[len("blosc_"):], u, v)
        files[path] = D.patch(b, off, new[:16])
        return files, "%s: chunk %d: %s" % (path, i, text)
    if how == "last_chunk_nbytes":
        g = ca.N - 1
        s2 = g // ca.S + 1
        path = prefix + "data/__%d__.bin" % s2
        rest = ca.n % ca.chunklen
        a = ca.atomsize
        if rest:
            opts = [r * a for r in range(0, rest)] + ([rest * a + d for d in range(1, a)] if a > 1 else [])
        else:
            opts = [r * a for r in range(0, ca.chunklen)]
        nb = D.pick([x for x in opts if x > 0] or opts, v)
        raw = (ca.arr.tobytes() * 2)[:nb]
        ca.chunk_override[g] = F2.compress(raw, ca.typesize, ca.clevel, ca.shuffle, ca.cname)
        files[path] = ca.superchunk_bytes(s2)
        del ca.chunk_override[g]
        ca.superchunk_bytes(s2)
        return files, "%s: last required chunk %d holds %d bytes (len %d, chunklen %d, atomsize %d)" % (path, g, nb, ca.n, ca.chunklen, a)
    raise ValueError(how)
