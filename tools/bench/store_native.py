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
  where    the numexpr floor: read + decompress the columns the expression names block by block
           (a block = the smallest chunklen among them), numexpr.evaluate of the same expression
           text on each block, then count_nonzero (count) or flatnonzero + the block's first row
           (the matching row numbers)

It also writes a zarr v2 copy of the carray's values with python3-zarr (the JavaScript peer reads
it) and, for the scale table, carrays of 1 M, 10 M and 100 M rows generated block by block.

Every operation returns its result, so store.mjs can check both sides agree before it shows a
time. c-blosc runs with one thread, like bcolz in the issue's measurements. Timings come from
time.perf_counter() around the work only.
"""

import json
import os
import shutil
import sys

import hashlib

import blosc
import numpy as np

# bench_child.py sits beside this file (also when sys.path leaves the script's directory out).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_child import WARMUPS, CreatedDirectories, median, serve, timed  # noqa: E402

try:  # optional: the where rows read n/a without it
    import numexpr
except ImportError as error:  # pragma: no cover - depends on the machine
    numexpr = None
    NUMEXPR_ERROR = f"python3-numexpr missing ({error})"

BLPK_HEADER = b"blpk\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
CPARAMS = {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}

# Bump when the generated data or layout changes, so stale directories are rebuilt.
GENERATOR_VERSION = 1
ZARR_VERSION = 1
SCALE_VERSION = 1


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
    write_carray_blocks(directory, [array], len(array), array.dtype, chunklen)


def write_carray_blocks(directory, blocks, length, dtype, chunklen):
    """As write_carray, from consecutive blocks of rows (each a multiple of chunklen but the last)."""
    dtype = np.dtype(dtype)
    os.makedirs(os.path.join(directory, "data"))
    os.makedirs(os.path.join(directory, "meta"))
    itemsize = dtype.itemsize
    storage = {
        "dtype": storage_dtype_name(dtype),
        "cparams": CPARAMS,
        "chunklen": chunklen,
        "expectedlen": length,
        "dflt": 0.0 if dtype.kind == "f" else 0,
    }
    with open(os.path.join(directory, "meta", "storage"), "w") as f:
        f.write(json.dumps(storage) + "\n")
    cbytes = 0
    nfull = length // chunklen
    k = 0
    for block in blocks:
        block = np.ascontiguousarray(block, dtype=dtype)
        base = block.__array_interface__["data"][0]
        for first in range(0, len(block), chunklen):
            rows = min(chunklen, len(block) - first)
            chunk = blosc.compress_ptr(base + first * itemsize, rows, itemsize, 5, blosc.SHUFFLE, "lz4")
            if k < nfull:
                cbytes += len(chunk)
            with open(chunk_path(directory, k), "wb") as f:
                f.write(BLPK_HEADER)
                f.write(chunk)
            k += 1
    sizes = {"shape": [length], "nbytes": length * itemsize, "cbytes": cbytes + chunklen * itemsize}
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


def column_cursor(directory):
    """(length, chunklen, rows(start, stop)): rows of one column, each chunk decoded once into a reused buffer."""
    dtype, length, chunklen = open_carray(directory)
    buffer = np.empty(chunklen, dtype=dtype)
    base = buffer.__array_interface__["data"][0]
    held = [-1]

    def rows(start, stop):
        k = start // chunklen
        if k != held[0]:
            blosc.decompress_ptr(read_chunk(directory, k), base)
            held[0] = k
        first = start - k * chunklen
        return buffer[first : first + (stop - start)]

    return length, chunklen, rows


def op_where(table, expression, names, as_):
    """numexpr.evaluate(expression) block by block; the count or the matching row numbers."""
    cursors = {name: column_cursor(os.path.join(table, name)) for name in names}
    length = min(c[0] for c in cursors.values())
    blen = min(c[1] for c in cursors.values())
    if any(c[1] % blen for c in cursors.values()):
        raise ValueError("the columns' chunklens are not multiples of the smallest")
    count = 0
    parts = []
    for start in range(0, length, blen):
        stop = min(start + blen, length)
        local = {name: c[2](start, stop) for name, c in cursors.items()}
        mask = numexpr.evaluate(expression, local_dict=local)
        if as_ == "count":
            count += int(np.count_nonzero(mask))
        else:
            parts.append(np.flatnonzero(mask) + start)
    if as_ == "count":
        return count
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def rows_digest(rows):
    """What store.mjs compares matching row numbers by: count, sum and SHA-256 of the int64 LE bytes."""
    rows = np.ascontiguousarray(rows, dtype="<i8")
    return {"count": int(len(rows)), "sum": int(rows.sum()), "sha256": hashlib.sha256(rows.tobytes()).hexdigest()}


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
    # Everything but the scale datasets (they are costly and have their own manifests).
    os.makedirs(root, exist_ok=True)
    for name in os.listdir(root):
        if name != "scale":
            path = os.path.join(root, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.unlink(path)
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


CREATED = CreatedDirectories("native")


def cmd_run(req):
    """Times one operation; returns the median, all times and the result to check against."""
    op, runs = req["op"], (req["runs"], req.get("warmups", WARMUPS))
    root = req["dir"]
    carray = os.path.join(root, "carray.bcolz")
    column = os.path.join(root, "ctable.bcolz", "f64")
    if op == "create":
        source = np.fromfile(os.path.join(root, "carray-source.f8"), dtype="<f8")
        target = {}

        def fresh_directory():
            # Every run writes into a directory of its own (see bench_child.CreatedDirectories).
            target["out"] = CREATED.fresh(root)

        _, times, faults = timed(lambda: write_carray(target["out"], source, 65536), runs, before=fresh_directory)
        # Correct if it reads back as the source.
        check = bool(np.array_equal(read_all(target["out"]), source))
        result = {"roundTrips": check}
    elif op == "readall":
        values, times, faults = timed(lambda: read_all(carray), runs)
        result = {"length": int(len(values)), "sum": float(values.sum()), "first": float(values[0]), "last": float(values[-1])}
    elif op == "sum":
        total, times, faults = timed(lambda: op_sum(carray), runs)
        result = {"sum": total}
    elif op == "column":
        values, times, faults = timed(lambda: read_all(column), runs)
        result = {"length": int(len(values)), "sum": float(values.sum()), "first": float(values[0]), "last": float(values[-1])}
    elif op == "get":
        values, times, faults = timed(lambda: op_get(carray, req["indices"]), runs)
        result = {"values": values}
    elif op == "take":
        values, times, faults = timed(lambda: op_take(carray, req["indices"]), runs)
        result = {"values": values.tolist()}
    elif op in ("where", "whererows", "where2", "where2rows"):
        if numexpr is None:
            return {"ok": True, "na": NUMEXPR_ERROR}
        table = os.path.join(root, "ctable.bcolz")
        as_ = "count" if op in ("where", "where2") else "rows"
        value, times, faults = timed(lambda: op_where(table, req["expression"], req["columns"], as_), runs)
        result = {"count": value} if as_ == "count" else rows_digest(value)
    else:
        return {"ok": False, "error": f"unknown op {op}"}
    return {"ok": True, "median": median(times), "times": times, "faults": faults, "result": result}


def cmd_check_dir(req):
    """Reads a carray directory written by someone else and compares it with the source array."""
    source = np.fromfile(os.path.join(req["dir"], "carray-source.f8"), dtype="<f8")
    try:
        values = read_all(req["path"])
    except Exception as error:  # any failure to read is the answer
        return {"ok": True, "equal": False, "reason": f"{type(error).__name__}: {error}"}
    equal = bool(values.dtype == source.dtype and np.array_equal(values, source))
    return {"ok": True, "equal": equal, "reason": "" if equal else "values differ from the source"}


def cmd_versions(req):
    """The native side's versions (live, not from a manifest)."""
    out = {"ok": True, "numpy": np.__version__, "blosc": blosc.VERSION_STRING, "python_blosc": blosc.__version__}
    out["numexpr"] = numexpr.__version__ if numexpr is not None else None
    try:
        import zarr

        out["zarr"] = zarr.__version__
    except ImportError:
        out["zarr"] = None
    return out


