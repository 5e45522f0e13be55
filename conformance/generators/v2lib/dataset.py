"""Version-2 dataset roots (spec/v2.md §10-§12) built in memory as {relative path: bytes}."""
import hashlib
import struct

import numpy as np

from .fmt import CHECKSUM_NAMES, compress, jdump, superchunk

MALFORMED = {"TRUNCATED", "BAD_MAGIC", "UNSUPPORTED_VERSION", "BAD_HEADER", "UNKNOWN_CODEC",
             "CORRUPT_STREAM", "SIZE_LIMIT", "BAD_JSON", "MISSING_FILE"}
INVALID = {"CHECKSUM_MISMATCH", "BAD_METADATA", "UNSUPPORTED_DTYPE", "INCONSISTENT", "UNSAFE_NAME"}


def category(code):
    if code in MALFORMED:
        return "malformed"
    if code in INVALID:
        return "invalid"
    raise ValueError(code)


def blosc_typesize(dt):
    """v1 §13: S -> 1, U -> 4, others the itemsize."""
    dt = np.dtype(dt)
    if dt.kind == "S":
        return 1
    if dt.kind == "U":
        return 4
    return dt.itemsize


def le_bytes(arr):
    """conformance.md §1.2: little-endian C-order bytes."""
    dt = arr.dtype
    if dt.byteorder == ">":
        arr = arr.astype(dt.newbyteorder("<"))
    return np.ascontiguousarray(arr).tobytes()


def sha(b):
    return {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}


