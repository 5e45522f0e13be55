#!/usr/bin/python3
"""Native floor of the store benchmark: Debian's python3 + numpy + python3-blosc (c-blosc).

Run by store.mjs as a long-lived child (one JSON request per line on stdin, one JSON reply per
line on stdout, like native.py). It writes the benchmark's bcolz directories and does, with the
fastest native pieces at hand, the same work as each store operation, on the same files:

  create   compress every chunk of the array with c-blosc and write the chunk files and the
           metadata of a bcolz carray directory (what bcolz does when it creates one)
  readall  parse meta/, read every chunk file and decompress it into one preallocated array
  sum      read + decompress chunk by chunk into one reused buffer, numpy sum of each
  column   readall of one column directory of the ctable
  get      per index: read its chunk file, decompress the chunk, pick the element
           (python-blosc has no blosc_getitem, so this floor decodes whole chunks)
  take     decompress each chunk the indices touch once, numpy fancy indexing
  where    read + decompress the column chunk by chunk, numpy count of (chunk > q)

Every operation returns its result, so store.mjs can check both sides agree before it shows a
time. c-blosc runs with one thread, like bcolz in the issue's measurements. Timings come from
time.perf_counter() around the work only.
"""

import json
import os
import shutil
import sys
import time

import blosc
import numpy as np

BLPK_HEADER = b"blpk\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
CPARAMS = {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}

# Bump when the generated data or layout changes, so stale directories are rebuilt.
GENERATOR_VERSION = 1


