"""Format-version-1 datasets from case descriptions (spec/v1.md §3-§14), written from the spec alone.

Chunks are compressed by c-blosc through python3-blosc and wrapped in the 16-byte blpk header of
v1.md §4.2; the metadata files are written in the dialect of v1.md §9.2 (json.dumps + newline).
"""
import json
import struct

import blosc
import numpy as np

from . import values as V

blosc.set_nthreads(1)
BLPK = b"blpk" + bytes([1, 0, 0, 0]) + struct.pack("<q", 1)


def jdump(obj):
    return (json.dumps(obj) + "\n").encode("ascii")


def compress(data, typesize, cp):
    return blosc.compress(bytes(data), typesize=min(typesize, 255) if typesize <= 255 else 1,
                          clevel=cp["clevel"], shuffle=cp["shuffle"], cname=cp["cname"])


class Carray:
    """One carray described by d: dtype, shape, chunklen, cparams, attrs, values, expectedlen, dflt."""

    def __init__(self, d):
        self.d = d
        self.arr = V.array(d["dtype"], d["shape"], d["values"])
        self.dt = self.arr.dtype
        self.chunklen = d["chunklen"]
        self.cp = dict(d["cparams"])
        self.atom = self.dt.itemsize * int(np.prod(self.arr.shape[1:], dtype=np.int64))
        self.n = self.arr.shape[0]
        self.nfull, self.rest = divmod(self.n, self.chunklen)
        self.chunks = []
        raw = np.ascontiguousarray(self.arr).tobytes()
        for k in range(self.nfull + (1 if self.rest else 0)):
            part = raw[k * self.chunklen * self.atom:min(self.n, (k + 1) * self.chunklen) * self.atom]
            self.chunks.append(compress(part, V.blosc_typesize(self.dt), self.cp))

    def rows_chunk(self, k, rows):
        """A chunk k holding `rows` rows (taken from the values, cycled) instead of its own."""
        raw = np.ascontiguousarray(self.arr).tobytes()
        start = k * self.chunklen * self.atom
        need = rows * self.atom
        data = (raw[start:] + raw) * (need // max(1, len(raw)) + 2)
        return compress(data[:need], V.blosc_typesize(self.dt), self.cp)

    def sizes(self):
        cbytes = sum(len(c) for c in self.chunks[:self.nfull]) + self.chunklen * self.atom
        return {"shape": list(self.arr.shape), "nbytes": self.n * self.atom, "cbytes": cbytes}

    def storage(self):
        dflt = self.d.get("dflt", V.zero_dflt(self.dt))
        return {"dtype": V.bcolz_spelling(self.dt),
                "cparams": {"clevel": self.cp["clevel"], "shuffle": self.cp["shuffle"], "cname": self.cp["cname"], "quantize": 0},
                "chunklen": self.chunklen, "expectedlen": self.d.get("expectedlen", self.n), "dflt": dflt}

    def build(self):
        f = {"meta/sizes": jdump(self.sizes()), "meta/storage": jdump(self.storage()),
             "__attrs__": jdump(self.d.get("attrs", {}))}
        for k, c in enumerate(self.chunks):
            f["data/__%d.blp" % k] = BLPK + c
        return f

    def expected(self):
        return V.le_bytes(self.arr)


def build(d):
    """(files, {expected file: bytes}, manifest members) of a valid description."""
    if d["kind"] == "carray":
        ca = Carray(d)
        files = ca.build()
        exp = ca.expected()
        m = {"kind": "carray", "dtype": ca.dt.str, "shape": list(ca.arr.shape), "chunklen": ca.chunklen,
             "cparams": dict(ca.storage()["cparams"]), "expectedlen": ca.storage()["expectedlen"],
             "attrs": d.get("attrs", {}), "expected": {"values.bin": V_sha(exp)}}
        return files, {"values.bin": exp}, m, {"": ca}
    cols = [(c["name"], Carray(c)) for c in d["columns"]]
    files = {"__rootdirs__": jdump({"names": [n for n, _ in cols]}), "__attrs__": jdump(d.get("attrs", {}))}
    exps = {}
    mcols = []
    for name, ca in cols:
        for k, v in ca.build().items():
            files[name + "/" + k] = v
        e = ca.expected()
        exps[name + ".bin"] = e
        c = {"name": name, "dtype": ca.dt.str, "shape": list(ca.arr.shape), "chunklen": ca.chunklen,
             "cparams": dict(ca.storage()["cparams"]), "expectedlen": ca.storage()["expectedlen"],
             "attrs": ca.d.get("attrs", {}), "expected_file": name + ".bin"}
        c.update(V_sha(e))
        mcols.append(c)
    n = cols[0][1].n
    cls = {c["chunklen"] for c in mcols}
    cps = {json.dumps(c["cparams"], sort_keys=True) for c in mcols}
    m = {"kind": "ctable", "dtype": [[c["name"], c["dtype"]] for c in mcols], "len": n, "shape": [n],
         "chunklen": cls.pop() if len(cls) == 1 else None,
         "cparams": json.loads(cps.pop()) if len(cps) == 1 else None,
         "attrs": d.get("attrs", {}), "columns": mcols,
         "expected": {k: V_sha(v) for k, v in exps.items()}}
    return files, exps, m, {name + "/": ca for name, ca in cols}


def V_sha(b):
    import hashlib
    return {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
