"""Applies the one `damage` of a must-fail case description to a built dataset ({path: bytes}).

apply_damage picks the damaged carray and does the metadata-file, missing-file, column and vlarray
damages itself; chunk and superchunk bytes are damaged by damage_chunks.py.
"""
import json

import numpy as np

from . import damage as D
from .damage_chunks import v1_chunk_damage, v2_damage
from v2lib import dataset as D2


def jdump(obj):
    return (json.dumps(obj) + "\n").encode("ascii")


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
