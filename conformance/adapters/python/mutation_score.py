"""Mutation score of the conformance corpus (issue 17).

Runs the unmodified Python reader and every variant of mutants.py over every read case of the
corpus, in this one process, and judges each answer as the runner does
(conformance/runner/src/run.ts `judgeCase`): an error case passes when the reader raises the
expected code; a valid case passes when kind, format (when the manifest gives one), dtype, shape,
attrs, chunklen, cparams and the sha256 of every value file match. A variant is *caught* when it
fails at least one case the unmodified reader passes.

    /usr/bin/python3 -B -E -s conformance/adapters/python/mutation_score.py [--corpus DIR]
        [--threshold 90] [--variant NAME]... [--json FILE] [--quiet]

Exit status: 0 when the score is at least the threshold (percent), 1 when it is below, 2 on a
usage error or a variant whose patch no longer applies to the reader's source.
New corpus sets are picked up from the manifests: every `v<N>/<set>/manifest.json`.
"""

import argparse
import hashlib
import json
import math
import os
import resource
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from pyreader.errors import FormatError  # noqa: E402
from pyreader import reader  # noqa: E402  (called through the module: variants swap it)
import mutants  # noqa: E402

REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
CASE_SECONDS = 20


# -- the corpus, as conformance/runner/src/manifest.ts normalises it --

def _pick_cparams(value):
    if not isinstance(value, dict):
        return None
    shuffle = value.get("shuffle")
    if isinstance(shuffle, bool):
        shuffle = int(shuffle)
    return {"clevel": value.get("clevel"), "shuffle": shuffle, "cname": value.get("cname", "blosclz")}


def load_corpus(root):
    cases = []
    versions = sorted((int(d[1:]), d) for d in os.listdir(root) if d[:1] == "v" and d[1:].isdigit())
    for _v, vdir in versions:
        base = os.path.join(root, vdir)
        for set_name in sorted(os.listdir(base)):
            mpath = os.path.join(base, set_name, "manifest.json")
            if not os.path.isfile(mpath):
                continue
            with open(mpath, encoding="utf-8") as fh:
                manifest = json.load(fh)
            for raw in manifest["cases"]:
                cases.append(_normalise(vdir, set_name, os.path.join(base, set_name), raw))
    return cases


def _normalise(vdir, set_name, set_dir, raw):
    c = {"id": "%s/%s/%s" % (vdir, set_name, raw["name"]), "dir": os.path.join(set_dir, raw["name"],
                                                                           raw.get("rootdir", "data.bcolz"))}
    expect = raw.get("expect")
    if isinstance(expect, dict) and isinstance(expect.get("error"), str):
        c["error"] = expect["error"]
        return c
    kind = raw.get("kind")
    c.update(kind=kind, dtype=raw.get("dtype"), shape=raw.get("shape"),
             chunklen=raw.get("chunklen"), cparams=_pick_cparams(raw.get("cparams")),
             attrs=raw.get("attrs", {}))
    if isinstance(raw.get("format"), int) and not isinstance(raw.get("format"), bool):
        c["format"] = raw["format"]
    if kind != "ctable":
        c["values"] = (raw.get("expected") or {}).get("values.bin")
    else:
        c["shape"] = [raw["len"]]
        c["columns"] = [{"name": col["name"], "dtype": col["dtype"], "shape": col["shape"],
                         "chunklen": col["chunklen"], "cparams": _pick_cparams(col["cparams"]),
                         "sha256": col["sha256"], "bytes": col["bytes"]} for col in raw["columns"]]
    return c


# -- judging, as conformance/runner/src/run.ts does --

MISSING = object()


def same_json(a, b):
    """run.ts sameJson: structural equality, numbers by value, NaN equals NaN, bool is not a number."""
    if a is MISSING or b is MISSING:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        fa, fb = float(a), float(b)
        return fa == fb or (math.isnan(fa) and math.isnan(fb))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return sorted(a) == sorted(b) and all(same_json(a[k], b[k]) for k in a)
    return a == b and type(a) is type(b)


