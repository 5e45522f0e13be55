#!/usr/bin/python3
"""Real bcolz 1.2.1 beside the store benchmark: the comparison issue 16 names besides the floor.

Run by store.mjs as a long-lived child (one JSON request per line on stdin, one JSON reply per
line on stdout, as store_native.py), only when a bcolz 1.2.1 can be imported: a source tree built
in place by `tools/bench/build-bcolz.sh` (BENCH_BCOLZ names it; by default
tools/bench/.data/bcolz-1.2.1), or an installed bcolz. bcolz runs with one thread (Blosc and
numexpr), as in the issue. Each operation is what a bcolz user writes for it, on the benchmark's
format-1 files:

  create   bcolz.carray(source, rootdir=..., chunklen=65536, cparams lz4/5/shuffle) + flush()
  readall  bcolz.open(carray, mode="r")[:]
  sum      carray.sum() on an open carray
  column   ctable["f64"][:] on an open ctable
  get      carray[i] for each index, on an open carray (issue 16 judges our take against these too)
  where    the count of rows matching the expression: ctable.eval(expression).sum(), bcolz's count
           with its defaults (its where() iterator cannot run with numpy 1.24, see below)

bcolz 1.2.1 predates numpy 1.24, which removed the aliases `np.float`, `np.int`, `np.bool`, …; they
are put back (as the builtins they stood for) before bcolz is imported. Its where() cannot run
with numpy 1.24 at all: an empty array's stride is 0 there, and carray.view(), which where()
reaches through wheretrue(), then fails.

glibc's malloc thresholds are fixed at startup to the values its own dynamic rule reaches once a
32 MiB block has been freed (mmap above 32 MiB, trim above 64 MiB). Left dynamic, bcolz's where
count took ~16 ms in one process and ~50 ms in another (its 8 MiB temporaries mapped afresh,
~1,900 page faults per count on this virtual machine), depending on what the process had freed
before; fixed, every process is in the faster state, the stricter bar for us. Each reply carries
the minor page faults of every timed run.

Every operation returns its result, which store.mjs checks like the floor's before it shows a time.
"""

import ctypes
import os
import sys

import numpy as np

# bench_child.py sits beside this file (also when sys.path leaves the script's directory out).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_child import WARMUPS, CreatedDirectories, median, serve, timed  # noqa: E402

for _name, _value in (("float", float), ("int", int), ("bool", bool), ("object", object), ("str", str), ("long", int), ("unicode", str), ("complex", complex)):
    if _name not in np.__dict__:
        setattr(np, _name, _value)

_source = os.environ.get("BENCH_BCOLZ")
if _source:
    sys.path.insert(0, _source)
try:
    import bcolz

    BCOLZ_ERROR = None if bcolz.__version__ == "1.2.1" else f"bcolz {bcolz.__version__} found, 1.2.1 wanted"
except Exception as error:  # pragma: no cover - depends on the machine
    bcolz = None
    BCOLZ_ERROR = f"bcolz 1.2.1 not importable from {_source or 'the installed packages'} ({type(error).__name__}: {error}); build it with tools/bench/build-bcolz.sh"

CREATED = CreatedDirectories("bcolz")
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3


def fix_malloc_thresholds():
    """mallopt as the module docstring says; False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)) and bool(libc.mallopt(M_TRIM_THRESHOLD, 64 << 20))


MALLOC_FIXED = fix_malloc_thresholds()


def cmd_run(req):
    if bcolz is None or BCOLZ_ERROR is not None:
        return {"ok": True, "na": BCOLZ_ERROR}
    op, runs = req["op"], (req["runs"], req.get("warmups", WARMUPS))
    root = req["dir"]
    carray_dir = os.path.join(root, "carray.bcolz")
    table_dir = os.path.join(root, "ctable.bcolz")
    if op == "create":
        source = np.fromfile(os.path.join(root, "carray-source.f8"), dtype="<f8")
        cparams = bcolz.cparams(clevel=5, shuffle=bcolz.SHUFFLE, cname="lz4")
        target = {}

        def fresh_directory():
            # Every run writes into a directory of its own (see bench_child.CreatedDirectories).
            target["out"] = CREATED.fresh(root)

        def create():
            a = bcolz.carray(source, rootdir=target["out"], mode="w", chunklen=65536, cparams=cparams)
            a.flush()

        _, times, faults = timed(create, runs, before=fresh_directory)
        back = bcolz.open(target["out"], mode="r")[:]
        result = {"roundTrips": bool(np.array_equal(back, source))}
    elif op == "readall":
        values, times, faults = timed(lambda: bcolz.open(carray_dir, mode="r")[:], runs)
        result = {"length": int(len(values)), "sum": float(values.sum()), "first": float(values[0]), "last": float(values[-1])}
    elif op == "sum":
        a = bcolz.open(carray_dir, mode="r")
        total, times, faults = timed(lambda: float(a.sum()), runs)
        result = {"sum": total}
    elif op == "column":
        t = bcolz.open(table_dir, mode="r")
        values, times, faults = timed(lambda: t["f64"][:], runs)
        result = {"length": int(len(values)), "sum": float(values.sum()), "first": float(values[0]), "last": float(values[-1])}
    elif op == "get":
        a = bcolz.open(carray_dir, mode="r")
        indices = req["indices"]
        values, times, faults = timed(lambda: [float(a[i]) for i in indices], runs)
        result = {"values": values}
    elif op == "where":
        if not bcolz.numexpr_here:
            return {"ok": True, "na": "bcolz found no numexpr: its eval would run in Python"}
        t = bcolz.open(table_dir, mode="r")
        count, times, faults = timed(lambda: int(t.eval(req["expression"]).sum()), runs)
        result = {"count": count}
    else:
        return {"ok": False, "error": f"unknown op {op}"}
    return {"ok": True, "median": median(times), "times": times, "faults": faults, "result": result}


def cmd_versions(req):
    if bcolz is None:
        return {"ok": True, "na": BCOLZ_ERROR}
    out = {"ok": True, "bcolz": bcolz.__version__, "blosc": bcolz.blosc_version()[0], "numpy": np.__version__, "mallocFixed": MALLOC_FIXED, "na": BCOLZ_ERROR}
    if bcolz.numexpr_here:
        import numexpr

        out["numexpr"] = numexpr.__version__
        out["numexprThreads"] = numexpr.get_num_threads() if hasattr(numexpr, "get_num_threads") else None
    return out


def main():
    if bcolz is not None:
        bcolz.set_nthreads(1)  # Blosc and numexpr, one thread each
    serve({"run": cmd_run, "versions": cmd_versions, "remove_created": CREATED.remove_all})


if __name__ == "__main__":
    main()
