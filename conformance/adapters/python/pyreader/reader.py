"""Reading a format-version-1 dataset (spec/v1.md sections 3, 8, 10-13), and the version
dispatch of spec/v2.md section 3.1 (version 2 itself is in reader2.py)."""

import os
import re

from . import jsondialect
from .chunks import decode_chunk_file
from .dtypes import parse_dtype
from .errors import FormatError

MAX_READ_BYTES = 2 ** 31 - 1   # allowance for the bytes one read returns (v1.md section 16)
MAX_CHUNK_FILES = 2 ** 22      # allowance for the chunk files one read opens
MAX_SAFE_INT = 2 ** 53 - 1
CNAMES = ("blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd")
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
APPEND_ATTEMPTS = 8


def is_int(v):
    return type(v) is int


def is_number(v):
    return type(v) in (int, float)


def dflt_fits(kind, v):
    """v1.md section 11.2: the JSON type of `dflt` fits the dtype kind."""
    return {
        "b": lambda v: type(v) is bool,
        "i": is_int,
        "u": is_int,
        "f": is_number,
        "S": lambda v: isinstance(v, str),
        "U": lambda v: isinstance(v, str),
        "M": lambda v: v is None or is_int(v),
    }[kind](v)


def _read(root, rel):
    """Bytes of root/rel, or None when the file does not exist."""
    try:
        with open(os.path.join(root, *rel.split("/")), "rb") as fh:
            return fh.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _load_json(root, rel, prefix):
    raw = _read(root, rel)
    if raw is None:
        raise FormatError("MISSING_FILE", "%s%s is missing" % (prefix, rel), path=prefix + rel)
    return jsondialect.parse(raw, prefix + rel)


def _meta_error(prefix, rel, field, msg):
    return FormatError("BAD_METADATA", "%s%s: %s" % (prefix, rel, msg), path=prefix + rel, field=field)


