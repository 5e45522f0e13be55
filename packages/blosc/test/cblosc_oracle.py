"""Batch oracle: compress test cases with the system's real c-blosc (Debian libblosc1 1.21.x).

Usage: /usr/bin/python3 cblosc_oracle.py cases.json outdir

cases.json is a list of objects {id, seed, size, typesize, data, cname, shuffle, clevel,
blocksize, nthreads}. For each case the generated input is written to <outdir>/<id>.data and the
chunk to <outdir>/<id>.chunk. c-blosc is called through ctypes (not python-blosc) because
python-blosc refuses typesize > 255, which c-blosc itself accepts and writes as 1. Each chunk is
decompressed again by c-blosc and compared, so a case only reaches the TS side if the oracle
round-trips it.
"""
import ctypes
import json
import os
import sys

import numpy as np

lib = ctypes.CDLL("libblosc.so.1")
lib.blosc_init()
lib.blosc_compress.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t,
                               ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
lib.blosc_decompress.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
lib.blosc_set_compressor.argtypes = [ctypes.c_char_p]
lib.blosc_get_version_string.restype = ctypes.c_char_p


def make_data(kind, size, seed):
    rng = np.random.default_rng(seed)
    if kind == "random":
        return rng.integers(0, 256, size, dtype=np.uint8).tobytes()
    if kind == "zeros":
        return bytes(size)
    if kind == "walk_f8":
        n = size // 8 + 1
        return np.cumsum(rng.normal(0, 1, n)).astype("<f8").tobytes()[:size]
    if kind == "walk_i4":
        n = size // 4 + 1
        return np.cumsum(rng.integers(-3, 4, n)).astype("<i4").tobytes()[:size]
    if kind == "walk_i2":
        n = size // 2 + 1
        return np.cumsum(rng.integers(-2, 3, n)).astype("<i2").tobytes()[:size]
    if kind == "repeat":
        pat = rng.integers(0, 256, int(rng.integers(1, 65)), dtype=np.uint8).tobytes()
        return (pat * (size // len(pat) + 1))[:size]
    if kind == "lowentropy":
        return rng.integers(0, 4, size, dtype=np.uint8).tobytes()
    if kind == "mixed":
        out = bytearray()
        while len(out) < size:
            n = int(rng.integers(1, 3000))
            if rng.random() < 0.5:
                out += bytes([int(rng.integers(0, 256))]) * n
            else:
                out += rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        return bytes(out[:size])
    raise ValueError(kind)


def main():
    cases = json.load(open(sys.argv[1]))
    outdir = sys.argv[2]
    for c in cases:
        data = make_data(c["data"], c["size"], c["seed"])
        assert len(data) == c["size"]
        lib.blosc_set_compressor(c["cname"].encode())
        lib.blosc_set_blocksize(c.get("blocksize", 0))
        lib.blosc_set_nthreads(c.get("nthreads", 1))
        src = ctypes.create_string_buffer(data, len(data) + 1)
        dest = ctypes.create_string_buffer(len(data) + 16)
        n = lib.blosc_compress(c["clevel"], c["shuffle"], c["typesize"], len(data), src, dest, len(data) + 16)
        lib.blosc_set_blocksize(0)
        if n <= 0:
            raise SystemExit(f"case {c['id']}: blosc_compress returned {n}")
        chunk = dest.raw[:n]
        back = ctypes.create_string_buffer(len(data) + 1)
        m = lib.blosc_decompress(chunk, back, len(data) + 1)
        if m != len(data) or back.raw[:m] != data:
            raise SystemExit(f"case {c['id']}: c-blosc does not round-trip its own chunk")
        with open(os.path.join(outdir, f"{c['id']}.data"), "wb") as f:
            f.write(data)
        with open(os.path.join(outdir, f"{c['id']}.chunk"), "wb") as f:
            f.write(chunk)
    lib.blosc_set_nthreads(1)
    print(json.dumps({"version": lib.blosc_get_version_string().decode(), "cases": len(cases)}))


main()
