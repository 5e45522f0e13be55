"""Format-version-2 objects (carray, vlarray, ctable) from case descriptions, and their manifest entries.

v2_build(dataset description) returns (files, expected files, manifest entry, built object); the
objects themselves are v2lib's (conformance/generators/v2lib/dataset.py).
"""
import hashlib
import json

from . import values as V
from v2lib import dataset as D2


def sha(b):
    return {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}


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