class Carray:
    """Validated metadata of one carray root (a dataset or a ctable column)."""

    def __init__(self, root, prefix=""):
        self.root = root
        self.prefix = prefix   # "" or "<column>/" for error paths
        self._load()

    # -- metadata, in the order of errors.md "Order of checks" --
    def _load(self):
        p = self.prefix
        storage = _load_json(self.root, "meta/storage", p)
        if p and isinstance(storage, dict) and "format_version" in storage:
            self._check_column_version(storage)
        self._check_storage(storage)
        sizes = _load_json(self.root, "meta/sizes", p)
        self._check_sizes(sizes)
        attrs = _load_json(self.root, "__attrs__", p)
        if not isinstance(attrs, dict):
            raise _meta_error(p, "__attrs__", "attrs", "top-level value is not an object")
        self.attrs = attrs
        # cross-file rule: nbytes = len x atomsize (section 10)
        atomsize = self.dtype.itemsize
        for d in self.shape[1:]:
            atomsize *= d
        self.atomsize = atomsize
        self.len = self.shape[0]
        if self.nbytes != self.len * atomsize:
            raise FormatError("INCONSISTENT",
                              "%smeta/sizes: nbytes %d != len %d x atomsize %d"
                              % (p, self.nbytes, self.len, atomsize),
                              path=p + "meta/sizes", field="sizes.nbytes")

    def _check_column_version(self, st):
        """A version-1 table's column goes through v2.md section 3.1's dispatch like a root, and
        must then be of the table's version (v2.md section 15.1 item 2)."""
        p, fv = self.prefix, st["format_version"]
        if is_int(fv) and fv == 1:
            return
        if is_int(fv) and fv == 2:
            from .reader2 import _open_root
            _open_root(self.root, p, st)   # its own version-2 metadata checks come first
            raise FormatError("INCONSISTENT", "%smeta/storage: a version-1 table holds a version-2 column"
                              % p, path=p + "meta/storage", field="/format_version")
        raise FormatError("UNSUPPORTED_VERSION", "%smeta/storage: format_version %r" % (p, fv),
                          path=p + "meta/storage", field="/format_version")

    def _check_storage(self, st):
        p, rel = self.prefix, "meta/storage"
        if not isinstance(st, dict):
            raise _meta_error(p, rel, "storage", "top-level value is not an object")
        for key in ("dtype", "cparams", "chunklen", "expectedlen", "dflt"):
            if key not in st:
                raise _meta_error(p, rel, "storage." + key, "required key %r missing" % key)
        if not isinstance(st["dtype"], str):
            raise _meta_error(p, rel, "storage.dtype", "dtype is not a string")
        self.dtype = parse_dtype(st["dtype"], p + rel)
        self.cparams = self._check_cparams(st["cparams"])
        chunklen = st["chunklen"]
        if not is_int(chunklen) or chunklen < 1 or chunklen > MAX_SAFE_INT:
            raise _meta_error(p, rel, "storage.chunklen", "chunklen %r is not an integer >= 1" % (chunklen,))
        self.chunklen = chunklen
        expectedlen = st["expectedlen"]
        if not is_int(expectedlen) or expectedlen < 0:
            raise _meta_error(p, rel, "storage.expectedlen",
                              "expectedlen %r is not an integer >= 0" % (expectedlen,))
        dflt = st["dflt"]
        if not dflt_fits(self.dtype.kind, dflt):
            raise _meta_error(p, rel, "storage.dflt", "dflt %r does not fit dtype %s" % (dflt, self.dtype.str))

    def _check_cparams(self, cp):
        p, rel = self.prefix, "meta/storage"
        if not isinstance(cp, dict):
            raise _meta_error(p, rel, "cparams", "cparams is not an object")
        for key in cp:
            if key not in ("clevel", "shuffle", "cname", "quantize"):
                raise _meta_error(p, rel, "cparams." + key, "unknown cparams key %r" % key)
        clevel = cp.get("clevel")
        if not is_int(clevel) or not 0 <= clevel <= 9:
            raise _meta_error(p, rel, "cparams.clevel", "clevel %r is not an integer 0-9" % (clevel,))
        if "shuffle" not in cp:
            raise _meta_error(p, rel, "cparams.shuffle", "shuffle missing")
        shuffle = cp["shuffle"]
        if type(shuffle) is bool:
            shuffle = 1 if shuffle else 0
        elif not is_int(shuffle) or shuffle not in (0, 1, 2):
            raise _meta_error(p, rel, "cparams.shuffle", "shuffle %r is not 0, 1, 2, true or false" % (shuffle,))
        cname = cp.get("cname", "blosclz")
        if not isinstance(cname, str) or cname not in CNAMES:
            raise _meta_error(p, rel, "cparams.cname", "cname %r is not a known codec" % (cname,))
        if "quantize" in cp:
            q = cp["quantize"]
            if not is_int(q) or q < 0 or q > 2147483647:
                raise _meta_error(p, rel, "cparams.quantize", "quantize %r is not an integer >= 0" % (q,))
        return {"clevel": clevel, "shuffle": shuffle, "cname": cname}

    def _check_sizes(self, sz):
        p, rel = self.prefix, "meta/sizes"
        if not isinstance(sz, dict):
            raise _meta_error(p, rel, "sizes", "top-level value is not an object")
        shape = sz.get("shape")
        if (not isinstance(shape, list) or not 1 <= len(shape) <= 32
                or not all(is_int(d) and 0 <= d <= MAX_SAFE_INT for d in shape)):
            raise _meta_error(p, rel, "sizes.shape", "shape %r is not a list of 1-32 integers >= 0" % (shape,))
        for i, d in enumerate(shape[1:], 1):
            if d < 1:
                raise _meta_error(p, rel, "shape/%d" % i, "trailing dimension %d is %d" % (i, d))
        v = sz.get("nbytes")
        if not is_int(v) or v < 0:
            raise _meta_error(p, rel, "sizes.nbytes", "nbytes %r is not an integer >= 0" % (v,))
        # cbytes is an estimate: only its type is checked (v1.md section 10)
        if not is_int(sz.get("cbytes")):
            raise _meta_error(p, rel, "sizes.cbytes", "cbytes %r is not an integer" % (sz.get("cbytes"),))
        self.shape = list(shape)
        self.nbytes = sz["nbytes"]

    # -- chunk files --
    def chunk_plan(self, length):
        nfull, rest = divmod(length, self.chunklen)
        return nfull, rest, nfull + (1 if rest else 0)

    def _journal(self):
        """Chunk numbers listed in a pending .journal (v1.md section 8.5)."""
        raw = _read(self.root, ".journal")
        if raw is None:
            return set()
        j = jsondialect.parse(raw, self.prefix + ".journal")
        chunks = j.get("chunks") if isinstance(j, dict) else None
        if not isinstance(chunks, list) or not all(is_int(k) and k >= 0 for k in chunks):
            raise _meta_error(self.prefix, ".journal", "journal.chunks", "not a list of chunk numbers")
        return set(chunks)

    def read_values(self, length):
        """Decode rows [0, length); returns their bytes. Nothing is allocated ahead of decoding,
        so a chunk that claims more than its streams hold fails before much memory is used."""
        pieces = []
        nfull, rest, nfiles = self.chunk_plan(length)
        chunksize = self.chunklen * self.atomsize
        journal = self._journal() if nfiles else set()
        for k in range(nfiles):
            rel = "data/__%d.blp" % k
            buf = None
            if k in journal:
                buf = _read(self.root, rel + ".next")
            if buf is None:
                buf = _read(self.root, rel)
            if buf is None:
                raise FormatError("MISSING_FILE", "%s%s is missing" % (self.prefix, rel),
                                  path=self.prefix + rel)
            if k < nfull:
                payload = decode_chunk_file(buf, self.prefix + rel, chunksize)
                want = chunksize
            else:
                want = rest * self.atomsize
                payload = decode_chunk_file(buf, self.prefix + rel, want,
                                            leftover_max=(self.atomsize, chunksize))
            pieces.append(payload if len(payload) == want else payload[:want])
        return b"".join(pieces)


