"""Self-check of the generated corpus: a minimal format-2 reader written from spec/v2.md §15.

Used only to verify the generator's output (valid cases decode to the expected bytes that the
generator computed from its chosen values; broken cases fail with the expected code). It never
produces expected values. Run: python3 conformance/generators/v2_corpus.py --check
"""
import hashlib
import json
import os
import re
import struct

import blosc
import numpy as np

from .fmt import CHECKSUM_NAMES, CHECKSUM_SIZE, bind, raw_checksum


class Err(Exception):
    def __init__(self, code, where=""):
        super().__init__("%s %s" % (code, where))
        self.code = code


def isint(v):
    return isinstance(v, int) and not isinstance(v, bool)


def load(path, rel):
    if not os.path.isfile(path):
        raise Err("MISSING_FILE", rel)
    raw = open(path, "rb").read()
    return parse_json(raw, rel)


def parse_json(raw, rel):
    if raw.startswith(b"\xef\xbb\xbf"):
        raise Err("BAD_JSON", rel)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Err("BAD_JSON", rel)

    def pairs(ps):
        d = {}
        for k, v in ps:
            if k in d:
                raise Err("BAD_JSON", rel + " dup " + k)
            d[k] = v
        return d
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except ValueError:
        raise Err("BAD_JSON", rel)


UNITS = {"Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"}


def parse_dtype(s):
    if not isinstance(s, str):
        raise Err("BAD_METADATA", "dtype")
    try:
        dt = np.dtype(s)
    except Exception:
        raise Err("UNSUPPORTED_DTYPE", s)
    if dt.kind not in "biufSUM" or dt.names or dt.subdtype or dt.itemsize == 0:
        raise Err("UNSUPPORTED_DTYPE", s)
    if dt.kind == "M":
        m = re.search(r"\[(\w+)\]$", s)
        if not m or m.group(1) not in UNITS:
            raise Err("UNSUPPORTED_DTYPE", s)
    return dt


def check_dflt(dt, v):
    k = dt.kind
    ok = {"b": isinstance(v, bool), "i": isint(v), "u": isint(v), "f": isint(v) or isinstance(v, float),
          "S": isinstance(v, str), "U": isinstance(v, str), "M": isint(v) or v is None}[k]
    if not ok:
        raise Err("BAD_METADATA", "dflt")


def read_root(root, rel="", col=False):
    """Returns ('carray', arr) / ('vlarray', list of bytes, vtype, vdtype) / ('ctable', ...)."""
    if os.path.exists(os.path.join(root, "__rootdirs__")):
        rd = load(os.path.join(root, "__rootdirs__"), "__rootdirs__")
        for n in rd["names"]:
            if not os.path.isfile(os.path.join(root, n, "meta", "storage")):
                raise Err("MISSING_FILE", n + "/meta/storage")
        raise Err("V1")
    st = load(os.path.join(root, "meta", "storage"), rel + "meta/storage")
    if not isinstance(st, dict):
        raise Err("BAD_METADATA", "storage")
    if "format_version" not in st or (isint(st["format_version"]) and st["format_version"] == 1):
        if not os.path.isfile(os.path.join(root, "meta", "sizes")):
            raise Err("MISSING_FILE", "meta/sizes")
        raise Err("V1")
    fv = st["format_version"]
    if not (isint(fv) and fv == 2):
        raise Err("UNSUPPORTED_VERSION", "format_version")
    kind = st.get("kind")
    if kind == "carray":
        return ("carray",) + read_carray(root, st)
    if kind == "vlarray":
        return read_vlarray(root, st)
    if kind == "ctable":
        return read_ctable(root, st)
    raise Err("BAD_METADATA", "/kind")


