"""Builds the generated sets from case descriptions (conformance/generators/gen/*.ts writes them).

build_set(set_description, out_dir) writes <out_dir>/<case>/data.bcolz, <case>/expected/ and
manifest.json + PROVENANCE.md. Valid descriptions carry the values; must-fail descriptions carry a
valid `base` and one `damage`. Expected value files are computed from the described values with
numpy, never read back from the written datasets.
"""
import hashlib
import json
import os
import struct

import blosc
import numpy as np

from . import damage as D
from . import v1 as V1
from . import values as V
from v2lib import dataset as D2
from v2lib import fmt as F2

MALFORMED = {"TRUNCATED", "BAD_MAGIC", "UNSUPPORTED_VERSION", "BAD_HEADER", "UNKNOWN_CODEC",
             "CORRUPT_STREAM", "SIZE_LIMIT", "BAD_JSON", "MISSING_FILE"}
INVALID = {"CHECKSUM_MISMATCH", "BAD_METADATA", "UNSUPPORTED_DTYPE", "INCONSISTENT", "UNSAFE_NAME"}


def sha(b):
    return {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}


def jdump(obj):
    return (json.dumps(obj) + "\n").encode("ascii")


# ------------------------------------------------------------------ format 2 objects

def v2_carray(d):
    arr = V.array(d["dtype"], d["shape"], d["values"])
    cp = d["cparams"]
    return D2.Carray(arr, chunklen=d["chunklen"], S=d["superchunksize"], cparams=(cp["clevel"], cp["shuffle"], cp["cname"]),
                     checksum=d["checksum"], spare=d["spare"], expectedlen=d.get("expectedlen"),
                     dflt=d.get("dflt"), attrs=d.get("attrs", {}))


def v2_vlarray(d):
    vt = d["vtype"]
    if vt == "utf8":
        elements = list(d["elements"])
    elif vt == "bytes":
        elements = [bytes.fromhex(e) for e in d["elements"]]
    else:
        elements = [V.array(d["dtype"], [len(e)], e) for e in d["elements"]]
    cp = d["cparams"]
    return D2.Vlarray(elements, vt, values_dtype=d.get("dtype"), chunklen=d["chunklen"], off_chunklen=d["off_chunklen"],
                      S=d["superchunksize"], cparams=(cp["clevel"], cp["shuffle"], cp["cname"]),
                      checksum=d["checksum"], spare=d["spare"], attrs=d.get("attrs", {}))


def v2_object(d):
    if d["kind"] == "carray":
        return v2_carray(d)
    if d["kind"] == "vlarray":
        return v2_vlarray(d)
    return D2.Ctable([(c["name"], v2_object(c)) for c in d["columns"]], attrs=d.get("attrs", {}))


def v2_manifest_part(obj, d):
    if isinstance(obj, D2.Vlarray):
        m = obj.manifest()
        e = obj.expected()
    else:
        m = obj.manifest()
        e = obj.expected()
    m["attrs"] = d.get("attrs", {})
    return m, e


def v2_build(d):
    obj = v2_object(d)
    files = obj.build()
    if d["kind"] in ("carray", "vlarray"):
        m, e = v2_manifest_part(obj, d)
        m = dict({"kind": d["kind"], "format": 2}, **m)
        m["expected"] = {"values.bin": sha(e)}
        return files, {"values.bin": e}, m, obj
    cols, exps = [], {}
    for (name, col), cd in zip(obj.columns, d["columns"]):
        mc, e = v2_manifest_part(col, cd)
        c = {"name": name}
        c.update(mc)
        c["expected_file"] = name + ".bin"
        c.update(sha(e))
        exps[name + ".bin"] = e
        cols.append(c)
    n = cols[0]["shape"][0]
    cls = {c["chunklen"] for c in cols}
    cps = {json.dumps(c["cparams"], sort_keys=True) for c in cols}
    m = {"kind": "ctable", "format": 2, "dtype": [[c["name"], c["dtype"]] for c in cols], "len": n, "shape": [n],
         "chunklen": cls.pop() if len(cls) == 1 else None,
         "cparams": json.loads(cps.pop()) if len(cps) == 1 else None,
         "attrs": d.get("attrs", {}), "columns": cols, "expected": {k: sha(v) for k, v in exps.items()}}
    return files, exps, m, obj