def _check_names(names):
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise FormatError("BAD_METADATA", "__rootdirs__: names is not a non-empty list of strings",
                          path="__rootdirs__", field="rootdirs.names")
    if len(set(names)) != len(names):
        raise FormatError("BAD_METADATA", "__rootdirs__: repeated column name",
                          path="__rootdirs__", field="rootdirs.names")
    for i, name in enumerate(names):
        if (not NAME_RE.fullmatch(name) or len(name.encode("utf-8")) > 255
                or name in ("__attrs__", "__rootdirs__")):
            raise FormatError("UNSAFE_NAME", "__rootdirs__: unsafe column name %r" % name,
                              path="__rootdirs__", field="names[%d]" % i)


def _check_allowance(total_bytes, total_files):
    if total_bytes > MAX_READ_BYTES:
        raise FormatError("SIZE_LIMIT", "reading %d bytes exceeds maxReadBytes %d"
                          % (total_bytes, MAX_READ_BYTES))
    if total_files > MAX_CHUNK_FILES:
        raise FormatError("SIZE_LIMIT", "reading %d chunk files exceeds maxChunksPerCall %d"
                          % (total_files, MAX_CHUNK_FILES))


def _swap_to_little(data, dtype):
    if not dtype.big_endian or not data:
        return bytes(data)
    import numpy as np
    unit = dtype.swap
    arr = np.frombuffer(bytes(data), dtype=np.uint8).reshape(-1, unit)[:, ::-1]
    return arr.tobytes()


def _column_info(c, length):
    return {"dtype": c.dtype.str, "shape": [length] + c.shape[1:], "chunklen": c.chunklen,
            "cparams": c.cparams, "attrs": c.attrs}