def check_carray_storage(st):
    req = ["format_version", "kind", "dtype", "cparams", "chunklen", "superchunksize", "checksum", "spare", "expectedlen", "dflt"]
    for k in req:
        if k not in st:
            raise Err("BAD_METADATA", k)
    if not isinstance(st["dtype"], str) or not st["dtype"]:
        raise Err("BAD_METADATA", "dtype")
    cp = st["cparams"]
    if not isinstance(cp, dict) or set(cp) != {"clevel", "shuffle", "cname", "quantize"}:
        raise Err("BAD_METADATA", "cparams")
    if not (isint(cp["clevel"]) and 0 <= cp["clevel"] <= 9):
        raise Err("BAD_METADATA", "clevel")
    if not (isint(cp["shuffle"]) and cp["shuffle"] in (0, 1, 2)):
        raise Err("BAD_METADATA", "shuffle")
    if cp["cname"] not in ("blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"):
        raise Err("BAD_METADATA", "cname")
    if not (isint(cp["quantize"]) and 0 <= cp["quantize"] <= 2147483647):
        raise Err("BAD_METADATA", "quantize")
    if not (isint(st["chunklen"]) and st["chunklen"] >= 1):
        raise Err("BAD_METADATA", "chunklen")
    if not (isint(st["superchunksize"]) and 1 <= st["superchunksize"] <= 65536):
        raise Err("BAD_METADATA", "superchunksize")
    if st["checksum"] not in CHECKSUM_NAMES:
        raise Err("BAD_METADATA", "checksum")
    if not (isint(st["spare"]) and 0 <= st["spare"] <= 100):
        raise Err("BAD_METADATA", "spare")
    if not (isint(st["expectedlen"]) and st["expectedlen"] >= 0):
        raise Err("BAD_METADATA", "expectedlen")
    dt = parse_dtype(st["dtype"])
    check_dflt(dt, st["dflt"])
    return dt


