"""Self-test of the version-2 reader against the worked examples of spec/v2.md section 8.

Run: /usr/bin/python3 -B -E -s conformance/adapters/python/tests/test_v2_examples.py
The hex blocks are read from spec/v2.md itself (section 8's machine-readable format); datasets
are built in a temporary directory that is removed afterwards.
"""

import json
import os
import re
import shutil
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
SPEC = os.path.join(HERE, "..", "..", "..", "..", "spec", "v2.md")

from pyreader.errors import FormatError  # noqa: E402
from pyreader.reader import read_dataset  # noqa: E402
from pyreader.superchunk import read_standalone  # noqa: E402

STORAGE_81 = ('{"format_version": 2, "kind": "carray", "dtype": "<i4", "cparams": {"clevel": 5, '
              '"shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 2, "superchunksize": 4, '
              '"checksum": "adler32", "spare": 50, "expectedlen": 3, "dflt": 0}')


def hex_blocks():
    text = open(SPEC, encoding="utf-8").read()
    blocks = {}
    for m in re.finditer(r"```hex ([\w-]+)\n(.*?)```", text, re.S):
        out = bytearray()
        for line in m.group(2).splitlines():
            line = re.sub(r"^[0-9A-Fa-f]{4}:\s*", "", line.strip())
            for tok in line.split():
                if re.fullmatch(r"[0-9A-Fa-f]{2}", tok):
                    out.append(int(tok, 16))
                else:
                    break
        blocks[m.group(1)] = bytes(out)
    return blocks


def make_dataset(tmp, superchunk, length, storage=STORAGE_81, name="ds"):
    root = os.path.join(tmp, name)
    os.makedirs(os.path.join(root, "meta"))
    os.makedirs(os.path.join(root, "data"))
    with open(os.path.join(root, "meta", "storage"), "w") as fh:
        fh.write(storage + "\n")
    with open(os.path.join(root, "meta", "shape"), "w") as fh:
        fh.write('{"shape": [%d]}\n' % length)
    with open(os.path.join(root, "__attrs__"), "w") as fh:
        fh.write("{}\n")
    with open(os.path.join(root, "data", "__1__.bin"), "wb") as fh:
        fh.write(superchunk)
    return root


def read(root):
    try:
        result, files = read_dataset(root)
    except FormatError as exc:
        return exc.code, None
    return result, dict(files)