def read_dataset(root):
    """Returns (result dict, [(file name, bytes)]) or raises FormatError."""
    if not os.path.isdir(root):
        raise FormatError("MISSING_FILE", "dataset root %s is not a directory" % root)
    # v2.md section 3.1, in order
    if os.path.exists(os.path.join(root, "__rootdirs__")):
        return _read_ctable(root)
    storage = _load_json(root, "meta/storage", "")
    if not isinstance(storage, dict):
        raise _meta_error("", "meta/storage", "storage", "top-level value is not an object")
    if "format_version" in storage:
        fv = storage["format_version"]
        if is_int(fv) and fv == 2:
            from .reader2 import read_v2
            return read_v2(root, storage)
        if not (is_int(fv) and fv == 1):
            raise FormatError("UNSUPPORTED_VERSION", "meta/storage: format_version %r" % (fv,),
                              path="meta/storage", field="/format_version")
    carray = Carray(root)
    nfiles = carray.chunk_plan(carray.len)[2]
    total = carray.len * carray.atomsize
    _check_allowance(total, nfiles)
    out = carray.read_values(carray.len)
    result = {"kind": "carray", "format": 1}
    result.update(_column_info(carray, carray.len))
    result["columns"] = []
    return result, [("values.bin", _swap_to_little(out, carray.dtype))]


def _read_ctable(root):
    rootdirs = _load_json(root, "__rootdirs__", "")
    if not isinstance(rootdirs, dict):
        raise FormatError("BAD_METADATA", "__rootdirs__: top-level value is not an object",
                          path="__rootdirs__", field="rootdirs")
    names = rootdirs.get("names")
    _check_names(names)
    attrs = _load_json(root, "__attrs__", "")
    if not isinstance(attrs, dict):
        raise FormatError("BAD_METADATA", "__attrs__: top-level value is not an object",
                          path="__attrs__", field="attrs")

    # Column metadata, then the table length (section 8.5 append journal, section 12.3).
    length = None
    for _attempt in range(APPEND_ATTEMPTS):
        columns = [Carray(os.path.join(root, name), name + "/") for name in names]
        lens = [c.len for c in columns]
        raw = _read(root, ".append")
        if raw is not None:
            rec = jsondialect.parse(raw, ".append")
            n = rec.get("length") if isinstance(rec, dict) else None
            if not is_int(n) or n < 0:
                raise FormatError("BAD_METADATA", ".append: length is not an integer >= 0",
                                  path=".append", field="append.length")
            if all(x >= n for x in lens):
                length = n
                break
        elif all(x == lens[0] for x in lens):
            length = lens[0]
            break
    if length is None:
        raise FormatError("INCONSISTENT", "columns have different lengths %r" % (lens,),
                          field="sizes.shape")

    total = sum(length * c.atomsize for c in columns)
    nfiles = sum(c.chunk_plan(length)[2] for c in columns)
    _check_allowance(total, nfiles)
    files = []
    for i, c in enumerate(columns):
        out = c.read_values(length)
        files.append(("col-%d.bin" % i, _swap_to_little(out, c.dtype)))

    col_infos = []
    dtype = []
    for name, c in zip(names, columns):
        info = {"name": name}
        info.update(_column_info(c, length))
        col_infos.append(info)
        # conformance.md section 1.2: "[name, dtype.str] pairs", also for multidimensional columns
        dtype.append([name, c.dtype.str])
    chunklens = {c.chunklen for c in columns}
    first_cp = columns[0].cparams
    result = {
        "kind": "ctable",
        "format": 1,
        "dtype": dtype,
        "shape": [length],
        "chunklen": columns[0].chunklen if len(chunklens) == 1 else None,
        "cparams": first_cp if all(c.cparams == first_cp for c in columns) else None,
        "attrs": attrs,
        "columns": col_infos,
    }
    return result, files