def read_carray(root, st, journal_ok=True):
    dt = check_carray_storage(st)
    sh = load(os.path.join(root, "meta", "shape"), "meta/shape")
    if not isinstance(sh, dict):
        raise Err("BAD_METADATA", "shape")
    shape = sh.get("shape")
    if not (isinstance(shape, list) and 1 <= len(shape) <= 32 and all(isint(x) and x >= 0 for x in shape)):
        raise Err("BAD_METADATA", "shape")
    if any(x < 1 for x in shape[1:]):
        raise Err("BAD_METADATA", "shape trailing")
    at = load(os.path.join(root, "__attrs__"), "__attrs__")
    if not isinstance(at, dict):
        raise Err("BAD_METADATA", "__attrs__")
    jl = set()
    jp = os.path.join(root, ".journal")
    if os.path.exists(jp):
        j = load(jp, ".journal")
        if not isinstance(j, dict) or set(j) != {"format", "chunks"} or not (isint(j["format"]) and j["format"] == 2) \
                or not isinstance(j["chunks"], list):
            raise Err("BAD_METADATA", ".journal")
        for p in j["chunks"]:
            if not (isinstance(p, list) and len(p) == 2 and isint(p[0]) and p[0] >= 1 and isint(p[1]) and 0 <= p[1] <= 65535):
                raise Err("BAD_METADATA", ".journal pair")
            jl.add(tuple(p))
    n = shape[0]
    atom = dt.itemsize * int(np.prod(shape[1:], dtype=np.int64))
    cl, S = st["chunklen"], st["superchunksize"]
    N = -(-n // cl)
    rest = n % cl
    out = bytearray()
    for s in range(1, -(-N // S) + 1):
        first = (s - 1) * S
        ns = min(S, N - first)
        p = os.path.join(root, "data", "__%d__.bin" % s)
        if not os.path.isfile(p):
            raise Err("MISSING_FILE", p)
        b = open(p, "rb").read()
        if len(b) < 16:
            raise Err("TRUNCATED", "blpk.header")
        if b[:4] != b"blpk":
            raise Err("BAD_MAGIC")
        if b[4] != 2:
            raise Err("UNSUPPORTED_VERSION", "blpk.version")
        if len(b) < 32:
            raise Err("TRUNCATED", "blpk.header")
        opts, cid = b[5], b[6]
        if opts & 0xFC:
            raise Err("BAD_HEADER", "options")
        if cid > 8:
            raise Err("BAD_HEADER", "checksum")
        cs, lc, nch, ms = struct.unpack_from("<iiqi", b, 8)
        if cs == 0 or cs < -1:
            raise Err("BAD_HEADER", "chunk_size")
        if cs > 2147483631:
            raise Err("SIZE_LIMIT", "chunk_size")
        if nch < -1:
            raise Err("BAD_HEADER", "nchunks")
        if nch > 2 ** 53 - 1:
            raise Err("SIZE_LIMIT", "nchunks")
        if nch == -1 and opts & 1:
            raise Err("BAD_HEADER", "nchunks")
        if lc < -1 or (cs != -1 and lc != -1 and lc > cs) or (nch == 0 and lc not in (0, -1)):
            raise Err("BAD_HEADER", "last_chunk")
        if ms < 0 or (not opts & 2 and ms != 0) or (opts & 2 and ms < 2):
            raise Err("BAD_HEADER", "meta_size")
        if b[28:32] != b"\0\0\0\0":
            raise Err("BAD_HEADER", "reserved")
        meta = {}
        if opts & 2:
            if len(b) < 32 + ms:
                raise Err("TRUNCATED", "superchunk.meta")
            meta = parse_json(b[32:32 + ms], "superchunk.meta")
            if not isinstance(meta, dict):
                raise Err("BAD_METADATA", "superchunk.meta")
            if "capacity" in meta and not (isint(meta["capacity"]) and 0 <= meta["capacity"] <= 65536):
                raise Err("BAD_METADATA", "capacity")
            if "first_chunk" in meta and not (isint(meta["first_chunk"]) and 0 <= meta["first_chunk"] <= 2 ** 53 - 1):
                raise Err("BAD_METADATA", "first_chunk")
            if "capacity" in meta and meta["capacity"] < nch:
                raise Err("BAD_METADATA", "capacity < nchunks")
        if opts != 3:
            raise Err("BAD_HEADER", "options in dataset")
        if (32 + ms) % 8:
            raise Err("BAD_HEADER", "meta_size alignment")
        if cs != cl * atom:
            raise Err("INCONSISTENT", "chunk_size")
        if nch < ns:
            raise Err("INCONSISTENT", "nchunks")
        # v2.md §15.1 item 3: both are REQUIRED in a dataset superchunk (§5's defaults are for
        # stand-alone files); an absent one is INCONSISTENT like a wrong one.
        cap = meta.get("capacity")
        if cap != S:
            raise Err("INCONSISTENT", "capacity")
        fc = meta.get("first_chunk")
        if fc != first:
            raise Err("INCONSISTENT", "first_chunk")
        tab = 32 + ms
        if len(b) < tab + 8 * nch:
            raise Err("TRUNCATED", "offsets")
        start = tab + 8 * cap
        offs = [struct.unpack_from("<q", b, tab + 8 * i)[0] for i in range(nch)]
        # v2.md §15.1 item 4: the range of §7.1 is checked for required chunks' entries only;
        # the others are ignored with their chunks.
        for i, o in enumerate(offs[:ns]):
            if not (start <= o <= len(b) - 16):
                raise Err("BAD_HEADER", "offsets[%d]" % i)
        for i in range(ns):
            nxt = p + ".%d.next" % i
            if (s, i) in jl and os.path.isfile(nxt):
                buf, o = open(nxt, "rb").read(), 0
                if len(buf) < 16:
                    raise Err("TRUNCATED", "next")
            else:
                buf, o = b, offs[i]
            ver, vlz, fl, ts, nb, bs, cb = struct.unpack_from("<BBBBiii", buf, o)
            if ver != 2:
                raise Err("UNSUPPORTED_VERSION", "blosc.version")
            if vlz != 1 and not fl & 2:
                raise Err("UNSUPPORTED_VERSION", "blosc.versionlz")
            if fl & 8 or ts == 0 or nb < 0 or bs < 0 or cb < 16 or (nb > 0 and (bs < 1 or bs > nb)):
                raise Err("BAD_HEADER", "blosc header")
            if nb > 2147483631 or bs > 715827542:
                raise Err("SIZE_LIMIT", "blosc")
            if o + cb > len(buf):
                raise Err("TRUNCATED", "blosc.cbytes")
            if cs != -1 and ((i < nch - 1 and nb != cs) or (i == nch - 1 and nb > cs)):
                raise Err("BAD_HEADER", "chunk[%d].nbytes" % i)
            csz = CHECKSUM_SIZE[cid]
            if o + cb + csz > len(buf):
                raise Err("TRUNCATED", "checksum")
            chunk = buf[o:o + cb]
            want = raw_checksum(cid, chunk)
            if opts & 2:
                want = bind(want, fc + i)
            if buf[o + cb:o + cb + csz] != want:
                raise Err("CHECKSUM_MISMATCH", "chunk[%d]" % i)
            if fl & 2:
                if cb != nb + 16:
                    raise Err("BAD_HEADER", "memcpyed")
                data = chunk[16:]
            else:
                if (fl >> 5) > 4:
                    raise Err("UNKNOWN_CODEC")
                try:
                    data = blosc.decompress(chunk)
                except Exception:
                    raise Err("CORRUPT_STREAM")
                if len(data) != nb:
                    raise Err("CORRUPT_STREAM")
            g = first + i
            if g < N - 1 or rest == 0:
                if nb != cl * atom:
                    raise Err("INCONSISTENT", "blosc.nbytes")
            else:
                if nb % atom or nb < rest * atom or nb > cl * atom:
                    raise Err("INCONSISTENT", "blosc.nbytes")
                data = data[:rest * atom]
            out += data
    arr = np.frombuffer(bytes(out), dtype=dt).reshape(shape)
    return arr, st, at


def read_vlarray(root, st):
    if st.get("vtype") not in ("utf8", "bytes", "ragged"):
        raise Err("BAD_METADATA", "vtype")
    at = load(os.path.join(root, "__attrs__"), "__attrs__")
    if not isinstance(at, dict):
        raise Err("BAD_METADATA", "__attrs__")
    subs = {}
    for sub in ("offsets", "values"):
        sroot = os.path.join(root, sub)
        sst = load(os.path.join(sroot, "meta", "storage"), sub + "/meta/storage")
        if not isinstance(sst, dict):
            raise Err("BAD_METADATA")
        if sst.get("format_version") != 2 or sst.get("kind") != "carray":
            raise Err("INCONSISTENT", sub)
        subs[sub] = read_carray(sroot, sst)
    offs, vals = subs["offsets"][0], subs["values"][0]
    if offs.dtype.str != "<i8" or offs.ndim != 1:
        raise Err("INCONSISTENT", "offsets dtype")
    vt = st["vtype"]
    if vals.ndim != 1 or (vt in ("utf8", "bytes") and vals.dtype.str != "|u1"):
        raise Err("INCONSISTENT", "values dtype")
    if len(offs) < 1:
        raise Err("INCONSISTENT", "len(offsets)")
    if offs[0] != 0:
        raise Err("INCONSISTENT", "offsets[0]")
    els = []
    for k in range(len(offs) - 1):
        a, b_ = int(offs[k]), int(offs[k + 1])
        if not (a <= b_ <= len(vals)):
            raise Err("INCONSISTENT", "offsets[%d]" % k)
        e = vals[a:b_]
        if e.dtype.byteorder == ">":
            e = e.astype(e.dtype.newbyteorder("<"))
        eb = e.tobytes()
        if vt == "utf8":
            try:
                eb.decode("utf-8")
            except UnicodeDecodeError:
                raise Err("INCONSISTENT", "values utf8")
        els.append(eb)
    return ("vlarray", els, vt, vals.dtype, subs["values"][1], at)


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def read_ctable(root, st):
    cols = st.get("columns")
    if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
        raise Err("BAD_METADATA", "columns")
    for c in cols:
        if not NAME.match(c) or c in ("__attrs__", "__rootdirs__") or len(c) > 255:
            raise Err("UNSAFE_NAME", c)
    if len(set(cols)) != len(cols):
        raise Err("BAD_METADATA", "duplicate columns")
    at = load(os.path.join(root, "__attrs__"), "__attrs__")
    if not isinstance(at, dict):
        raise Err("BAD_METADATA", "__attrs__")
    res = []
    for c in cols:
        croot = os.path.join(root, "data", c)
        cst = load(os.path.join(croot, "meta", "storage"), c + "/meta/storage")
        if not isinstance(cst, dict):
            raise Err("BAD_METADATA")
        if not (isint(cst.get("format_version")) and cst.get("format_version") == 2):
            raise Err("INCONSISTENT", c + " format_version")
        if cst.get("kind") == "ctable":
            raise Err("BAD_METADATA", c + "/kind")
        res.append((c, read_root(croot, c + "/")))
    lens = [len(r[1]) for _, r in res]  # carray: the array; vlarray: the element list
    ap = os.path.join(root, ".append")
    if os.path.exists(ap):
        a = load(ap, ".append")
        L = a["length"]
        if all(x >= L for x in lens):
            return ("ctable", res, at, L)
    if len(set(lens)) != 1:
        raise Err("INCONSISTENT", "column lengths")
    return ("ctable", res, at, lens[0])


def le(arr):
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return np.ascontiguousarray(arr).tobytes()


def value_bytes(r, cut=None):
    if r[0] == "carray":
        a = r[1] if cut is None else r[1][:cut]
        return le(a)
    els = r[1] if cut is None else r[1][:cut]
    return b"".join(struct.pack("<Q", len(e)) + e for e in els)


def check_set(setdir):
    m = json.load(open(os.path.join(setdir, "manifest.json")))
    bad = []
    for c in m["cases"]:
        root = os.path.join(setdir, c["name"], c.get("rootdir", "data.bcolz"))
        try:
            r = read_root(root)
            got = None
        except Err as e:
            r, got = None, e.code
        exp = c.get("expect", {}).get("error")
        if exp:
            if got != exp:
                bad.append("%s: got %s, expected %s" % (c["name"], got, exp))
            continue
        if got:
            bad.append("%s: valid case failed with %s" % (c["name"], got))
            continue
        if c["kind"] == "ctable":
            res, at, L = r[1], r[2], r[3]
            for (name, rr), mc in zip(res, c["columns"]):
                vb = value_bytes(rr, L)
                if hashlib.sha256(vb).hexdigest() != mc["sha256"]:
                    bad.append("%s: column %s values differ" % (c["name"], name))
            if L != c["len"] or at != c["attrs"]:
                bad.append("%s: len/attrs differ" % c["name"])
        else:
            vb = value_bytes(r)
            e = c["expected"]["values.bin"]
            if hashlib.sha256(vb).hexdigest() != e["sha256"] or len(vb) != e["bytes"]:
                bad.append("%s: values differ" % c["name"])
            ef = open(os.path.join(setdir, c["name"], "expected", "values.bin"), "rb").read()
            if hashlib.sha256(ef).hexdigest() != e["sha256"]:
                bad.append("%s: expected file differs from manifest" % c["name"])
            at = r[3] if r[0] == "carray" else r[5]
            if json.dumps(at, sort_keys=True) != json.dumps(c["attrs"], sort_keys=True):
                bad.append("%s: attrs differ" % c["name"])
    return len(m["cases"]), bad