def cmd_zarr(req):
    """A zarr v2 copy of the carray's values (python3-zarr: Blosc lz4, clevel 5, shuffle, chunks of 65,536)."""
    try:
        import numcodecs
        import zarr
    except ImportError as error:
        return {"ok": True, "na": f"python3-zarr missing ({error})"}
    root = req["dir"]
    path = os.path.join(root, "carray.zarr")
    stamp = os.path.join(root, "carray.zarr.json")
    params = {"version": ZARR_VERSION, "zarr": zarr.__version__, "numcodecs": numcodecs.__version__}
    try:
        with open(stamp) as f:
            if json.load(f) == params and os.path.exists(os.path.join(path, ".zarray")):
                return {"ok": True, "reused": True, **params}
    except (OSError, ValueError):
        pass
    shutil.rmtree(path, ignore_errors=True)
    source = np.fromfile(os.path.join(root, "carray-source.f8"), dtype="<f8")
    compressor = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
    z = zarr.open_array(path, mode="w", shape=source.shape, chunks=(65536,), dtype="<f8", compressor=compressor)
    z[:] = source
    if not np.array_equal(zarr.open_array(path, mode="r")[:], source):
        return {"ok": False, "error": "the zarr copy does not read back as the source"}
    with open(stamp, "w") as f:
        json.dump(params, f)
    return {"ok": True, "reused": False, **params}