def chunklen_for(expectedlen, itemsize):
    """bcolz's default chunklen (format-facts 4.9), so the ctable columns get bcolz's defaults."""
    import math

    expected_mib = min(max(expectedlen * itemsize / 2**20, 1e-4), 1e4)
    zone = int(math.log10(expected_mib))
    chunksize = 4096 * 2 ** (6 + zone)
    return max(chunksize // itemsize, 1)


def storage_dtype_name(dtype):
    return str(np.dtype(dtype))


def chunk_path(directory, k):
    return os.path.join(directory, "data", f"__{k}.blp")


def write_carray(directory, array, chunklen):
    """A bcolz 1.2.1 carray directory with default cparams, chunks compressed by c-blosc."""
    os.makedirs(os.path.join(directory, "data"))
    os.makedirs(os.path.join(directory, "meta"))
    itemsize = array.dtype.itemsize
    storage = {
        "dtype": storage_dtype_name(array.dtype),
        "cparams": CPARAMS,
        "chunklen": chunklen,
        "expectedlen": len(array),
        "dflt": 0.0 if array.dtype.kind == "f" else 0,
    }
    with open(os.path.join(directory, "meta", "storage"), "w") as f:
        f.write(json.dumps(storage) + "\n")
    base = array.__array_interface__["data"][0]
    cbytes = 0
    nfull = len(array) // chunklen
    nfiles = nfull + (1 if len(array) % chunklen else 0)
    for k in range(nfiles):
        rows = min(chunklen, len(array) - k * chunklen)
        chunk = blosc.compress_ptr(base + k * chunklen * itemsize, rows, itemsize, 5, blosc.SHUFFLE, "lz4")
        if k < nfull:
            cbytes += len(chunk)
        with open(chunk_path(directory, k), "wb") as f:
            f.write(BLPK_HEADER)
            f.write(chunk)
    sizes = {"shape": [len(array)], "nbytes": len(array) * itemsize, "cbytes": cbytes + chunklen * itemsize}
    with open(os.path.join(directory, "meta", "sizes"), "w") as f:
        f.write(json.dumps(sizes) + "\n")
    with open(os.path.join(directory, "__attrs__"), "w") as f:
        f.write("{}\n")


def open_carray(directory):
    """What opening costs natively: the two metadata files."""
    with open(os.path.join(directory, "meta", "sizes"), "rb") as f:
        sizes = json.loads(f.read())
    with open(os.path.join(directory, "meta", "storage"), "rb") as f:
        storage = json.loads(f.read())
    length = sizes["shape"][0]
    chunklen = storage["chunklen"]
    return np.dtype(storage["dtype"]), length, chunklen


def read_chunk(directory, k):
    with open(chunk_path(directory, k), "rb") as f:
        data = f.read()
    return memoryview(data)[16:]


def read_all(directory):
    dtype, length, chunklen = open_carray(directory)
    out = np.empty(length, dtype=dtype)
    base = out.__array_interface__["data"][0]
    step = chunklen * dtype.itemsize
    nfiles = (length + chunklen - 1) // chunklen
    for k in range(nfiles):
        blosc.decompress_ptr(read_chunk(directory, k), base + k * step)
    return out


def chunk_iter(directory):
    """Yields each chunk decoded into one reused buffer (a view of its rows)."""
    dtype, length, chunklen = open_carray(directory)
    buffer = np.empty(chunklen, dtype=dtype)
    base = buffer.__array_interface__["data"][0]
    nfiles = (length + chunklen - 1) // chunklen
    for k in range(nfiles):
        blosc.decompress_ptr(read_chunk(directory, k), base)
        yield buffer[: min(chunklen, length - k * chunklen)]


def op_sum(directory):
    total = 0.0
    for chunk in chunk_iter(directory):
        total += float(chunk.sum())
    return total


def op_get(directory, indices):
    dtype, length, chunklen = open_carray(directory)
    buffer = np.empty(chunklen, dtype=dtype)
    base = buffer.__array_interface__["data"][0]
    out = []
    for i in indices:
        k, r = divmod(i, chunklen)
        blosc.decompress_ptr(read_chunk(directory, k), base)
        out.append(buffer[r].item())
    return out


def op_take(directory, indices):
    dtype, length, chunklen = open_carray(directory)
    idx = np.asarray(indices, dtype=np.int64)
    out = np.empty(len(idx), dtype=dtype)
    chunk_of = idx // chunklen
    order = np.argsort(chunk_of, kind="stable")
    bounds = np.flatnonzero(np.diff(chunk_of[order])) + 1
    buffer = np.empty(chunklen, dtype=dtype)
    base = buffer.__array_interface__["data"][0]
    for group in np.split(order, bounds):
        if len(group) == 0:
            continue
        k = int(chunk_of[group[0]])
        blosc.decompress_ptr(read_chunk(directory, k), base)
        out[group] = buffer[idx[group] - k * chunklen]
    return out


def op_where_count(directory, q):
    count = 0
    for chunk in chunk_iter(directory):
        count += int(np.count_nonzero(chunk > q))
    return count


def median(values):
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def timed(fn, runs, before=None):
    """One untimed warm-up (fills the page cache), then `runs` timed repetitions."""
    if before:
        before()
    result = fn()
    times = []
    for _ in range(runs):
        if before:
            before()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return result, times


# ------------------------------------------------------------------------------------------------
# requests


def manifest_path(root):
    return os.path.join(root, "manifest.json")


def cmd_gen(req):
    """Writes the raw source arrays and the two bcolz directories unless they are already there."""
    root = req["dir"]
    params = {"version": GENERATOR_VERSION, "carray_rows": req["carray_rows"], "ctable_rows": req["ctable_rows"], "seed": req["seed"]}
    try:
        with open(manifest_path(root)) as f:
            manifest = json.load(f)
        if manifest.get("params") == params:
            return {"ok": True, "reused": True, **manifest["facts"]}
    except (OSError, ValueError):
        pass
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    rng = np.random.default_rng(req["seed"])
    walk = np.cumsum(rng.normal(0.0, 1.0, req["carray_rows"])).astype("<f8")
    walk.tofile(os.path.join(root, "carray-source.f8"))
    write_carray(os.path.join(root, "carray.bcolz"), walk, 65536)

    n = req["ctable_rows"]
    columns = {
        "i64": np.arange(n, dtype="<i8"),
        "f64": np.cumsum(rng.normal(0.0, 1.0, n)).astype("<f8"),
        "i32": rng.integers(-1000, 1000, n, dtype=np.int32),
    }
    table = os.path.join(root, "ctable.bcolz")
    os.makedirs(table)
    for name, values in columns.items():
        write_carray(os.path.join(table, name), values, chunklen_for(n, values.dtype.itemsize))
        values.tofile(os.path.join(root, f"ctable-{name}.bin"))
    with open(os.path.join(table, "__rootdirs__"), "w") as f:
        f.write(json.dumps({"names": list(columns)}) + "\n")
    with open(os.path.join(table, "__attrs__"), "w") as f:
        f.write("{}\n")
    q90 = float(np.quantile(columns["f64"], 0.9))
    facts = {
        "q90": repr(q90),
        "chunklens": {name: chunklen_for(n, v.dtype.itemsize) for name, v in columns.items()},
        "numpy": np.__version__,
        "blosc": blosc.VERSION_STRING,
        "python_blosc": blosc.__version__,
    }
    with open(manifest_path(root), "w") as f:
        json.dump({"params": params, "facts": facts}, f)
    return {"ok": True, "reused": False, **facts}


def cmd_run(req):
    """Times one operation; returns the median, all times and the result to check against."""
    op, runs = req["op"], req["runs"]
    root = req["dir"]
    carray = os.path.join(root, "carray.bcolz")
    column = os.path.join(root, "ctable.bcolz", "f64")
    if op == "create":
        source = np.fromfile(os.path.join(root, "carray-source.f8"), dtype="<f8")
        out = os.path.join(root, "native-created.bcolz")
        _, times = timed(lambda: write_carray(out, source, 65536), runs, before=lambda: shutil.rmtree(out, ignore_errors=True))
        # Correct if it reads back as the source.
        check = bool(np.array_equal(read_all(out), source))
        shutil.rmtree(out, ignore_errors=True)
        result = {"roundTrips": check}
    elif op == "readall":
        values, times = timed(lambda: read_all(carray), runs)
        result = {"sum": float(values.sum()), "first": float(values[0]), "last": float(values[-1])}
    elif op == "sum":
        total, times = timed(lambda: op_sum(carray), runs)
        result = {"sum": total}
    elif op == "column":
        values, times = timed(lambda: read_all(column), runs)
        result = {"sum": float(values.sum()), "first": float(values[0]), "last": float(values[-1])}
    elif op == "get":
        values, times = timed(lambda: op_get(carray, req["indices"]), runs)
        result = {"values": values}
    elif op == "take":
        values, times = timed(lambda: op_take(carray, req["indices"]), runs)
        result = {"values": values.tolist()}
    elif op == "where":
        q = float(req["q"])
        count, times = timed(lambda: op_where_count(column, q), runs)
        result = {"count": count}
    else:
        return {"ok": False, "error": f"unknown op {op}"}
    return {"ok": True, "median": median(times), "times": times, "result": result}


def cmd_check_dir(req):
    """Reads a carray directory written by someone else and compares it with the source array."""
    source = np.fromfile(os.path.join(req["dir"], "carray-source.f8"), dtype="<f8")
    try:
        values = read_all(req["path"])
    except Exception as error:  # any failure to read is the answer
        return {"ok": True, "equal": False, "reason": f"{type(error).__name__}: {error}"}
    equal = bool(values.dtype == source.dtype and np.array_equal(values, source))
    return {"ok": True, "equal": equal, "reason": "" if equal else "values differ from the source"}


def main():
    blosc.set_nthreads(1)
    handlers = {"gen": cmd_gen, "run": cmd_run, "check_dir": cmd_check_dir}
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("cmd") == "quit":
            break
        try:
            reply = handlers[req["cmd"]](req)
        except Exception as error:  # reported to the caller, which prints FAIL
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
