#!/usr/bin/python3
"""The `where` query set of the corpus (spec/conformance.md section 1.4): conformance/corpus/v1/where.

    /usr/bin/python3 conformance/generators/where_corpus.py [OUT_ROOT]

Writes OUT_ROOT/v1/where/ (default OUT_ROOT: conformance/corpus; an existing set is replaced): one
small format-version-1 ctable built by genlib (numpy + python3-blosc, from spec/ alone, never by
@fmt/store) and a manifest whose `queries` list the expressions with the rows numexpr selects.
The expected rows are computed here by python3-numexpr 2.8 on the columns, converted to numexpr
kinds as spec/expressions.md section 2 says; an expression numexpr refuses (it raises, or its result
is not a boolean, which bcolz refuses) expects INVALID_ARGUMENT (spec/expressions.md section 7).
Every expression is written fully parenthesised, so that Python's operator precedence (numexpr)
and that of spec/expressions.md section 1 give the same tree.
"""
import json
import re
import os
import shutil
import sys
import warnings

for _k in list(os.environ):
    if _k.startswith("BLOSC_"):
        del os.environ[_k]
sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import blosc  # noqa: E402
import numexpr  # noqa: E402
import numpy as np  # noqa: E402

from genlib import values as V  # noqa: E402
from genlib.build import write_tree  # noqa: E402
from genlib.v1 import build  # noqa: E402

numexpr.set_num_threads(1)
CP = {"clevel": 5, "shuffle": 1, "cname": "blosclz"}
NAN, INF, NINF = "NaN", "Infinity", "-Infinity"