# ------------------------------------------------------------------ damage

def carrays_of(fmt, d, obj, prefix=""):
    """[(path prefix, carray description, built carray)] of every carray in a dataset."""
    out = []
    if fmt == 1:
        if d["kind"] == "carray":
            return [("", d, obj[""])]
        return [(c["name"] + "/", c, obj[c["name"] + "/"]) for c in d["columns"]]
    if d["kind"] == "carray":
        out.append((prefix, d, obj))
    elif d["kind"] == "vlarray":
        out.append((prefix + "offsets/", None, obj.offsets))
        out.append((prefix + "values/", None, obj.values))
    else:
        cols = obj.columns if fmt == 2 else [(c["name"], obj[c["name"] + "/"]) for c in d["columns"]]
        for (name, col), cd in zip(cols, d["columns"]):
            out += carrays_of(fmt, cd, col, prefix + ("data/" if fmt == 2 else "") + name + "/")
    return out


def v1_chunk_paths(files, prefix, ca):
    return [(prefix + "data/__%d.blp" % k, k) for k in range(len(ca.chunks))]


def apply_damage(fmt, base, dmg, files, obj):
    """Returns the damaged files and the mutation text."""
    kind = dmg["kind"]
    u = dmg.get("u", 0.0)
    v = dmg.get("v", 0.0)
    w = dmg.get("w", 0.0)
    files = dict(files)
    arrays = carrays_of(fmt, base, obj if fmt == 2 else obj, "")
    with_chunks = [a for a in arrays if (a[2].chunks if fmt == 1 else a[2].N)]
    target = pick_target(arrays, dmg.get("target"), w)

    if kind == "json":
        path = dmg["file"]
        if path.startswith("*/"):
            path = target[0] + path[2:]
        new, text = D.json_damage(files[path], dmg["how"], u)
        files[path] = new
        return files, "%s: %s" % (path, text)
    if kind == "missing":
        path = dmg["file"]
        if path == "chunk":
            path = chunk_file(fmt, pick_target(with_chunks, None, w), u)
        elif path.startswith("*/"):
            path = target[0] + path[2:]
        del files[path]
        return files, "%s deleted" % path
    if kind == "replace_json":
        path = dmg["file"]
        if path.startswith("*/"):
            path = target[0] + path[2:]
        files[path] = jdump(dmg["value"])
        return files, "%s replaced by %s" % (path, json.dumps(dmg["value"]))
    if kind == "edit_json":
        path = dmg["file"]
        if path.startswith("*/"):
            path = target[0] + path[2:]
        obj_ = json.loads(files[path].decode("ascii").replace("NaN", '"__nan__"'))
        for k, val in dmg.get("set", {}).items():
            set_path(obj_, k, val)
        for k in dmg.get("delete", []):
            del_path(obj_, k)
        files[path] = json.dumps(obj_).replace('"__nan__"', "NaN").encode("ascii") + b"\n"
        return files, "%s: set %s, deleted %s" % (path, json.dumps(dmg.get("set", {})), json.dumps(dmg.get("delete", [])))
    if kind == "rename_column":
        names_file = "__rootdirs__" if fmt == 1 else "meta/storage"
        st = json.loads(files[names_file])
        key = "names" if fmt == 1 else "columns"
        i = min(len(st[key]) - 1, int(u * len(st[key])))
        old = st[key][i]
        st[key][i] = dmg["name"]
        files[names_file] = jdump(st)
        return files, "%s: column %d %r renamed to %r (directories unchanged)" % (names_file, i, old, dmg["name"])
    if kind == "column_length":
        t = pick_target([a for a in arrays if not a[0].endswith("values/")], None, w)
        return column_length(fmt, files, t, dmg)
    if kind == "nbytes_delta":
        path = target[0] + "meta/sizes"
        sizes = json.loads(files[path])
        delta = dmg["delta"] if sizes["nbytes"] + dmg["delta"] >= 0 else -dmg["delta"]
        sizes["nbytes"] += delta
        files[path] = jdump(sizes)
        return files, "%s: nbytes %d instead of %d" % (path, sizes["nbytes"], sizes["nbytes"] - delta)
    if kind == "trailing_zero":
        path = target[0] + ("meta/sizes" if fmt == 1 else "meta/shape")
        doc = json.loads(files[path])
        shape = doc["shape"]
        doc["shape"] = shape[:-1] + [0] if len(shape) > 1 else shape + [0]
        files[path] = jdump(doc)
        return files, "%s: shape %s instead of %s" % (path, doc["shape"], shape)
    if kind == "nested_version":
        if dmg["part"] == "column":
            cols = [a for a in arrays]
            prefix = "data/%s/" % D.pick([c["name"] for c in base["columns"]], w)
        else:
            prefix = dmg["part"] + "/"
        path = prefix + "meta/storage"
        st = json.loads(files[path].decode("ascii").replace("NaN", '"__nan__"'))
        if dmg["value"] == "absent":
            del st["format_version"]
        else:
            st["format_version"] = dmg["value"]
        files[path] = json.dumps(st).replace('"__nan__"', "NaN").encode("ascii") + b"\n"
        return files, "%s: format_version %s" % (path, "removed" if dmg["value"] == "absent" else json.dumps(dmg["value"]))
    if kind == "vl_dtype":
        path = dmg["part"] + "/meta/storage"
        st = json.loads(files[path])
        old = st["dtype"]
        st["dtype"] = dmg["dtype"]
        files[path] = jdump(st)
        return files, "%s: dtype %s instead of %s" % (path, dmg["dtype"], old)
    if kind == "vl_offsets":
        return vl_offsets(files, obj, dmg["mode"])
    if kind == "vl_bad_utf8":
        return vl_bad_utf8(files, obj, u)
    # chunk-level damage
    t = pick_target(with_chunks, None, w)
    if fmt == 1:
        return v1_chunk_damage(files, t, dmg, u, v)
    return v2_damage(files, t, dmg, u, v)


