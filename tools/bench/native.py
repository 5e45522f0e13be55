#!/usr/bin/python3
"""Native side of the Blosc benchmark: real c-blosc (python3-blosc) and numpy.

Run by bench.mjs as a long-lived child process under /usr/bin/python3 (Debian's interpreter, the
one that has blosc and numpy). It reads one JSON request per line on stdin and answers with one
JSON object per line on stdout; anything human-readable goes to stderr. Timings are taken with
time.perf_counter() around the loops only, so process start-up and JSON traffic never count.

Requests:
  {"cmd": "gen", "dir": ..., "names": [...]}        make the datasets that are missing
  {"cmd": "native", ...}                            compress + decompress one config, time both,
                                                    write the compressed chunks for the JS side
  {"cmd": "verify", ...}                            decode chunks written by someone else with
                                                    c-blosc and compare them with the dataset
  {"cmd": "quit"}
"""

import hashlib
import json
import os
import sys
import time

import blosc
import numpy as np

DATASET_BYTES = 64 * 1024 * 1024

# Each dataset has its own fixed seed so that adding or removing one never changes the others.
DATASETS = {
    "f8-randwalk": {"dtype": "<f8", "seed": 1001, "what": "float64 random walk, cumsum(normal(0, 1))"},
    "i8-arange": {"dtype": "<i8", "seed": None, "what": "int64 arange(0, n)"},
    "f8-uniform": {"dtype": "<f8", "seed": 1003, "what": "float64 uniform in [0, 1)"},
    "i4-uniform100": {"dtype": "<i4", "seed": 1004, "what": "int32 uniform in 0..99"},
}

# Bump when a generator changes, so that stale files on disk are rebuilt rather than reused.
GENERATOR_VERSION = 1


def make_dataset(name):
    spec = DATASETS[name]
    dtype = np.dtype(spec["dtype"])
    count = DATASET_BYTES // dtype.itemsize
    if name == "i8-arange":
        return np.arange(count, dtype=dtype)
    rng = np.random.default_rng(spec["seed"])
    if name == "f8-randwalk":
        return np.cumsum(rng.normal(0.0, 1.0, count)).astype(dtype, copy=False)
    if name == "f8-uniform":
        return rng.random(count).astype(dtype, copy=False)
    if name == "i4-uniform100":
        return rng.integers(0, 100, count, dtype=np.int32).astype(dtype, copy=False)
    raise ValueError(f"unknown dataset {name}")


def dataset_path(directory, name):
    return os.path.join(directory, f"{name}.bin")


def manifest_path(directory):
    return os.path.join(directory, "datasets.json")


