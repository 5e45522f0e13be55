"""What the store benchmark's Python children share (store_native.py, store_bcolz.py).

They are long-lived children of store.mjs speaking one JSON request per line on stdin and one
JSON reply per line on stdout; each times its side of an operation with time.perf_counter()
around the work only, and writes the directories of its create runs where store.mjs can have
them all removed at the end. This module imports nothing but the standard library, so that
store_bcolz.py, whose bcolz bundles its own c-blosc, never loads python-blosc's.
"""

import json
import os
import resource
import shutil
import sys
import time

WARMUPS = 3


def median(values):
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed(fn, runs, before=None):
    """WARMUPS untimed warm-ups (page cache; store.mjs's side: JIT, transparent huge pages), then
    `runs` timed repetitions. `runs` may be a pair (runs, warmups): store.mjs interleaves single
    runs of every side and warms up only before the first. Returns the last result, the times in
    seconds and the minor page faults of each timed run."""
    runs, warmups = runs if isinstance(runs, tuple) else (runs, WARMUPS)
    result = None
    for _ in range(warmups):
        if before:
            before()
        result = fn()
    times = []
    faults = []
    for _ in range(runs):
        if before:
            before()
        f0 = minor_faults()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        faults.append(minor_faults() - f0)
    return result, times, faults


def empty_files(directory):
    """Truncates every file below `directory` to 0 bytes (see CreatedDirectories)."""
    for parent, _, files in os.walk(directory):
        for name in files:
            os.truncate(os.path.join(parent, name), 0)


class CreatedDirectories:
    """The directories the create runs wrote, removed once at the end of the bench (`remove_all`).

    A removal between runs frees ~160 inodes, and ext4 without a journal (the root file system of
    the VM this was measured on) avoids reusing inodes freed within the last minute (six while
    their inode table block is dirty) when it allocates new ones, scanning past each of them in
    every open(O_CREAT) of the next runs, whichever side runs them. The previous run's files are
    emptied instead (truncated to 0 bytes: their unwritten pages are dropped, as a removal drops
    them, so that the kernel does not spend the row writing gigabytes back to disk).
    tools/bench/README.md, "Issue 16, step by step (2026-11-28, late morning)".
    """

    def __init__(self, prefix):
        self.prefix = prefix
        self.paths = []

    def fresh(self, root):
        """A new directory path under `root` for the next run; the previous run's files emptied."""
        if self.paths:
            empty_files(self.paths[-1])
        path = os.path.join(root, "%s-created-%d.bcolz" % (self.prefix, len(self.paths)))
        shutil.rmtree(path, ignore_errors=True)
        self.paths.append(path)
        return path

    def remove_all(self, req=None):
        """The `remove_created` request."""
        for path in self.paths:
            shutil.rmtree(path, ignore_errors=True)
        removed = len(self.paths)
        self.paths.clear()
        return {"ok": True, "removed": removed}


def serve(handlers):
    """Answers requests until stdin ends or a `quit` arrives; a failing handler's exception becomes
    an `{ok: false, error}` reply, which store.mjs prints as FAIL."""
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("cmd") == "quit":
            break
        try:
            reply = handlers[req["cmd"]](req)
        except Exception as error:
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