def pick_target(arrays, name, w):
    if name is not None:
        for a in arrays:
            if a[0].rstrip("/").split("/")[-1] == name or a[0] == name:
                return a
    return D.pick(arrays, w)


def chunk_file(fmt, t, u):
    prefix, _, ca = t
    if fmt == 1:
        return prefix + "data/__%d.blp" % D.span(0, len(ca.chunks) - 1, u)
    return prefix + "data/__%d__.bin" % D.span(1, ca.nsuper, u)


def set_path(o, key, val):
    parts = key.split("/")
    for p in parts[:-1]:
        o = o[p]
    o[parts[-1]] = val


def del_path(o, key):
    parts = key.split("/")
    for p in parts[:-1]:
        o = o[p]
    del o[parts[-1]]


def sub_carray(like, arr):
    return D2.Carray(arr, chunklen=like.chunklen, S=like.S, cparams=(like.clevel, like.shuffle, like.cname),
                     checksum=like.checksum, spare=like.spare)


def replace_part(files, vl, part, ca):
    for k in [k for k in files if k.startswith(part + "/")]:
        del files[k]
    for k, val in ca.build().items():
        files[part + "/" + k] = val
    return files


def vl_offsets(files, vl, mode):
    offs = np.array(vl.offsets.arr, dtype="<i8")
    n = len(offs) - 1
    nvals = len(vl.values.arr)
    if mode == "empty":
        new = np.zeros(0, dtype="<i8")
        text = "offsets/ has 0 rows"
    elif mode == "first_nonzero":
        new = offs.copy()
        new[0] = 1 + (1 if offs[1] == 0 else 0)
        text = "offsets[0] = %d" % new[0]
    elif mode == "decreasing":
        new = offs.copy()
        j = min(k for k in range(1, n + 1) if offs[k] > 0)
        if j < n:
            new[j + 1] = offs[j] - 1
            text = "offsets[%d] = %d after offsets[%d] = %d" % (j + 1, new[j + 1], j, offs[j])
        else:
            new[j - 1] = offs[j] + 1
            text = "offsets[%d] = %d before offsets[%d] = %d" % (j - 1, new[j - 1], j, offs[j])
    else:
        new = offs.copy()
        new[n] = nvals + 1
        text = "offsets[%d] = %d, values has %d rows" % (n, nvals + 1, nvals)
    replace_part(files, vl, "offsets", sub_carray(vl.offsets, new))
    return files, text


