"""Reading a format-version-2 dataset (spec/v2.md sections 10-12, checks in the order of 15)."""

import os

from . import jsondialect
from .dtypes import parse_dtype
from .errors import FormatError
from .reader import (CNAMES, MAX_SAFE_INT, NAME_RE, APPEND_ATTEMPTS, _check_allowance, _load_json,
                     _read, _swap_to_little, dflt_fits, is_int)
from .superchunk import (CHECKSUMS, first_chunk, parse_header, parse_meta, read_chunk,
                         read_offsets)

CHECKSUM_NAMES = tuple(CHECKSUMS[i][0] for i in range(9))
MAX_SUPERCHUNKSIZE = 65536
MAX_QUANTIZE = 2147483647


def _meta_error(prefix, rel, field, msg):
    return FormatError("BAD_METADATA", "%s%s: %s" % (prefix, rel, msg), path=prefix + rel,
                       field=field)


def _inconsistent(path, field, msg):
    return FormatError("INCONSISTENT", "%s: %s" % (path, msg), path=path, field=field)


def _load_object(root, rel, prefix):
    value = _load_json(root, rel, prefix)
    if not isinstance(value, dict):
        raise _meta_error(prefix, rel, "", "top-level value is not an object")
    return value


def _ceil_div(a, b):
    return -(-a // b)


class Carray2:
    """A version-2 carray root (section 10): a dataset, a ctable column or a vlarray part."""

    def __init__(self, root, prefix, storage):
        self.root = root
        self.prefix = prefix
        self._check_storage(storage)
        self._check_shape(_load_object(root, "meta/shape", prefix))
        self.attrs = _load_object(root, "__attrs__", prefix)
        self.journal = self._load_journal()
        atomsize = self.dtype.itemsize
        for d in self.shape[1:]:
            atomsize *= d
        self.atomsize = atomsize
        self.len = self.shape[0]

    # -- section 10.1 --
    def _check_storage(self, st):
        p, rel = self.prefix, "meta/storage"

        def bad(key, msg):
            return _meta_error(p, rel, "/" + key, msg)

        for key in ("format_version", "kind", "dtype", "cparams", "chunklen", "superchunksize",
                    "checksum", "spare", "expectedlen", "dflt"):
            if key not in st:
                raise bad(key, "required key %r missing" % key)
            v = st[key]
            if key == "format_version" and not (is_int(v) and v == 2):
                raise bad(key, "format_version %r is not 2" % (v,))
            if key == "kind" and v != "carray":
                raise bad(key, "kind %r is not \"carray\"" % (v,))
            if key == "dtype" and not isinstance(v, str):
                raise bad(key, "dtype is not a string")   # "" is UNSUPPORTED_DTYPE (v1.md section 13)
            if key == "cparams":
                self.cparams = self._check_cparams(v)
            if key == "chunklen" and not (is_int(v) and 1 <= v <= MAX_SAFE_INT):
                raise bad(key, "chunklen %r is not an integer >= 1" % (v,))
            if key == "superchunksize" and not (is_int(v) and 1 <= v <= MAX_SUPERCHUNKSIZE):
                raise bad(key, "superchunksize %r is not an integer 1-65536" % (v,))
            if key == "checksum" and not (isinstance(v, str) and v in CHECKSUM_NAMES):
                raise bad(key, "checksum %r is not a checksum name" % (v,))
            if key == "spare" and not (is_int(v) and 0 <= v <= 100):
                raise bad(key, "spare %r is not an integer 0-100" % (v,))
            if key == "expectedlen" and not (is_int(v) and v >= 0):
                raise bad(key, "expectedlen %r is not an integer >= 0" % (v,))
        # checked in code after the schema: the dtype spelling, then dflt against it
        self.dtype = parse_dtype(st["dtype"], p + rel)
        if not dflt_fits(self.dtype.kind, st["dflt"]):
            raise bad("dflt", "dflt %r does not fit dtype %s" % (st["dflt"], self.dtype.str))
        self.chunklen = st["chunklen"]
        self.superchunksize = st["superchunksize"]

    def _check_cparams(self, cp):
        p, rel = self.prefix, "meta/storage"
        if not isinstance(cp, dict):
            raise _meta_error(p, rel, "/cparams", "cparams is not an object")
        for key in cp:
            if key not in ("clevel", "shuffle", "cname", "quantize"):
                raise _meta_error(p, rel, "/cparams/" + key, "unknown cparams key %r" % key)
        for key in ("clevel", "shuffle", "cname", "quantize"):
            if key not in cp:
                raise _meta_error(p, rel, "/cparams/" + key, "cparams key %r missing" % key)
        clevel, shuffle, cname, quantize = cp["clevel"], cp["shuffle"], cp["cname"], cp["quantize"]
        if not (is_int(clevel) and 0 <= clevel <= 9):
            raise _meta_error(p, rel, "/cparams/clevel", "clevel %r is not an integer 0-9" % (clevel,))
        if not (is_int(shuffle) and shuffle in (0, 1, 2)):
            raise _meta_error(p, rel, "/cparams/shuffle", "shuffle %r is not 0, 1 or 2" % (shuffle,))
        if not (isinstance(cname, str) and cname in CNAMES):
            raise _meta_error(p, rel, "/cparams/cname", "cname %r is not a known codec" % (cname,))
        if not (is_int(quantize) and 0 <= quantize <= MAX_QUANTIZE):
            raise _meta_error(p, rel, "/cparams/quantize",
                              "quantize %r is not an integer 0-2147483647" % (quantize,))
        return {"clevel": clevel, "shuffle": shuffle, "cname": cname}

    # -- section 10.2 --
    def _check_shape(self, sh):
        p, rel = self.prefix, "meta/shape"
        shape = sh.get("shape")
        if (not isinstance(shape, list) or not 1 <= len(shape) <= 32
                or not all(is_int(d) and 0 <= d <= MAX_SAFE_INT for d in shape)):
            raise _meta_error(p, rel, "/shape", "shape %r is not a list of 1-32 integers >= 0" % (shape,))
        for i, d in enumerate(shape[1:], 1):
            if d < 1:
                raise _meta_error(p, rel, "/shape/%d" % i, "trailing dimension %d is %d" % (i, d))
        self.shape = list(shape)

    # -- section 13.4 --
    def _load_journal(self):
        p, rel = self.prefix, ".journal"
        raw = _read(self.root, rel)
        if raw is None:
            return set()
        j = jsondialect.parse(raw, p + rel)
        if not isinstance(j, dict):
            raise _meta_error(p, rel, "", "top-level value is not an object")
        for key in j:
            if key not in ("format", "chunks"):
                raise _meta_error(p, rel, "/" + key, "unknown key %r" % key)
        if "format" not in j or not (is_int(j["format"]) and j["format"] == 2):
            raise _meta_error(p, rel, "/format", "format is not 2")
        chunks = j.get("chunks")
        if not isinstance(chunks, list):
            raise _meta_error(p, rel, "/chunks", "chunks is not a list")
        out = set()
        for n, pair in enumerate(chunks):
            if (not isinstance(pair, list) or len(pair) != 2
                    or not (is_int(pair[0]) and 1 <= pair[0] <= MAX_SAFE_INT)
                    or not (is_int(pair[1]) and 0 <= pair[1] <= 65535)):
                raise _meta_error(p, rel, "/chunks/%d" % n, "%r is not an [s, i] pair" % (pair,))
            out.add((pair[0], pair[1]))
        return out

    # -- sections 10.3, 10.4, 7 --
    def nchunks_for(self, length):
        return _ceil_div(length, self.chunklen)

    def read_values(self, length):
        """Rows [0, length) as bytes in stored byte order."""
        chunklen, atomsize, S = self.chunklen, self.atomsize, self.superchunksize
        chunksize = chunklen * atomsize
        N = self.nchunks_for(length)
        rest = length % chunklen
        pieces = []
        for s in range(1, _ceil_div(N, S) + 1):
            n_s = min(S, N - (s - 1) * S)
            rel = "data/__%d__.bin" % s
            path = self.prefix + rel
            buf = _read(self.root, rel)
            if buf is None:
                raise FormatError("MISSING_FILE", "%s is missing" % path, path=path)
            h = parse_header(buf, path)                         # section 4.3
            meta = parse_meta(buf, h, path)                     # section 5
            # section 10.4 table, in its order
            if h.options != 0x03:
                raise FormatError("BAD_HEADER", "%s: options 0x%02x, a dataset needs 0x03"
                                  % (path, h.options), path=path, field="blpk.options")
            if (32 + h.meta_size) % 8:
                raise FormatError("BAD_HEADER", "%s: 32 + meta-size %d is not a multiple of 8"
                                  % (path, h.meta_size), path=path, field="blpk.meta_size")
            if h.chunk_size != chunksize:
                raise _inconsistent(path, "blpk.chunk_size", "chunk-size %d, chunklen x atomsize = %d"
                                    % (h.chunk_size, chunksize))
            if h.nchunks < n_s:
                raise _inconsistent(path, "blpk.nchunks", "nchunks %d, the length needs %d"
                                    % (h.nchunks, n_s))
            # both keys are REQUIRED in a dataset superchunk (v2.md section 15.1 item 3)
            capacity = meta.get("capacity")
            if capacity != S:
                raise _inconsistent(path, "superchunk.meta/capacity",
                                    "capacity %s, superchunksize %d"
                                    % ("absent" if capacity is None else capacity, S))
            fc = meta.get("first_chunk")
            if fc != (s - 1) * S:
                raise _inconsistent(path, "superchunk.meta/first_chunk", "first_chunk %s, expected %d"
                                    % ("absent" if fc is None else fc, (s - 1) * S))
            offsets = read_offsets(buf, h, meta, range(n_s), path)   # section 7.1
            for i in range(n_s):
                g = fc + i
                is_last = i == h.nchunks - 1
                src, pos, cpath = buf, offsets[i], path
                if (s, i) in self.journal:
                    nrel = "%s.%d.next" % (rel, i)
                    nbuf = _read(self.root, nrel)
                    if nbuf is not None:
                        src, pos, cpath = nbuf, 0, self.prefix + nrel
                if g < N - 1 or rest == 0:
                    want = chunksize
                else:
                    want = rest * atomsize
                # section 7.4 steps 2-5, with section 10.4's nbytes rule after the checksum and
                # before decompression (section 15.1 item 6)
                _bh, payload = read_chunk(src, pos, h, i, is_last, g, cpath,
                                          check_nbytes=self._nbytes_rule(g, want, cpath))
                pieces.append(payload if len(payload) == want else payload[:want])
        return b"".join(pieces)

    def _nbytes_rule(self, g, want, cpath):
        """Section 10.4's chunk-size rule for global chunk `g`, which must give `want` bytes."""
        chunksize = self.chunklen * self.atomsize
        atomsize = self.atomsize
        full = want == chunksize

        def check(nbytes):
            if full:
                ok = nbytes == chunksize
            else:
                ok = nbytes % atomsize == 0 and want <= nbytes <= chunksize
            if not ok:
                raise _inconsistent(cpath, "blosc.nbytes",
                                    "chunk %d holds %d bytes, the dataset needs %d"
                                    % (g, nbytes, want))
        return check

    def info(self, length):
        return {"dtype": self.dtype.str, "shape": [length] + self.shape[1:],
                "chunklen": self.chunklen, "cparams": self.cparams, "attrs": self.attrs}

    def allowance(self, length):
        return length * self.atomsize, self.nchunks_for(length)

    def output(self, length):
        return _swap_to_little(self.read_values(length), self.dtype)


def _open_part(root, prefix, what):
    """A carray root that must be a version-2 carray (a vlarray's offsets/ or values/)."""
    st = _load_object(root, "meta/storage", prefix)
    fv = st.get("format_version")
    if not (is_int(fv) and fv == 2):
        raise _inconsistent(prefix + "meta/storage", "/format_version",
                            "%s has format_version %r, not 2" % (what, fv))
    if st.get("kind") != "carray":
        raise _meta_error(prefix, "meta/storage", "/kind",
                          "%s has kind %r, not \"carray\"" % (what, st.get("kind")))
    return Carray2(root, prefix, st)


class Vlarray:
    """A vlarray root (section 12)."""

    def __init__(self, root, prefix, storage):
        self.root = root
        self.prefix = prefix
        vtype = storage.get("vtype")
        if vtype not in ("utf8", "bytes", "ragged") or not isinstance(vtype, str):
            raise _meta_error(prefix, "meta/storage", "/vtype",
                              "vtype %r is not utf8, bytes or ragged" % (vtype,))
        self.vtype = vtype
        self.attrs = _load_object(root, "__attrs__", prefix)
        self.offsets = _open_part(os.path.join(root, "offsets"), prefix + "offsets/", "offsets/")
        o = self.offsets
        if o.dtype.str != "<i8" or len(o.shape) != 1:
            raise _inconsistent(prefix + "offsets/meta/storage", "/dtype",
                                "offsets/ must be a one-dimensional <i8 carray, is %s %r"
                                % (o.dtype.str, o.shape))
        self.values = _open_part(os.path.join(root, "values"), prefix + "values/", "values/")
        v = self.values
        if len(v.shape) != 1 or (vtype != "ragged" and v.dtype.str != "|u1"):
            raise _inconsistent(prefix + "values/meta/storage", "/dtype",
                                "values/ of a %s vlarray must be a one-dimensional %s carray, is %s %r"
                                % (vtype, "|u1" if vtype != "ragged" else "", v.dtype.str, v.shape))
        if o.len < 1:
            raise _inconsistent(prefix + "offsets/meta/shape", "/shape/0",
                                "offsets/ has length 0, needs at least 1")
        self.len = o.len - 1
        self.chunklen = v.chunklen
        self.cparams = v.cparams
        self.dtype_str = "vl:" + (vtype if vtype != "ragged" else v.dtype.str)

    def info(self, length):
        return {"dtype": self.dtype_str, "shape": [length], "chunklen": self.chunklen,
                "cparams": self.cparams, "attrs": self.attrs}

    def allowance(self, length):
        ob, oc = self.offsets.allowance(length + 1)
        vb, vc = self.values.allowance(self.values.len)
        return ob + vb, oc + vc

    def output(self, length):
        import numpy as np
        raw = self.offsets.read_values(length + 1)
        offs = np.frombuffer(raw, dtype="<i8").tolist()
        nvalues = self.values.len
        path = self.prefix + "offsets"
        if offs[0] != 0:
            raise _inconsistent(path, "offsets[0]", "offsets[0] is %d, not 0" % offs[0])
        for k in range(length):
            if not offs[k] <= offs[k + 1] <= nvalues:
                raise _inconsistent(path, "offsets[%d]" % (k + 1),
                                    "offsets[%d] = %d outside [offsets[%d] = %d, len(values) = %d]"
                                    % (k + 1, offs[k + 1], k, offs[k], nvalues))
        data = self.values.output(nvalues)
        item = self.values.atomsize
        parts = []
        for k in range(length):
            elem = data[offs[k] * item:offs[k + 1] * item]
            if self.vtype == "utf8":
                try:
                    elem.decode("utf-8", errors="strict")
                except UnicodeDecodeError:
                    raise _inconsistent(self.prefix + "values", "values",
                                        "element %d is not valid UTF-8" % k)
            parts.append(len(elem).to_bytes(8, "little"))
            parts.append(elem)
        return b"".join(parts)


def _open_root(root, prefix, storage):
    """A version-2 root after section 3.1 chose version 2: dispatch on `kind`."""
    kind = storage.get("kind")
    if kind == "carray":
        return Carray2(root, prefix, storage)
    if kind == "vlarray":
        return Vlarray(root, prefix, storage)
    raise _meta_error(prefix, "meta/storage", "/kind", "kind %r is not carray, ctable or vlarray"
                      % (kind,))


def _open_column(root, name):
    prefix = "data/%s/" % name
    croot = os.path.join(root, "data", name)
    st = _load_object(croot, "meta/storage", prefix)
    fv = st.get("format_version")
    if not (is_int(fv) and fv == 2):
        raise _inconsistent(prefix + "meta/storage", "/format_version",
                            "column %r has format_version %r, not 2" % (name, fv))
    if st.get("kind") == "ctable":
        raise _meta_error(prefix, "meta/storage", "/kind", "column %r is a nested ctable" % name)
    return _open_root(croot, prefix, st)


def _check_columns(storage):
    names = storage.get("columns")
    if (not isinstance(names, list) or not names
            or not all(isinstance(n, str) for n in names)):
        raise _meta_error("", "meta/storage", "/columns", "columns is not a non-empty list of strings")
    if len(set(names)) != len(names):
        raise _meta_error("", "meta/storage", "/columns", "repeated column name")
    for i, name in enumerate(names):
        if (not NAME_RE.fullmatch(name) or not name.isascii() or len(name) > 255
                or name in ("__attrs__", "__rootdirs__")):
            raise FormatError("UNSAFE_NAME", "meta/storage: unsafe column name %r" % name,
                              path="meta/storage", field="/columns/%d" % i)
    return names


def _read_append(root):
    raw = _read(root, ".append")
    if raw is None:
        return None
    rec = jsondialect.parse(raw, ".append")
    if not isinstance(rec, dict):
        raise _meta_error("", ".append", "", "top-level value is not an object")
    for key in rec:
        if key not in ("format", "length"):
            raise _meta_error("", ".append", "/" + key, "unknown key %r" % key)
    if not (is_int(rec.get("format")) and rec["format"] == 2):
        raise _meta_error("", ".append", "/format", "format is not 2")
    n = rec.get("length")
    if not (is_int(n) and 0 <= n <= MAX_SAFE_INT):
        raise _meta_error("", ".append", "/length", "length is not an integer >= 0")
    return n


def _read_ctable(root, storage):
    names = _check_columns(storage)
    attrs = _load_object(root, "__attrs__", "")
    length = None
    for _attempt in range(APPEND_ATTEMPTS):
        columns = [_open_column(root, name) for name in names]
        lens = [c.len for c in columns]
        n = _read_append(root)
        if n is not None:
            if all(x >= n for x in lens):
                length = n
                break
        elif all(x == lens[0] for x in lens):
            length = lens[0]
            break
    if length is None:
        raise FormatError("INCONSISTENT", "columns have different lengths %r" % (lens,),
                          path="meta/storage", field="/columns")
    total_bytes = total_chunks = 0
    for c in columns:
        b, k = c.allowance(length)
        total_bytes += b
        total_chunks += k
    _check_allowance(total_bytes, total_chunks)
    files = [("col-%d.bin" % i, c.output(length)) for i, c in enumerate(columns)]
    col_infos, dtype = [], []
    for name, c in zip(names, columns):
        info = {"name": name}
        info.update(c.info(length))
        col_infos.append(info)
        dtype.append([name, info["dtype"]])   # pairs, as conformance.md section 1.2 says
    chunklens = {c.chunklen for c in columns}
    first_cp = columns[0].cparams
    result = {
        "kind": "ctable",
        "format": 2,
        "dtype": dtype,
        "shape": [length],
        "chunklen": columns[0].chunklen if len(chunklens) == 1 else None,
        "cparams": first_cp if all(c.cparams == first_cp for c in columns) else None,
        "attrs": attrs,
        "columns": col_infos,
    }
    return result, files


def read_v2(root, storage):
    """Read a root whose meta/storage (already parsed, an object) announces version 2."""
    if storage.get("kind") == "ctable":
        return _read_ctable(root, storage)
    ds = _open_root(root, "", storage)
    _check_allowance(*ds.allowance(ds.len))
    out = ds.output(ds.len)
    result = {"kind": "vlarray" if isinstance(ds, Vlarray) else "carray", "format": 2}
    result.update(ds.info(ds.len))
    result["columns"] = []
    return result, [("values.bin", out)]
