"""Shared state of the v2 cases: the seed, the paths, the VALID and BROKEN lists and the functions that register a case in them."""
import json
import os
import random
import zlib

from .dataset import Vlarray, category, le_bytes, sha

SEED = 20261124
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