SCALE_BLOCK = 64 * 65536


def cmd_gen_scale(req):
    """A random-walk f8 carray of `rows` rows (chunklen 65536) in dir/carray-<rows>.bcolz, written
    block by block (a 100 M-row walk never sits in memory whole), with its reference facts: the sum
    chunk by chunk in numpy's order (what op_sum returns), the sum of |x| and sampled values."""
    root, rows, seed = req["dir"], req["rows"], req["seed"]
    path = os.path.join(root, f"carray-{rows}.bcolz")
    manifest = os.path.join(root, f"carray-{rows}.json")
    params = {"version": SCALE_VERSION, "rows": rows, "seed": seed, "block": SCALE_BLOCK}
    try:
        with open(manifest) as f:
            saved = json.load(f)
        if saved.get("params") == params and os.path.isdir(path):
            return {"ok": True, "reused": True, "path": path, **saved["facts"]}
    except (OSError, ValueError):
        pass
    os.makedirs(root, exist_ok=True)
    shutil.rmtree(path, ignore_errors=True)
    sample_at = sorted({int(i) for i in np.linspace(0, rows - 1, 17)})
    samples = {}
    sums = {"sum": 0.0, "abs": 0.0}

    def blocks():
        rng = np.random.default_rng(seed)
        offset = 0.0
        for first in range(0, rows, SCALE_BLOCK):
            n = min(SCALE_BLOCK, rows - first)
            block = np.cumsum(rng.normal(0.0, 1.0, n)) + offset
            offset = float(block[-1])
            for c in range(0, n, 65536):
                sums["sum"] += float(block[c : c + 65536].sum())
            sums["abs"] += float(np.abs(block).sum())
            for i in sample_at:
                if first <= i < first + n:
                    samples[str(i)] = float(block[i - first])
            yield block

    write_carray_blocks(path, blocks(), rows, "<f8", 65536)
    facts = {"sum": sums["sum"], "abs_sum": sums["abs"], "samples": samples}
    with open(manifest, "w") as f:
        json.dump({"params": params, "facts": facts}, f)
    return {"ok": True, "reused": False, "path": path, **facts}


def main():
    blosc.set_nthreads(1)
    if numexpr is not None:
        numexpr.set_num_threads(1)  # one thread, like c-blosc here
    serve({"gen": cmd_gen, "run": cmd_run, "check_dir": cmd_check_dir, "versions": cmd_versions, "zarr": cmd_zarr, "gen_scale": cmd_gen_scale, "remove_created": CREATED.remove_all})


if __name__ == "__main__":
    main()