class Carray:
    """A version-2 carray root. All knobs are attributes; build() returns {path: bytes}."""

    def __init__(self, arr, *, chunklen, S, cparams=(5, 1, "lz4"), checksum="adler32", spare=10,
                 dtype_str=None, expectedlen=None, dflt=None, attrs=None):
        self.arr = np.ascontiguousarray(arr)
        self.chunklen = chunklen
        self.S = S
        self.clevel, self.shuffle, self.cname = cparams
        self.checksum = checksum
        self.spare = spare
        self.dtype_str = dtype_str or self.arr.dtype.str
        self.expectedlen = len(self.arr) if expectedlen is None else expectedlen
        if dflt is None:  # v1 §14 item 3: zero of the dtype
            dflt = {"b": False, "S": "", "U": "", "f": 0.0}.get(self.arr.dtype.kind, 0)
        self.dflt = dflt
        self.attrs = {} if attrs is None else attrs
        self.storage_extra = []          # (key, value) appended to meta/storage
        self.typesize = blosc_typesize(self.arr.dtype)
        self.header_typesize = None
        self.sc_kw = {}                  # s -> superchunk() keyword overrides
        self.sc_cid = {}                 # s -> checksum id override
        self.chunk_override = {}         # g -> Blosc chunk bytes
        self.extra_chunks = {}           # s -> list of extra live chunks after the required ones
        self.infos = {}

    # geometry (§10.3)
    @property
    def n(self):
        return len(self.arr)

    @property
    def atomsize(self):
        return self.arr.dtype.itemsize * int(np.prod(self.arr.shape[1:], dtype=np.int64))

    @property
    def N(self):
        return -(-self.n // self.chunklen)

    @property
    def nsuper(self):
        return -(-self.N // self.S)

    def raw_rows(self, g):
        b = self.arr.tobytes()
        a = self.atomsize
        return b[g * self.chunklen * a:min(self.n, (g + 1) * self.chunklen) * a]

    def chunk(self, g):
        if g in self.chunk_override:
            return self.chunk_override[g]
        return compress(self.raw_rows(g), self.typesize, self.clevel, self.shuffle, self.cname)

    def cid(self, s):
        return self.sc_cid.get(s, CHECKSUM_NAMES.index(self.checksum))

    def storage(self):
        d = {"format_version": 2, "kind": "carray", "dtype": self.dtype_str,
             "cparams": {"clevel": self.clevel, "shuffle": self.shuffle, "cname": self.cname, "quantize": 0},
             "chunklen": self.chunklen, "superchunksize": self.S, "checksum": self.checksum,
             "spare": self.spare, "expectedlen": self.expectedlen, "dflt": self.dflt}
        for k, v in self.storage_extra:
            d[k] = v
        return d

    def superchunk_bytes(self, s):
        first = (s - 1) * self.S
        ns = min(self.S, self.N - first)
        chunks = [self.chunk(first + i) for i in range(ns)] + self.extra_chunks.get(s, [])
        kw = dict(cid=self.cid(s), typesize=self.header_typesize if self.header_typesize is not None else self.typesize,
                  chunk_size=self.chunklen * self.atomsize, spare_pct=self.spare, first_chunk=first,
                  capacity=self.S)
        kw.update(self.sc_kw.get(s, {}))
        b, info = superchunk(chunks, **kw)
        self.infos[s] = info
        return b

    def build(self):
        f = {"meta/storage": jdump(self.storage()),
             "meta/shape": jdump({"shape": list(self.arr.shape)}),
             "__attrs__": jdump(self.attrs)}
        for s in range(1, self.nsuper + 1):
            f["data/__%d__.bin" % s] = self.superchunk_bytes(s)
        return f

    def expected(self):
        return le_bytes(self.arr)

    def manifest(self):
        return {"dtype": np.dtype(self.arr.dtype).str, "shape": list(self.arr.shape),
                "chunklen": self.chunklen,
                "cparams": {"clevel": self.clevel, "shuffle": self.shuffle, "cname": self.cname, "quantize": 0},
                "superchunksize": self.S, "checksum": self.checksum, "spare": self.spare,
                "expectedlen": self.expectedlen, "dflt": json_safe(self.dflt)}


def json_safe(v):
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    return v


class Vlarray:
    """§12: offsets/ (<i8, n + 1 rows) and values/ carrays."""

    def __init__(self, elements, vtype, *, values_dtype=None, chunklen=64, off_chunklen=None, S=4,
                 cparams=(5, 1, "lz4"), checksum="adler32", spare=10, attrs=None, extra_values=b""):
        self.elements = elements
        self.vtype = vtype
        if vtype == "utf8":
            parts = [e.encode("utf-8") for e in elements]
            vals = np.frombuffer(b"".join(parts) + extra_values, dtype="|u1")
            lens = [len(p) for p in parts]
            self.vdtype = np.dtype("|u1")
        elif vtype == "bytes":
            parts = list(elements)
            vals = np.frombuffer(b"".join(parts) + extra_values, dtype="|u1")
            lens = [len(p) for p in parts]
            self.vdtype = np.dtype("|u1")
        else:
            self.vdtype = np.dtype(values_dtype)
            arrs = [np.asarray(e, dtype=self.vdtype) for e in elements]
            # astype: np.concatenate gives the native byte order, the values keep the dtype asked for.
            vals = np.concatenate(arrs).astype(self.vdtype) if arrs else np.zeros(0, self.vdtype)
            lens = [len(a) for a in arrs]
            parts = [le_bytes(a) for a in arrs]
        self.parts = parts
        offs = np.zeros(len(lens) + 1, dtype="<i8")
        offs[1:] = np.cumsum(lens) if lens else []
        self.offsets = Carray(offs, chunklen=off_chunklen or chunklen, S=S, cparams=cparams,
                              checksum=checksum, spare=spare)
        self.values = Carray(vals, chunklen=chunklen, S=S, cparams=cparams, checksum=checksum,
                             spare=spare)
        self.attrs = {} if attrs is None else attrs
        self.storage_obj = {"format_version": 2, "kind": "vlarray", "vtype": vtype}

    def build(self):
        f = {"meta/storage": jdump(self.storage_obj), "__attrs__": jdump(self.attrs)}
        for k, v in self.offsets.build().items():
            f["offsets/" + k] = v
        for k, v in self.values.build().items():
            f["values/" + k] = v
        return f

    def expected(self):
        return b"".join(struct.pack("<Q", len(p)) + p for p in self.parts)

    @property
    def dtype_name(self):
        return "vl:" + (self.vtype if self.vtype != "ragged" else self.vdtype.str)

    def manifest(self):
        v = self.values
        return {"dtype": self.dtype_name, "shape": [len(self.elements)], "chunklen": v.chunklen,
                "cparams": {"clevel": v.clevel, "shuffle": v.shuffle, "cname": v.cname, "quantize": 0},
                "vtype": self.vtype, "superchunksize": v.S, "checksum": v.checksum, "spare": v.spare,
                "sub_carrays": {"offsets": self.offsets.manifest(), "values": v.manifest()}}


class Ctable:
    """§11: columns under data/<name>/."""

    def __init__(self, columns, attrs=None):
        self.columns = columns           # list of (name, Carray | Vlarray)
        self.attrs = {} if attrs is None else attrs
        self.names = [n for n, _ in columns]

    def build(self):
        f = {"meta/storage": jdump({"format_version": 2, "kind": "ctable", "columns": self.names}),
             "__attrs__": jdump(self.attrs)}
        for name, col in self.columns:
            for k, v in col.build().items():
                f["data/%s/%s" % (name, k)] = v
        return f