def write_carray(root, dtype, rows, chunklen, S=4, cid=1, item=None, shape_extra=(), attrs="{}",
                 length=None):
    """A minimal writer of spec/v2.md section 10 (rows: list of per-row bytes)."""
    import blosc
    import hashlib
    import zlib
    item = item or len(rows[0]) if rows else (item or 1)
    os.makedirs(os.path.join(root, "meta"), exist_ok=True)
    names = ["none", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512"]
    with open(os.path.join(root, "meta", "storage"), "w") as fh:
        fh.write('{"format_version": 2, "kind": "carray", "dtype": "%s", "cparams": {"clevel": 5, '
                 '"shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": %d, "superchunksize": %d, '
                 '"checksum": "%s", "spare": 10, "expectedlen": 0, "dflt": 0}\n'
                 % (dtype, chunklen, S, names[cid]))
    n = len(rows) if length is None else length
    with open(os.path.join(root, "meta", "shape"), "w") as fh:
        fh.write(json.dumps({"shape": [n] + list(shape_extra)}) + "\n")
    with open(os.path.join(root, "__attrs__"), "w") as fh:
        fh.write(attrs + "\n")
    chunks = [b"".join(rows[k:k + chunklen]) for k in range(0, len(rows), chunklen)]
    blobs = [blosc.compress(c, typesize=min(item, 255), cname="lz4") for c in chunks]

    def cks(data):
        if cid == 0:
            return b""
        if cid == 1:
            return (zlib.adler32(data) & 0xFFFFFFFF).to_bytes(4, "little")
        if cid == 2:
            return (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "little")
        return hashlib.new(names[cid], data).digest()

    def bound(d, g):
        k = min(len(d), 8)
        if not k:
            return d
        return (int.from_bytes(d[:k], "little") ^ (g % (1 << 8 * k))).to_bytes(k, "little") + d[k:]

    if blobs:
        os.makedirs(os.path.join(root, "data"), exist_ok=True)
    chunksize = chunklen * len(rows[0]) if rows else 0
    for s in range(1, -(-len(blobs) // S) + 1):
        mine = blobs[(s - 1) * S:s * S]
        meta = ('{"capacity": %d, "first_chunk": %d}' % (S, (s - 1) * S)).encode()
        meta += b" " * ((-(32 + len(meta))) % 8)
        pos = 32 + len(meta) + 8 * S
        offs, body = [], b""
        for i, blob in enumerate(mine):
            offs.append(pos + len(body))
            body += blob + bound(cks(blob), (s - 1) * S + i)
        offs += [-1] * (S - len(offs))
        last = len(chunks[(s - 1) * S + len(mine) - 1])
        hdr = (b"blpk" + bytes([2, 3, cid, min(item, 255)]) + struct.pack("<ii", chunksize, last)
               + struct.pack("<q", len(mine)) + struct.pack("<i", len(meta)) + bytes(4))
        with open(os.path.join(root, "data", "__%d__.bin" % s), "wb") as fh:
            fh.write(hdr + meta + struct.pack("<%dq" % S, *offs) + body)


def write_vlarray(root, elems, vtype="utf8", dtype="|u1", chunklen=4, S=2):
    os.makedirs(os.path.join(root, "meta"), exist_ok=True)
    with open(os.path.join(root, "meta", "storage"), "w") as fh:
        fh.write('{"format_version": 2, "kind": "vlarray", "vtype": "%s"}\n' % vtype)
    with open(os.path.join(root, "__attrs__"), "w") as fh:
        fh.write('{"v": 1}\n')
    offs, cur = [0], 0
    item = 1 if dtype == "|u1" else int(dtype[2:])
    for e in elems:
        cur += len(e) // item
        offs.append(cur)
    data = b"".join(elems)
    write_carray(os.path.join(root, "offsets"), "<i8", [struct.pack("<q", x) for x in offs], chunklen, S)
    write_carray(os.path.join(root, "values"), dtype,
                 [data[k:k + item] for k in range(0, len(data), item)], chunklen, S, item=item)


FAILS = []


def check(name, cond, detail=""):
    print("%-4s %s %s" % ("ok" if cond else "FAIL", name, detail))
    if not cond:
        FAILS.append(name)


def main():
    b = hex_blocks()
    check("hex blocks found", set(b) >= {"superchunk-dataset", "superchunk-no-metadata",
                                         "superchunk-relocated", "blpk-v1", "bloscpack-v3"},
          sorted(b))
    sc81, sc82, sc83 = b["superchunk-dataset"], b["superchunk-no-metadata"], b["superchunk-relocated"]
    check("8.1 size 160", len(sc81) == 160, len(sc81))
    check("8.2 size 100", len(sc82) == 100, len(sc82))
    check("8.3 size 188", len(sc83) == 188, len(sc83))
    tmp = tempfile.mkdtemp()
    try:
        v123 = struct.pack("<3i", 1, 2, 3)
        res, files = read(make_dataset(tmp, sc81, 3))
        check("8.1 dataset reads 1,2,3", files is not None and files["values.bin"] == v123, res)
        check("8.1 result", res.get("format") == 2 and res.get("dtype") == "<i4"
              and res.get("shape") == [3] and res.get("chunklen") == 2
              and res.get("cparams") == {"clevel": 5, "shuffle": 1, "cname": "lz4"}, res)

        check("8.1 stand-alone", read_standalone(sc81) == [struct.pack("<2i", 1, 2), struct.pack("<i", 3)])
        check("8.2 stand-alone", read_standalone(sc82) == [struct.pack("<2i", 1, 2), struct.pack("<i", 3)])
        # 8.2 as a dataset superchunk: no metadata -> options are not 0x03 -> BAD_HEADER
        code, _ = read(make_dataset(tmp, sc82, 3, name="ds82"))
        check("8.2 in a dataset is BAD_HEADER (options)", code == "BAD_HEADER", code)

        res, files = read(make_dataset(tmp, sc83, 4, name="ds83a"))
        check("8.3 length 4 reads 1,2,3,4", files is not None
              and files["values.bin"] == struct.pack("<4i", 1, 2, 3, 4), res)
        res, files = read(make_dataset(tmp, sc83, 3, name="ds83b"))
        check("8.3 length 3 reads 1,2,3 (10.4 leniency)", files is not None
              and files["values.bin"] == v123, res)

        for nm in ("blpk-v1", "bloscpack-v3"):
            code, _ = read(make_dataset(tmp, b[nm] + bytes(64), 3, name="ds-" + nm))
            check("8.4 %s is UNSUPPORTED_VERSION" % nm, code == "UNSUPPORTED_VERSION", code)

        # 6.1: every single flipped bit of the 8.1 superchunk is an error or changes nothing
        bad = []
        codes = {}
        root = make_dataset(tmp, sc81, 3, name="flip")
        target = os.path.join(root, "data", "__1__.bin")
        for pos in range(len(sc81)):
            for bit in range(8):
                mutated = bytearray(sc81)
                mutated[pos] ^= 1 << bit
                with open(target, "wb") as fh:
                    fh.write(mutated)
                res, files = read(root)
                if files is None:
                    codes[res] = codes.get(res, 0) + 1
                elif files["values.bin"] != v123:
                    bad.append((pos, bit))
        check("6.1 every single-bit flip caught or harmless", not bad, "bad=%r codes=%s"
              % (bad[:10], json.dumps(codes, sort_keys=True)))

        # checksum binding: chunk 1's checksum without the XOR is a mismatch
        mutated = bytearray(sc81)
        mutated[152:156] = (0x0545005A).to_bytes(4, "little")
        with open(target, "wb") as fh:
            fh.write(mutated)
        code, _ = read(root)
        check("6 unbound checksum is CHECKSUM_MISMATCH", code == "CHECKSUM_MISMATCH", code)

        # 3.1 dispatch
        with open(os.path.join(root, "meta", "storage"), "w") as fh:
            fh.write(STORAGE_81.replace('"format_version": 2', '"format_version": 3'))
        code, _ = read(root)
        check("3.1 format_version 3 is UNSUPPORTED_VERSION", code == "UNSUPPORTED_VERSION", code)

        # section 12 example: ["ab", "", "héllo"] with values chunklen 4
        vl = os.path.join(tmp, "vl")
        os.makedirs(os.path.join(vl, "meta"))
        with open(os.path.join(vl, "meta", "storage"), "w") as fh:
            fh.write('{"format_version": 2, "kind": "vlarray", "vtype": "utf8"}\n')
        with open(os.path.join(vl, "__attrs__"), "w") as fh:
            fh.write("{}\n")
        import blosc
        for part, dtype, rows, chunklen, item in (
                ("offsets", "<i8", [struct.pack("<q", x) for x in (0, 2, 2, 8)], 4, 8),
                ("values", "|u1", [bytes([x]) for x in b"ab" + "héllo".encode()], 4, 1)):
            chunks = [b"".join(rows[k:k + chunklen]) for k in range(0, len(rows), chunklen)]
            blobs = [blosc.compress(c, typesize=item, cname="lz4") for c in chunks]
            meta = b'{"capacity": 4, "first_chunk": 0}'
            meta += b" " * ((-(32 + len(meta))) % 8)
            table_at = 32 + len(meta)
            pos = table_at + 32
            offs, body = [], b""
            import zlib
            for g, blob in enumerate(blobs):
                offs.append(pos + len(body))
                body += blob + ((zlib.adler32(blob) ^ g) & 0xFFFFFFFF).to_bytes(4, "little")
            offs += [-1] * (4 - len(offs))
            hdr = (b"blpk" + bytes([2, 3, 1, item]) + struct.pack("<ii", chunklen * item, len(chunks[-1]))
                   + struct.pack("<q", len(blobs)) + struct.pack("<i", len(meta)) + bytes(4))
            sc = hdr + meta + struct.pack("<4q", *offs) + body
            st = STORAGE_81.replace('"<i4"', '"%s"' % dtype).replace('"chunklen": 2', '"chunklen": %d' % chunklen)
            make_dataset(vl, sc, len(rows), storage=st, name=part)
        res, files = read(vl)
        expect = b"".join(len(e).to_bytes(8, "little") + e for e in (b"ab", b"", "héllo".encode()))
        check("12 vlarray example", files is not None and files["values.bin"] == expect
              and res["dtype"] == "vl:utf8" and res["shape"] == [3] and res["kind"] == "vlarray", res)
        more_tests(tmp)
    finally:
        shutil.rmtree(tmp)
    print("%d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


def rewrite(path, old, new):
    with open(path) as fh:
        text = fh.read()
    assert old in text, (path, old)
    with open(path, "w") as fh:
        fh.write(text.replace(old, new))


def more_tests(tmp):
    # a ctable of a carray column over two superchunks and a utf8 vlarray column
    def build(name):
        ct = os.path.join(tmp, name)
        os.makedirs(os.path.join(ct, "meta"))
        with open(os.path.join(ct, "meta", "storage"), "w") as fh:
            fh.write('{"format_version": 2, "kind": "ctable", "columns": ["a", "s"]}\n')
        with open(os.path.join(ct, "__attrs__"), "w") as fh:
            fh.write('{"t": "x"}\n')
        write_carray(os.path.join(ct, "data", "a"), "<i4", [struct.pack("<i", x) for x in range(5)],
                     2, S=2, cid=6)
        write_vlarray(os.path.join(ct, "data", "s"), [b"ab", b"", "h\u00e9llo".encode(), b"x", b"yz"])
        return ct
    ct = build("ct")
    res, files = read(ct)
    vl = b"".join(len(e).to_bytes(8, "little") + e
                  for e in (b"ab", b"", "h\u00e9llo".encode(), b"x", b"yz"))
    check("11 ctable reads", files is not None and files["col-0.bin"] == struct.pack("<5i", *range(5))
          and files["col-1.bin"] == vl and res["dtype"] == [["a", "<i4"], ["s", "vl:utf8"]]
          and res["shape"] == [5] and res["columns"][1]["attrs"] == {"v": 1}, res)

    def expect(name, mutate, code):
        root = build(name)
        mutate(root)
        got, _ = read(root)
        check("%s -> %s" % (name, code), got == code, got)

    def j(*parts):
        return lambda root: os.path.join(root, *parts)
    expect("col-v1", lambda r: rewrite(j("data", "a", "meta", "storage")(r), '"format_version": 2, ', ''),
           "INCONSISTENT")
    expect("col-nested", lambda r: rewrite(j("data", "a", "meta", "storage")(r), '"carray"', '"ctable"'),
           "BAD_METADATA")
    expect("dup-cols", lambda r: rewrite(j("meta", "storage")(r), '"s"]', '"a"]'), "BAD_METADATA")
    expect("unsafe-col", lambda r: rewrite(j("meta", "storage")(r), '"s"]', '"__attrs__"]'), "UNSAFE_NAME")
    expect("no-root-attrs", lambda r: os.remove(j("__attrs__")(r)), "MISSING_FILE")
    expect("len-differ", lambda r: rewrite(j("data", "a", "meta", "shape")(r), "[5]", "[4]"),
           "INCONSISTENT")
    expect("no-sc2", lambda r: os.remove(j("data", "a", "data", "__2__.bin")(r)), "MISSING_FILE")
    expect("vl-offsets-i4", lambda r: rewrite(j("data", "s", "offsets", "meta", "storage")(r),
                                              '"<i8"', '"<i4"'), "INCONSISTENT")
    expect("vl-vtype", lambda r: rewrite(j("data", "s", "meta", "storage")(r), '"utf8"', '"text"'),
           "BAD_METADATA")
    expect("vl-values-shorter", lambda r: rewrite(j("data", "s", "values", "meta", "shape")(r),
                                                  "[11]", "[10]"), "INCONSISTENT")

    def bad_utf8(r):
        write_vlarray(j("data", "s")(r), [b"ab", b"", b"\xc3", b"x", b"yz"])
    expect("vl-bad-utf8", bad_utf8, "INCONSISTENT")

    def bad_cap(r):
        p = j("data", "a", "data", "__1__.bin")(r)
        buf = bytearray(open(p, "rb").read())
        buf[32:64] = buf[32:64].replace(b'y": 2', b'y": 3')
        open(p, "wb").write(bytes(buf))
    expect("capacity-3", bad_cap, "INCONSISTENT")

    def journal(r):
        # replace chunk (1, 1) of column a (rows 2, 3) through .journal + .next
        import blosc
        import hashlib
        blob = blosc.compress(struct.pack("<2i", 20, 30), typesize=4, cname="lz4")
        d = hashlib.sha256(blob).digest()
        d = (int.from_bytes(d[:8], "little") ^ 1).to_bytes(8, "little") + d[8:]
        open(j("data", "a", "data", "__1__.bin.1.next")(r), "wb").write(blob + d)
    root = build("journal")
    journal(root)
    res, files = read(root)
    check("13.4 .next without .journal ignored",
          files is not None and files["col-0.bin"] == struct.pack("<5i", *range(5)), res)
    open(os.path.join(root, "data", "a", ".journal"), "w").write('{"format": 2, "chunks": [[1, 1]]}\n')
    res, files = read(root)
    check("13.4 .journal + .next read",
          files is not None and files["col-0.bin"] == struct.pack("<5i", 0, 1, 20, 30, 4), res)
    open(os.path.join(root, "data", "a", ".journal"), "w").write('{"format": 2, "chunks": [1]}\n')
    res, _ = read(root)
    check("13.4 v1-style journal is BAD_METADATA", res == "BAD_METADATA", res)

    # .append leniency: column a has 6 rows, .append records 5
    root = build("append")
    write_carray(os.path.join(root, "data", "a"), "<i4", [struct.pack("<i", x) for x in range(6)], 2, S=2)
    res, _ = read(root)
    check("11 lengths differ without .append", res == "INCONSISTENT", res)
    open(os.path.join(root, ".append"), "w").write('{"format": 2, "length": 5}\n')
    res, files = read(root)
    check("11 .append length 5", files is not None and res["shape"] == [5]
          and files["col-0.bin"] == struct.pack("<5i", *range(5)), res)

    # every checksum id, multidimensional carray, big-endian
    for cid in range(9):
        root = os.path.join(tmp, "cid%d" % cid)
        write_carray(root, ">i2", [struct.pack(">2h", x, -x) for x in range(7)], 3, S=2, cid=cid,
                     item=2, shape_extra=(2,))
        res, files = read(root)
        ok = files is not None and files["values.bin"] == b"".join(
            struct.pack("<2h", x, -x) for x in range(7)) and res["shape"] == [7, 2]
        check("checksum id %d, [7, 2] >i2" % cid, ok, res)


if __name__ == "__main__":
    sys.exit(main())
