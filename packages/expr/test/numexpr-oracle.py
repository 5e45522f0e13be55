#!/usr/bin/python3
"""The oracle of the `where` expression tests: evaluates expressions with numexpr (python3-numexpr,
Debian bookworm: 2.8.4), the engine behind bcolz's `where`.

Protocol mode (default), used by numexpr-oracle.test.ts: reads one JSON object from standard input,
  {"start": k, "groups": [{"rows": n, "columns": {name: {"dtype": "<i4", "hex": "..."}},
                           "exprs": ["python text", ...]}, ...]}
and writes one JSON line per expression, in order, from the k-th expression on (counting across
groups), flushing each line: {"mask": "0110"} for a boolean result (a constant result repeated for
every row), {"dtype": "<i4"} for a result that is not boolean, {"error": "TypeError"} when numexpr
raises. numexpr kills the process on a few inputs (SIGFPE for INT_MIN % -1); the caller sees how
far the lines got and restarts after the expression that crashed.

Record mode: `numexpr-oracle.py --record FILE` fills the "expect" member of every case of a
regression file (numexpr-regressions.json) with the same answer objects.
"""
import json
import sys
import warnings

import numexpr
import numpy

warnings.simplefilter("ignore")


def arrays(columns):
    return {name: numpy.frombuffer(bytes.fromhex(c["hex"]), dtype=numpy.dtype(c["dtype"])).copy() for name, c in columns.items()}


def answer(text, local, rows):
    try:
        # An empty global_dict: names must come from the columns, never from this module.
        result = numexpr.evaluate(text, local_dict=local, global_dict={})
    except Exception as e:  # every refusal is an answer
        return {"error": type(e).__name__}
    if result.dtype != numpy.bool_:
        return {"dtype": result.dtype.str}
    return {"mask": "".join("1" if x else "0" for x in numpy.broadcast_to(result, (rows,)))}


def protocol():
    request = json.load(sys.stdin)
    index = 0
    start = request.get("start", 0)
    for group in request["groups"]:
        local = arrays(group["columns"])
        for text in group["exprs"]:
            if index >= start:
                sys.stdout.write(json.dumps(answer(text, local, group["rows"])) + "\n")
                sys.stdout.flush()
            index += 1


def record(path):
    with open(path) as f:
        data = json.load(f)
    for case in data["cases"]:
        case["expect"] = answer(case["python"], arrays(case["columns"]), case["rows"])
    data["recorded_with"] = {"numexpr": numexpr.__version__, "numpy": numpy.__version__}
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--record":
        record(sys.argv[2])
    else:
        protocol()