# One ctable, 12 rows, chunklen 5 (two full chunks and a leftover of 2 rows).
COLUMNS = [
    ("a", "<i4", [65536, -7, 7, 2147483647, 0, -65536, 3, -1, 100, -2147483648, 46341, 5]),
    ("b", "<i4", [65536, 2, -2, 1, 3, 65536, 3, 5, -100, 2, 46341, -3]),
    ("h", "<i2", [-32768, -7, 7, 32767, 0, 1, -1, 300, -300, 2, 5, 12]),
    ("l", "<i8", [str(2 ** 53 + 1), str(2 ** 53), "-7", str(2 ** 63 - 1), str(-2 ** 63), "0",
                  str(2 ** 53 - 1), "5", "-5", str(2 ** 53 + 1), "1", "2"]),
    ("d", "<f8", [2.0 ** 53, 2.0 ** 53, -7.0, NAN, INF, NINF, 9007199254740991.0, 5.0, "-0", 0.0, 1.5, NAN]),
    ("f", "<f4", [16777216.0, NAN, 0.5, -1.5, 3.0, INF, "-0", 2.5, 0.001, 16777216.0, NAN, 7.0]),
    ("s", "|S3", [x.hex() for x in [b"a", b"\xff", b"AB", b"", b"abc", b"ab", b"b", b"A", b"zz", b"abc", b"a", b"B"]]),
    ("flag", "|b1", [True, False, True, True, False, False, True, False, True, False, True, False]),
    ("u", "<u4", [4294967295, 0, 1, 2147483648, 7, 2147483647, 3, 5, 100, 0, 65536, 1]),
    ("w", "<u8", ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"]),
]

# (name, expression, what it pins); every expected outcome is computed below by numexpr.
QUERIES = [
    ("cmp_i4_gt", "(a > 5)", "expressions.md §5 (int)"),
    ("cmp_i4_eq_neg", "(a == -7)", "expressions.md §5 (int)"),
    ("cmp_i2_le", "(h <= -7)", "expressions.md §2 (i2 read as int32), §5"),
    ("cmp_i8_ne", "(l != 0)", "expressions.md §5 (long)"),
    ("cmp_f8_ge", "(d >= 5.0)", "expressions.md §5 (double; NaN false)"),
    ("cmp_f4_lt", "(f < 1)", "expressions.md §5 (float)"),
    ("cmp_u4_gt", "(u > 2147483647)", "expressions.md §2 (u4 read as int64), §5"),
    ("cmp_b1_eq", "(flag == False)", "expressions.md §5 (bool)"),
    ("bool_column", "flag", "expressions.md §6 (a bool column is a condition)"),
    ("and_or", "((a > 0) & (b > 0)) | (h < 0)", "expressions.md §6"),
    ("not_and", "~((a > 0) & flag)", "expressions.md §6"),
    ("not_column", "~flag", "expressions.md §6"),
    ("i4_mul_wrap", "((a * b) > 0)", "expressions.md §4 (int32 wrap-around)"),
    ("i4_mul_wrap_eq0", "((a * b) == 0)", "expressions.md §4 (65536 * 65536 wraps to 0)"),
    ("i4_add_wrap", "((a + 1) < 0)", "expressions.md §4 (2147483647 + 1 wraps)"),
    ("i2_mul_int32", "((h * h) > 1000000)", "expressions.md §2, §4 (i2 arithmetic in int32)"),
    ("u4_add_no_wrap", "((u + u) > 4294967295)", "expressions.md §2, §4 (u4 arithmetic in int64)"),
    ("mod_neg_i4", "((a % b) == -1)", "expressions.md §4 (% sign)"),
    ("mod_neg_lit", "((a % 3) < 0)", "expressions.md §4 (% sign, literal divisor)"),
    ("mod_neg_f8", "((d % 2.0) > 0)", "expressions.md §4 (float %)"),
    ("i8_f8_eq_2p53", "(l == d)", "expressions.md §5 (long vs double near 2^53)"),
    ("i8_lit_2p53p1", "(l == 9007199254740993)", "expressions.md §3, §5"),
    ("i8_gt_f8", "(l > d)", "expressions.md §5 (long vs double)"),
    ("f4_lit_16777217", "(f == 16777217)", "expressions.md §5 (float32 rounding of the literal)"),
    ("nan_eq", "(d == d)", "expressions.md §5 (NaN)"),
    ("nan_ne", "(f != f)", "expressions.md §5 (NaN)"),
    ("nan_not_lt", "~(d < 1e300)", "expressions.md §5, §6 (NaN)"),
    ("f8_div", "((d / 2.0) > 1.0)", "expressions.md §4 (true division)"),
    ("s_eq", "(s == b'abc')", "expressions.md §5 (bytes)"),
    ("s_ge_ff", "(s >= b'\\xff')", "expressions.md §5, §9 (bytes against \\xff)"),
    ("s_lt_b", "(s < b'b')", "expressions.md §5 (bytes order: numexpr compares bytes as signed chars)"),
    ("s_gt_col", "(s > b'A') & (s < b'a')", "expressions.md §5, §6"),
    ("const_false", "(a > 0) & (1 > 2)", "expressions.md §3 (constant folding), §6"),
    ("err_not_number", "~a", "expressions.md §6, §7 (~ of a number)"),
    ("err_and_number", "(a > 0) & 1", "expressions.md §6, §7"),
    ("err_floordiv", "((a // b) > 0)", "expressions.md §7 (// with a column)"),
    ("err_str_vs_number", "(s == 1)", "expressions.md §7 (families)"),
    ("err_not_bool", "(a + 1)", "expressions.md §7 (result not a boolean)"),
    ("err_unknown_column", "(zz > 0)", "expressions.md §7 (unknown column)"),
    ("err_u8", "(w > 0)", "expressions.md §2, §7 (u8 refused)"),
    ("err_bool_arith", "((flag + flag) > 0)", "expressions.md §7 (arithmetic on booleans)"),
]


def numexpr_kinds(arr):
    """spec/expressions.md section 2: the array numexpr sees for a column; None when refused."""
    k, size = arr.dtype.kind, arr.dtype.itemsize
    if k == "u" and size == 8:
        return None
    if (k == "i" and size <= 2) or (k == "u" and size <= 2):
        return arr.astype(np.int32)
    if k == "u" and size == 4:
        return arr.astype(np.int64)
    if k == "f" and size == 2:
        return arr.astype(np.float32)
    return arr


def evaluate(expr, cols):
    """(rows, None) or (None, name of the exception numexpr raises / 'not a boolean')."""
    local = {}
    for name, arr in cols.items():
        if name in expr:
            conv = numexpr_kinds(arr)
            if conv is None:
                # numexpr refuses uint64 (it cannot cast it to int64 safely)
                if __import__("re").search(r"\b%s\b" % name, expr):
                    return None, "TypeError (uint64)"
                continue
            local[name] = conv
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = numexpr.evaluate(expr, local_dict=local, global_dict={})
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        return None, type(exc).__name__
    res = np.asarray(res)
    if res.dtype != np.bool_:
        return None, "result is %s, not a boolean" % res.dtype
    if res.shape == ():
        res = np.full(len(next(iter(cols.values()))), bool(res))
    return [int(i) for i in np.nonzero(res)[0]], None


def main(argv):
    out_root = argv[0] if argv else os.path.join(HERE, "..", "corpus")
    set_dir = os.path.join(out_root, "v1", "where")
    if os.path.exists(set_dir):
        shutil.rmtree(set_dir)
    desc = {"kind": "ctable", "attrs": {},
            "columns": [{"name": n, "dtype": dt, "shape": [len(vals)], "chunklen": 5, "cparams": CP, "values": vals}
                        for n, dt, vals in COLUMNS]}
    files, exps, m, _ = build(desc)
    write_tree(os.path.join(set_dir, "table", "data.bcolz"), files)
    cols = {n: V.array(dt, [len(vals)], vals) for n, dt, vals in COLUMNS}
    queries = []
    for name, expr, pins in QUERIES:
        rows, err = evaluate(expr, cols)
        q = {"name": name, "dataset": "table/data.bcolz", "expression": expr}
        if err is None:
            q["expect"] = {"rows": rows}
        else:
            q["expect"] = {"error": "INVALID_ARGUMENT"}
            q["numexpr"] = err
        q["pins"] = pins
        # Rule ids (spec/conformance.md §2.1): one per expressions.md section the case pins.
        q["rules"] = ["expr-%s" % n for n in sorted(set(re.findall(r"§(\d+)", pins)), key=int)]
        queries.append(q)
    manifest = {
        "format": "bcolz corpus manifest v1", "set": "where", "format_version": 1,
        "generator": "conformance/generators/where_corpus.py: the ctable by conformance/generators/genlib with c-blosc %s "
                     "via python3-blosc, the expected rows by numexpr %s (numpy %s)"
                     % (blosc.blosclib_version.split()[0], numexpr.__version__, np.__version__),
        "notes": ["No read cases: `cases` is empty. The queries run against table/data.bcolz (spec/conformance.md section 1.4).",
                  "table columns: " + ", ".join("%s %s" % (n, m_["dtype"]) for n, m_ in zip([c[0] for c in COLUMNS], m["columns"]))],
        "table": {"dtype": m["dtype"], "len": m["len"], "expected": m["expected"]},
        "cases": [],
        "queries": queries,
    }
    with open(os.path.join(set_dir, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    with open(os.path.join(set_dir, "PROVENANCE.md"), "w", encoding="utf-8") as fh:
        fh.write(PROVENANCE % {"blosc": blosc.blosclib_version.split()[0], "numexpr": numexpr.__version__, "numpy": np.__version__})
    return 0


PROVENANCE = """# Provenance of `v1/where`

Query cases of the `where` operation (spec/conformance.md §1.4) over one small ctable.

Generated, not hand-made: `/usr/bin/python3 conformance/generators/where_corpus.py` writes the
ctable `table/data.bcolz` with the Python builder `conformance/generators/genlib` (written from
`spec/` alone, never from `@fmt/store`; c-blosc %(blosc)s through python3-blosc), and computes each
query's expected row numbers with numexpr %(numexpr)s (numpy %(numpy)s) over the columns converted
to numexpr's kinds (spec/expressions.md §2). An expression numexpr refuses, or whose result is not a
boolean, expects `INVALID_ARGUMENT` (spec/expressions.md §7); the manifest records what numexpr
raised in `numexpr`. Expressions are fully parenthesised so that Python's precedence and that of
spec/expressions.md §1 agree.
"""

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
