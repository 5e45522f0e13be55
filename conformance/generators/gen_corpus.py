#!/usr/bin/python3
"""Bytes of the generated corpus sets from case descriptions (see gen-corpus.mjs, which runs this).

    python3 conformance/generators/gen_corpus.py DESCRIPTIONS.json OUT_ROOT

DESCRIPTIONS.json: {"sets": [{"format": 1|2, "set": "gen-valid", "seed": …, "notes": […],
"provenance": "…", "cases": [case description, …]}, …]}. Each set is written to
OUT_ROOT/v<format>/<set>/ (which must not exist). Written from spec/ alone; it neither reads nor
imports any implementation of this repository. Needs numpy and python3-blosc: if the interpreter
lacks blosc the script re-executes itself with /usr/bin/python3.
"""
import json
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

from genlib.build import build_set  # noqa: E402


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_corpus.py DESCRIPTIONS.json OUT_ROOT\n")
        return 2
    with open(argv[0], encoding="utf-8") as fh:
        desc = json.load(fh)
    for s in desc["sets"]:
        build_set(s, os.path.join(argv[1], "v%d" % s["format"], s["set"]))
        print("v%d/%s: %d cases" % (s["format"], s["set"], len(s["cases"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
