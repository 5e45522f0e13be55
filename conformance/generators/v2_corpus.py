#!/usr/bin/python3
"""Generator of the format-version-2 conformance corpus (conformance/corpus/v2/).

Written from the specification text alone (spec/v2.md, spec/v1.md, spec/errors.md,
spec/conformance.md, spec/schemas/v2/); it neither reads nor imports any implementation of this
repository. Run from anywhere:

    python3 conformance/generators/v2_corpus.py            # (re)write the corpus
    python3 conformance/generators/v2_corpus.py --check    # verify it with v2lib/check.py

It deletes and rewrites conformance/corpus/v2/synth-valid and conformance/corpus/v2/synth-broken.
Every choice comes from random.Random(SEED + crc32(case name)); Blosc chunks are compressed by
c-blosc (python3-blosc, one thread, BLOSC_* variables removed), which is deterministic for one
c-blosc version (1.21.3 here), so reruns reproduce the same bytes. Expected value files are
computed from the values chosen here, never read back from the datasets. Before writing anything
the generator checks that its superchunk builder reproduces the hex examples of spec/v2.md §8.
Needs numpy and python3-blosc: if the interpreter lacks blosc the script re-executes itself with
/usr/bin/python3.
"""
import os
import sys

for _k in list(os.environ):
    if _k.startswith("BLOSC_"):
        del os.environ[_k]
try:
    import blosc  # noqa: F401
except ImportError:  # pragma: no cover
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from v2lib.cases import main  # noqa: E402

if __name__ == "__main__":
    if "--check" in sys.argv[1:]:
        from v2lib.check import check_set
        from v2lib.cases import OUT
        failed = 0
        for name in ("synth-valid", "synth-broken"):
            n, bad = check_set(os.path.join(OUT, name))
            print("%s: %d cases, %d problems" % (name, n, len(bad)))
            for b in bad:
                print("  " + b)
            failed += len(bad)
        sys.exit(1 if failed else 0)
    main()
