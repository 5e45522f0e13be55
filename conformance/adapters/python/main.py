"""Adapter entry point (spec/conformance.md section 1): `info`, `read DATASET_DIR OUT_DIR`,
`where DATASET_DIR EXPRESSION OUT_DIR` (section 1.4, in query.py) and `serve` (section 1.5: the
same calls, one JSON line each, answered by this one process)."""

import io
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pyreader.errors import FormatError  # noqa: E402
from pyreader.reader import read_dataset  # noqa: E402

INFO = {"name": "bcolz-py independent reader", "version": "0.3.0", "formats": [1, 2],
        "operations": ["read", "where", "serve"]}


def _strict(value):
    """Non-finite floats as the strings of conformance.md section 1.2."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strict(v) for v in value]
    return value


def cmd_read(dataset, out_dir, out):
    try:
        result, files = read_dataset(dataset)
    except FormatError as exc:
        out.write(json.dumps(exc.to_json()) + "\n")
        return 3
    os.makedirs(out_dir, exist_ok=True)
    for name, data in files:
        with open(os.path.join(out_dir, name), "wb") as fh:
            fh.write(data)
    with open(os.path.join(out_dir, "result.json"), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(_strict(result), allow_nan=False) + "\n")
    return 0


def cmd_where(dataset, expression, out_dir, out):
    """spec/conformance.md section 1.4: OUT_DIR/rows.json, or exit 3 with the error line."""
    from query import QueryError, where_rows
    try:
        rows = where_rows(dataset, expression)
    except (FormatError, QueryError) as exc:
        out.write(json.dumps(exc.to_json()) + "\n")
        return 3
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "rows.json"), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(rows) + "\n")
    return 0


def main(argv, out=None):
    out = sys.stdout if out is None else out
    if len(argv) == 1 and argv[0] == "info":
        out.write(json.dumps(INFO) + "\n")
        return 0
    if len(argv) == 3 and argv[0] == "read":
        return cmd_read(argv[1], argv[2], out)
    if len(argv) == 4 and argv[0] == "where":
        return cmd_where(argv[1], argv[2], argv[3], out)
    sys.stderr.write("usage: adapter info | adapter read DATASET_DIR OUT_DIR | adapter where DATASET_DIR EXPRESSION OUT_DIR | adapter serve\n")
    return 2


def serve(requests, answers):
    """Section 1.5: one request {"id", "argv"} per line in, one answer {"id", "status", "stdout"}
    per line out, in order. A call that raises answers status 1 (a crash) with its traceback on
    standard error, and the loop goes on."""
    import traceback
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            argv = request.get("argv")
            ident = request.get("id")
        except (ValueError, AttributeError):
            sys.stderr.write("serve: a request line that is not a JSON object\n")
            request, argv, ident = None, None, None
        captured = io.StringIO()
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or argv[:1] == ["serve"]:
            status = 2
        else:
            try:
                status = main(argv, captured)
            except Exception:  # noqa: BLE001  (a crash of one call, reported as the process would)
                traceback.print_exc(file=sys.stderr)
                status = 1
        answers.write(json.dumps({"id": ident, "status": status, "stdout": captured.getvalue()}) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        sys.exit(serve(sys.stdin, sys.stdout))
    sys.exit(main(sys.argv[1:]))