def vl_bad_utf8(files, vl, u):
    parts = [bytearray(p) for p in vl.parts]
    k = D.pick([i for i, p in enumerate(parts) if len(p) > 0], u)
    parts[k][0] = 0xFF
    vals = np.frombuffer(b"".join(bytes(p) for p in parts), dtype="|u1")
    replace_part(files, vl, "values", sub_carray(vl.values, vals))
    return files, "element %d starts with byte FF (not UTF-8)" % k


def column_length(fmt, files, t, dmg):
    prefix, _, ca = t
    if fmt == 1:
        sizes = json.loads(files[prefix + "meta/sizes"])
        n = sizes["shape"][0] - 1
        sizes["shape"][0] = n
        sizes["nbytes"] = n * ca.atom
        files[prefix + "meta/sizes"] = jdump(sizes)
        return files, "%smeta/sizes: length %d instead of %d (nbytes to match)" % (prefix, n, n + 1)
    shape = json.loads(files[prefix + "meta/shape"])
    n = shape["shape"][0] - 1
    shape["shape"][0] = n
    files[prefix + "meta/shape"] = jdump(shape)
    return files, "%smeta/shape: length %d instead of %d" % (prefix, n, n + 1)


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


def apply_lenient(fmt, d, len_, files, obj):
    """A change a reader must accept without changing the values (the case stays valid)."""
    files = dict(files)
    kind = len_["kind"]
    u = len_["u"]
    if fmt == 1:
        ca = obj[""]
        if kind == "both_shuffle_bits":
            ks = [k for k, ch in enumerate(ca.chunks) if not D.memcpyed(ch) and D.blosc_fields(ch)["flags"] & 0x01]
            k = D.pick(ks, u)
            path = "data/__%d.blp" % k
            b = files[path]
            files[path] = D.patch(b, 18, bytes([b[18] | 0x04]))
            return files, "%s: Blosc flags 0x%02x -> 0x%02x (bit shuffle bit set next to byte shuffle)" % (path, b[18], b[18] | 0x04)
        if kind == "leftover_extra_rows":
            k = ca.nfull
            extra = D.span(1, ca.chunklen - ca.rest, u)
            path = "data/__%d.blp" % k
            files[path] = V1.BLPK + ca.rows_chunk(k, ca.rest + extra)
            return files, "%s: leftover chunk holds %d rows, meta/sizes needs %d" % (path, ca.rest + extra, ca.rest)
        raise ValueError(kind)
    ca = obj
    if kind == "both_shuffle_bits":
        gs = [g for g in range(ca.N) if not D.memcpyed(ca.chunk(g)) and D.blosc_fields(ca.chunk(g))["flags"] & 0x01]
        g = D.pick(gs, u)
        ch = bytearray(ca.chunk(g))
        old = ch[2]
        ch[2] |= 0x04
        ca.chunk_override[g] = bytes(ch)
        s = g // ca.S + 1
        path = "data/__%d__.bin" % s
        files[path] = ca.superchunk_bytes(s)
        return files, "%s: chunk %d: Blosc flags 0x%02x -> 0x%02x (bit shuffle bit set next to byte shuffle; checksum recomputed)" % (path, g, old, ch[2])
    raise ValueError(kind)