def _strict(value):
    """main.py's conversion of non-finite floats (conformance.md section 1.2)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strict(v) for v in value]
    return value


def _cparams_of(v):
    if not isinstance(v, dict):
        return v
    return {k: v.get(k, MISSING) for k in ("clevel", "shuffle", "cname")}


class _Timeout(Exception):
    pass


def _on_alarm(_sig, _frame):
    raise _Timeout()


def run_case(c):
    """Returns (passed, detail)."""
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        result, files = reader.read_dataset(c["dir"])
        # what main.py writes and the runner parses
        result = json.loads(json.dumps(_strict(result), allow_nan=False))
    except FormatError as exc:
        if "error" not in c:
            return False, "rejected a valid dataset: %s" % exc.code
        if exc.code != c["error"]:
            return False, "error code %s, expected %s" % (exc.code, c["error"])
        return True, "rejected with %s" % exc.code
    except _Timeout:
        return False, "CRASH: timed out after %d s" % CASE_SECONDS
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - any crash fails the case
        return False, "CRASH: %s: %s" % (type(exc).__name__, str(exc)[:120])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if "error" in c:
        return False, "accepted a dataset that must fail with %s" % c["error"]
    return _judge_valid(c, result, dict(files))


def _judge_valid(c, result, files):
    problems = []

    def field(name, got, want):
        if not same_json(got, want):
            problems.append("%s differs" % name)

    g = result.get
    field("kind", g("kind", MISSING), c["kind"])
    if "format" in c:
        field("format", g("format", MISSING), c["format"])
    field("dtype", g("dtype", MISSING), c["dtype"] if c["dtype"] is not None else MISSING)
    field("shape", g("shape", MISSING), c["shape"] if c["shape"] is not None else MISSING)
    field("attrs", g("attrs", MISSING), c["attrs"])
    single = c["kind"] != "ctable"
    allowed = {"values.bin"} if single else {"col-%d.bin" % i for i in range(len(c["columns"]))}
    if single:
        field("chunklen", g("chunklen", MISSING), c["chunklen"] if c["chunklen"] is not None else MISSING)
        field("cparams", _cparams_of(g("cparams", MISSING)), c["cparams"] if c["cparams"] is not None else MISSING)
        data = files.get("values.bin", b"")
        want = c["values"]
        if want and (len(data) != want["bytes"] or hashlib.sha256(data).hexdigest() != want["sha256"]):
            problems.append("values.bin differs")
    else:
        if c["chunklen"] is not None:
            field("chunklen", g("chunklen", MISSING), c["chunklen"])
        cols = g("columns") or []
        if len(cols) != len(c["columns"]):
            problems.append("column count differs")
        for i, want in enumerate(c["columns"]):
            got = cols[i] if i < len(cols) else {}
            for key in ("name", "dtype", "shape", "chunklen"):
                field("columns[%d].%s" % (i, key), got.get(key, MISSING), want[key])
            field("columns[%d].cparams" % i, _cparams_of(got.get("cparams", MISSING)), want["cparams"])
            data = files.get("col-%d.bin" % i)
            if data is None:
                problems.append("col-%d.bin missing" % i)
            elif len(data) != want["bytes"] or hashlib.sha256(data).hexdigest() != want["sha256"]:
                problems.append("col-%d.bin differs" % i)
    extra = sorted(set(files) - allowed)
    if extra:
        problems.append("undefined output files %s" % extra[:5])
    if problems:
        return False, "; ".join(problems)[:200]
    return True, "values and metadata match"


def run_all(cases):
    return [run_case(c) for c in cases]


# Set before the worker processes fork, so each inherits the corpus and the base verdicts.
_SHARED = {}


def _caught_by_corpus(index):
    """Run variant `index` over every case (in a forked worker: its patch never leaks into the
    parent or another variant) and list the cases it fails that the unmodified reader passes."""
    v = _SHARED["variants"][index]
    cases, base_pass = _SHARED["cases"], _SHARED["base_pass"]
    with v.applied():
        results = run_all(cases)
    return [(c["id"], detail) for c, (ok, detail), bp in zip(cases, results, base_pass) if bp and not ok]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=os.path.join(REPO, "conformance", "corpus"))
    ap.add_argument("--threshold", type=float, default=90.0, help="minimum score in percent (default 90)")
    ap.add_argument("--variant", action="append", default=[], help="run only these variants")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--quiet", action="store_true", help="print only the missed variants and the score")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="variants run at the same time, each in its own forked process (default 2)")
    args = ap.parse_args(argv)

    started = time.monotonic()
    signal.signal(signal.SIGALRM, _on_alarm)
    # A variant that drops a size check may try to allocate what a hostile case claims; keep that
    # a MemoryError (a crash, so a failed case) instead of exhausting the machine.
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = 6 << 30
    if soft == resource.RLIM_INFINITY or soft > cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))

    cases = load_corpus(args.corpus)
    if not cases:
        sys.stderr.write("mutation_score: no read case under %s\n" % args.corpus)
        return 2
    variants = mutants.VARIANTS
    if args.variant:
        unknown = set(args.variant) - {v.name for v in variants}
        if unknown:
            sys.stderr.write("mutation_score: unknown variant(s) %s\n" % ", ".join(sorted(unknown)))
            return 2
        variants = [v for v in variants if v.name in args.variant]
    try:
        mutants.check_all_apply(variants)
    except mutants.StalePatch as exc:
        sys.stderr.write("mutation_score: %s\n" % exc)
        return 2

    base = run_all(cases)
    base_pass = [ok for ok, _ in base]
    _SHARED.update(variants=variants, cases=cases, base_pass=base_pass)
    if args.jobs > 1 and len(variants) > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            caught_lists = pool.map(_caught_by_corpus, range(len(variants)), chunksize=1)
    else:
        caught_lists = [_caught_by_corpus(i) for i in range(len(variants))]
    rows = list(zip(variants, caught_lists))
    elapsed = time.monotonic() - started

    scored = [(v, caught) for v, caught in rows if not v.equivalent]
    n_caught = sum(1 for _v, caught in scored if caught)
    score = 100.0 * n_caught / len(scored) if scored else 100.0
    out = sys.stdout
    if not args.quiet:
        out.write("Mutation score: %d read cases (%d passed by the unmodified reader), %d variants of "
                  "the Python reader (conformance/adapters/python/mutants.py)\n\n"
                  % (len(cases), sum(base_pass), len(rows)))
        w = max(len(v.name) for v, _ in rows)
        for v, caught in rows:
            if caught:
                more = " (+%d more)" % (len(caught) - 1) if len(caught) > 1 else ""
                verdict = "caught  %s%s" % (caught[0][0], more)
            elif v.equivalent:
                verdict = "equiv.  not scored: %s" % v.equivalent
            else:
                verdict = "MISSED"
            out.write("%-*s  %s\n%-*s    drops: %s\n" % (w, v.name, verdict, w, "", v.rule))
        out.write("\n")
    missed = [v.name for v, caught in scored if not caught]
    if missed:
        out.write("missed: %s\n" % ", ".join(missed))
    out.write("mutation score: %d/%d = %.1f%% (threshold %g%%; %d equivalent variants not scored) "
              "in %.1f s\n" % (n_caught, len(scored), score, args.threshold, len(rows) - len(scored),
                               elapsed))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"cases": len(cases), "baseline_passed": sum(base_pass), "score": score,
                       "threshold": args.threshold, "seconds": elapsed,
                       "variants": [{"name": v.name, "rule": v.rule, "equivalent": v.equivalent, "caught_by": [cid for cid, _ in caught],
                                     "details": [d for _cid, d in caught[:3]]}
                                    for v, caught in rows]}, fh, indent=1)
    return 0 if score >= args.threshold else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