def read_manifest(directory):
    try:
        with open(manifest_path(directory), "r", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def write_atomically(path, data):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def cmd_gen(req):
    directory = req["dir"]
    os.makedirs(directory, exist_ok=True)
    manifest = read_manifest(directory)
    out = {}
    for name in req["names"]:
        spec = DATASETS[name]
        path = dataset_path(directory, name)
        entry = manifest.get(name)
        fresh = (
            entry is not None
            and entry.get("generatorVersion") == GENERATOR_VERSION
            and entry.get("seed") == spec["seed"]
            and os.path.exists(path)
            and os.path.getsize(path) == DATASET_BYTES
        )
        if not fresh:
            t0 = time.perf_counter()
            array = make_dataset(name)
            raw = array.tobytes()
            assert len(raw) == DATASET_BYTES
            write_atomically(path, raw)
            entry = {
                "what": spec["what"],
                "dtype": spec["dtype"],
                "typesize": np.dtype(spec["dtype"]).itemsize,
                "seed": spec["seed"],
                "bytes": DATASET_BYTES,
                "sha256": hashlib.sha256(raw).hexdigest(),
                "numpy": np.__version__,
                "generatorVersion": GENERATOR_VERSION,
            }
            manifest[name] = entry
            write_atomically(manifest_path(directory), (json.dumps(manifest, indent=2) + "\n").encode())
            print(f"[native] generated {name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        out[name] = dict(entry, path=path, generated=not fresh)
    return {"ok": True, "datasets": out}


_loaded = {"name": None, "array": None}


def load_dataset(directory, name):
    if _loaded["name"] != name:
        _loaded["array"] = None  # let the previous one go before reading the next
        _loaded["array"] = np.fromfile(dataset_path(directory, name), dtype=np.uint8)
        _loaded["name"] = name
    return _loaded["array"]


def measure(fn, timing):
    """Best wall time of fn() under the shared stop rule (see README: "Timing")."""
    best = float("inf")
    total = 0.0
    reps = 0
    while True:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best = min(best, dt)
        total += dt
        reps += 1
        if (reps >= timing["minReps"] and total >= timing["minTime"]) or reps >= timing["maxReps"]:
            return {"best": best, "reps": reps}


def chunk_views(raw, chunk_bytes):
    view = memoryview(raw)
    return [view[i : i + chunk_bytes] for i in range(0, len(view), chunk_bytes)]


def cmd_native(req):
    """Compress one (dataset, codec, shuffle) once, then time it at each requested thread count.

    c-blosc's output does not depend on the thread count, so the chunks made with one thread are
    the decompression input for every row. With a single block per chunk c-blosc never starts its
    threads (blosc.c runs serially when a chunk has one block), so compressing again with more
    threads would only measure the same serial code: that cell is then skipped with the reason.
    """
    raw = load_dataset(req["dir"], req["dataset"])
    typesize = np.dtype(DATASETS[req["dataset"]]["dtype"]).itemsize
    chunk_bytes = req["chunkBytes"]
    timing = req["timing"]
    warm = req["warmupChunks"]
    blosc.set_blocksize(0)  # automatic, as c-blosc chooses it
    pieces = chunk_views(raw, chunk_bytes)
    made = {}

    def compress_all(subset=pieces):
        made["chunks"] = [
            blosc.compress(p, typesize=typesize, clevel=req["clevel"], shuffle=req["shuffle"], cname=req["cname"])
            for p in subset
        ]

    blosc.set_nthreads(1)
    compress_all(pieces[:warm])
    compress_one_thread = measure(compress_all, timing)
    chunks = made["chunks"]

    # Check once that c-blosc round-trips its own chunks, so a broken oracle cannot go unnoticed.
    for piece, chunk in zip(pieces, chunks):
        if blosc.decompress(chunk) != piece:
            return {"ok": False, "error": "c-blosc did not round-trip its own chunk"}

    blocksize = int.from_bytes(chunks[0][8:12], "little")
    # The same test as c-blosc's do_job(): it only starts its threads when this is >= 2.
    whole_blocks_per_chunk = chunk_bytes // blocksize
    out = np.empty(chunk_bytes, dtype=np.uint8)
    address = out.ctypes.data

    def decompress_ptr_all(subset=chunks):
        for chunk in subset:
            blosc.decompress_ptr(chunk, address)

    def decompress_all(subset=chunks):
        for chunk in subset:
            blosc.decompress(chunk)

    per_threads = {}
    for threads in req["threads"]:
        blosc.set_nthreads(threads)
        result = {}
        if threads == 1:
            result["compress"] = compress_one_thread
        elif whole_blocks_per_chunk >= 2:
            compress_all(pieces[:warm])
            result["compress"] = measure(compress_all, timing)
        else:
            result["compress"] = {"skipped": "1 block per chunk: c-blosc compresses serially"}
        decompress_ptr_all(chunks[:warm])
        result["decompressInto"] = measure(decompress_ptr_all, timing)
        decompress_all(chunks[:warm])
        result["decompress"] = measure(decompress_all, timing)
        result["nthreads"] = blosc.nthreads
        per_threads[str(threads)] = result

    write_atomically(req["chunksPath"], b"".join(chunks))
    return {
        "ok": True,
        "nbytes": len(raw),
        "cbytes": sum(len(c) for c in chunks),
        "nchunks": len(chunks),
        "blocksize": blocksize,
        "byThreads": per_threads,
        "blosc": blosc.blosclib_version,
    }


def iter_chunks(buffer):
    """Split a concatenation of Blosc chunks using each header's cbytes field."""
    offset = 0
    while offset < len(buffer):
        if len(buffer) - offset < 16:
            raise ValueError(f"trailing {len(buffer) - offset} bytes at offset {offset}")
        cbytes = int.from_bytes(buffer[offset + 12 : offset + 16], "little")
        if cbytes < 16 or offset + cbytes > len(buffer):
            raise ValueError(f"bad cbytes {cbytes} at offset {offset}")
        yield buffer[offset : offset + cbytes]
        offset += cbytes


def cmd_verify(req):
    raw = load_dataset(req["dir"], req["dataset"])
    pieces = chunk_views(raw, req["chunkBytes"])
    with open(req["chunksPath"], "rb") as f:
        data = f.read()
    try:
        chunks = list(iter_chunks(data))
    except ValueError as e:
        return {"ok": True, "valid": False, "reason": f"cannot split chunks: {e}"}
    if len(chunks) != len(pieces):
        return {"ok": True, "valid": False, "reason": f"{len(chunks)} chunks, expected {len(pieces)}"}
    blosc.set_nthreads(1)
    for index, (piece, chunk) in enumerate(zip(pieces, chunks)):
        try:
            decoded = blosc.decompress(chunk)
        except Exception as e:  # c-blosc rejects the chunk: report it rather than crash the run
            return {"ok": True, "valid": False, "reason": f"c-blosc rejects chunk {index}: {e}"}
        if decoded != piece:
            return {"ok": True, "valid": False, "reason": f"chunk {index} decodes to different bytes"}
    return {"ok": True, "valid": True, "cbytes": len(data), "blocksize": int.from_bytes(chunks[0][8:12], "little")}


def main():
    handlers = {"gen": cmd_gen, "native": cmd_native, "verify": cmd_verify}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        if req.get("cmd") == "quit":
            break
        try:
            reply = handlers[req["cmd"]](req)
        except Exception as e:  # keep serving; the JS side reports the error in the affected row
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
