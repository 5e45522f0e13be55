"""Real c-blosc 1.21 (Debian libblosc1, the library under python3-blosc) as an oracle for the writer.

Usage: /usr/bin/python3 compress-oracle.py jobs.json workdir

jobs.json is {"jobs": [...]}; each job is one of
  {"op": "compress", "id", "data": "<file in workdir>" | "zeros": n, "typesize", "clevel", "shuffle", "cname", "blocksize", "full"?}
      -> {"id", "header": hex of the 16 header bytes, "cbytes", "chunk"?: base64 of the whole chunk when "full"}
  {"op": "decompress", "id", "chunk": "<file>", "expected": "<file>"}
      -> {"id", "ok": bool, "error"?: str}
  {"op": "lz4", "id", "data": "<file>", "acceleration", "capacity"}
      -> {"id", "stream": base64 of LZ4_compress_fast's block ("" when it returned 0)}
The results are printed as one JSON object {"version", "lz4": the LZ4 library libblosc uses and
the version of liblz4.so.1, "results": [...]} on the last line.
c-blosc is called through ctypes with the *_ctx entry points (no global state, no environment
variables), because python-blosc refuses typesize > 255, which c-blosc itself accepts.
"""
import base64
import ctypes
import json
import os
import sys

import blosc  # noqa: F401  (asserts python3-blosc is installed over the same libblosc)

lib = ctypes.CDLL("libblosc.so.1")
lib.blosc_compress_ctx.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t,
                                   ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                   ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
lib.blosc_decompress_ctx.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
lib.blosc_cbuffer_sizes.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t),
                                    ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]
lib.blosc_get_version_string.restype = ctypes.c_char_p
lib.blosc_get_complib_info.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]
_lz4 = None


def liblz4():
    """The LZ4 that libblosc1 links (a dependency of the package), loaded for raw LZ4 blocks."""
    global _lz4
    if _lz4 is None:
        _lz4 = ctypes.CDLL("liblz4.so.1")
        _lz4.LZ4_compress_fast.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
        _lz4.LZ4_versionString.restype = ctypes.c_char_p
    return _lz4


def lz4_versions():
    """Which LZ4 libblosc reports, and liblz4's own version (named in the tests' failures)."""
    complib, version = ctypes.c_char_p(), ctypes.c_char_p()
    if lib.blosc_get_complib_info(b"lz4", ctypes.byref(complib), ctypes.byref(version)) < 0:
        return "libblosc has no lz4"
    try:
        own = liblz4().LZ4_versionString().decode()
    except OSError as error:
        own = f"not loadable ({error})"
    return f"libblosc uses {complib.value.decode()} {version.value.decode()}; liblz4.so.1 is {own}"


def read(workdir, name):
    with open(os.path.join(workdir, name), "rb") as f:
        return f.read()


def do_compress(job, workdir):
    data = bytes(job["zeros"]) if "zeros" in job else read(workdir, job["data"])
    src = ctypes.create_string_buffer(data, len(data) + 1)
    dest = ctypes.create_string_buffer(len(data) + 16)
    n = lib.blosc_compress_ctx(job["clevel"], job["shuffle"], job["typesize"], len(data), src, dest,
                               len(data) + 16, job["cname"].encode(), job.get("blocksize", 0), 1)
    if n <= 0:
        raise SystemExit(f"job {job['id']}: blosc_compress_ctx returned {n}")
    result = {"id": job["id"], "header": dest.raw[:16].hex(), "cbytes": n}
    if job.get("full"):
        result["chunk"] = base64.b64encode(dest.raw[:n]).decode()
    return result


def do_decompress(job, workdir):
    chunk = read(workdir, job["chunk"])
    expected = read(workdir, job["expected"])
    nbytes, cbytes, blocksize = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t()
    src = ctypes.create_string_buffer(chunk, len(chunk))
    lib.blosc_cbuffer_sizes(src, ctypes.byref(nbytes), ctypes.byref(cbytes), ctypes.byref(blocksize))
    if nbytes.value != len(expected) or cbytes.value != len(chunk):
        return {"id": job["id"], "ok": False, "error": f"header sizes {nbytes.value}/{cbytes.value}"}
    dest = ctypes.create_string_buffer(len(expected) + 1)
    m = lib.blosc_decompress_ctx(src, dest, len(expected) + 1, 1)
    if m != len(expected):
        return {"id": job["id"], "ok": False, "error": f"blosc_decompress_ctx returned {m}"}
    if dest.raw[:m] != expected:
        return {"id": job["id"], "ok": False, "error": "decoded bytes differ"}
    return {"id": job["id"], "ok": True}


def do_lz4(job, workdir):
    data = read(workdir, job["data"])
    dest = ctypes.create_string_buffer(max(1, job["capacity"]))
    n = liblz4().LZ4_compress_fast(data, dest, len(data), job["capacity"], job["acceleration"])
    if n < 0:
        raise SystemExit(f"job {job['id']}: LZ4_compress_fast returned {n}")
    return {"id": job["id"], "stream": base64.b64encode(dest.raw[:n]).decode()}


def main():
    with open(sys.argv[1]) as f:
        jobs = json.load(f)["jobs"]
    workdir = sys.argv[2]
    results = []
    for job in jobs:
        if job["op"] == "compress":
            results.append(do_compress(job, workdir))
        elif job["op"] == "decompress":
            results.append(do_decompress(job, workdir))
        elif job["op"] == "lz4":
            results.append(do_lz4(job, workdir))
        else:
            raise SystemExit(f"unknown op {job['op']}")
    print(json.dumps({"version": lib.blosc_get_version_string().decode(), "lz4": lz4_versions(), "results": results}))


main()