# ------------------------------------------------------------------ sets

def build_case(fmt, c):
    """(files, expected files, manifest entry) of one case description."""
    head = {"name": c["name"], "rootdir": "data.bcolz"}
    if "damage" not in c:
        files, exps, m, obj = (V1.build(c["dataset"]) if fmt == 1 else v2_build(c["dataset"]))
        entry = dict(head)
        entry.update(m)
        entry["files"] = sorted(files)
        entry["ops"] = ["create"]
        if "lenient" in c:
            files, mutation = apply_lenient(fmt, c["dataset"], c["lenient"], files, obj)
            entry["files"] = sorted(files)
            entry["derived_from"] = "gen-valid/" + c["lenient"]["source"]
            entry["mutation"] = mutation
            entry["ops"] = ["create", "mutate: " + c["lenient"]["kind"]]
        entry["rules"] = c["rules"]
        if c.get("write_rules"):
            entry["write_rules"] = c["write_rules"]
        entry["seed"] = c["seed"]
        entry["gen"] = {k: c[k] for k in ("dataset", "lenient") if k in c}
        return files, exps, entry
    base = c["dataset"]
    files, _, _, obj = (V1.build(base) if fmt == 1 else v2_build(base))
    files, mutation = apply_damage(fmt, base, c["damage"], files, obj)
    code = c["expect"]
    cat = "malformed" if code in MALFORMED else "invalid"
    assert cat == c["category"], (c["name"], code, c["category"])
    entry = dict(head)
    entry.update({"category": cat, "expect": {"error": code}, "mutation": mutation, "rules": c["rules"],
                  "seed": c["seed"], "gen": {"dataset": base, "damage": c["damage"]}})
    return files, {}, entry


def write_tree(root, files):
    for rel, data in sorted(files.items()):
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)


def build_set(desc, out_dir):
    fmt = desc["format"]
    os.makedirs(out_dir)
    cases = []
    for c in desc["cases"]:
        try:
            files, exps, entry = build_case(fmt, c)
        except Exception as e:
            raise RuntimeError("v%d/%s/%s: %s" % (fmt, desc["set"], c["name"], e)) from e
        write_tree(os.path.join(out_dir, c["name"], "data.bcolz"), files)
        if "damage" not in c:
            os.makedirs(os.path.join(out_dir, c["name"], "expected"), exist_ok=True)
            write_tree(os.path.join(out_dir, c["name"], "expected"), exps)
        cases.append(entry)
    manifest = {"format": "bcolz corpus manifest v%d" % fmt, "set": desc["set"], "format_version": fmt,
                "seed": desc["seed"],
                "generator": "conformance/generators/gen-corpus.mjs: descriptions by fast-check (conformance/generators/gen/), bytes by conformance/generators/genlib with c-blosc %s via python3-blosc, values by numpy"
                % blosc.blosclib_version.split()[0],
                "notes": desc["notes"], "cases": cases}
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    with open(os.path.join(out_dir, "PROVENANCE.md"), "w", encoding="utf-8") as fh:
        fh.write(PROVENANCE % {"set": desc["set"], "fmt": fmt, "seed": desc["seed"], "blosc": blosc.blosclib_version.split()[0],
                               "numpy": np.__version__, "what": desc["provenance"]})


PROVENANCE = """# Provenance of `v%(fmt)d/%(set)s`

%(what)s

Generated, not hand-made: `node conformance/generators/gen-corpus.mjs` draws every case
description with fast-check from the seed recorded in `manifest.json` (the set's seed
%(seed)d plus the case's position, recorded per case as `seed`; the description itself is kept in
the case's `gen` member), and the Python builder `conformance/generators/genlib` (written from
`spec/` alone, never from `@fmt/store`) turns each description into bytes: chunks compressed by
c-blosc %(blosc)s through python3-blosc (one thread), values and expected value files by numpy
%(numpy)s from the described values. `conformance/generators/gen.test.ts` regenerates the set from
the recorded seeds and fails unless every byte is reproduced.
"""
