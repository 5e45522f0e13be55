"""The `where` operation (spec/conformance.md section 1.4): the rows of a ctable an expression
selects, evaluated by numexpr itself (as bcolz does) over the columns pyreader decodes.

The columns are handed to numexpr converted as spec/expressions.md section 2 says (i1, i2, u1, u2
as int32; u4 as int64; f2 as float32); u8 and the dtypes numexpr has no kind for are refused, as
is every expression numexpr raises on or whose result is not a boolean (section 7)."""

import re
import warnings

import numpy as np

from pyreader.reader import read_dataset

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class QueryError(Exception):
    """An expression refused (usage error INVALID_ARGUMENT of spec/errors.md)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def to_json(self):
        return {"code": "INVALID_ARGUMENT", "message": self.message, "field": "expression"}


def _refuse(message):
    return QueryError(message)


def _column(dtype_str, data, rows):
    """The numpy array numexpr sees for a column; None when numexpr has no kind for its dtype."""
    if not isinstance(dtype_str, str) or dtype_str.startswith("vl:"):
        return None
    dt = np.dtype(dtype_str)
    if dt.kind not in "biufS" or (dt.kind == "u" and dt.itemsize == 8):
        return None
    arr = np.frombuffer(data, dtype=dt.newbyteorder("<") if dt.kind in "iuf" else dt, count=rows)
    if dt.kind in "iu" and dt.itemsize <= 2:
        return arr.astype(np.int32)
    if dt.kind == "u" and dt.itemsize == 4:
        return arr.astype(np.int64)
    if dt.kind == "f" and dt.itemsize == 2:
        return arr.astype(np.float32)
    return arr.astype(arr.dtype.newbyteorder("="))


def where_rows(dataset, expression):
    """The increasing row numbers `expression` selects in the ctable at `dataset`.

    Raises FormatError (the dataset is not valid) or QueryError (the expression is refused)."""
    import numexpr
    numexpr.set_num_threads(1)
    result, files = read_dataset(dataset)
    if result.get("kind") != "ctable":
        raise _refuse("where needs a ctable, not a %s" % result.get("kind"))
    rows = result["shape"][0]
    data = dict(files)
    used = set(NAME_RE.findall(expression))
    local = {}
    for i, col in enumerate(result["columns"]):
        name = col["name"]
        if name not in used:
            continue
        arr = _column(col["dtype"], data.get("col-%d.bin" % i, b""), rows)
        if arr is None:
            raise _refuse("column %s: numexpr cannot evaluate dtype %s" % (name, col["dtype"]))
        local[name] = arr
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = numexpr.evaluate(expression, local_dict=local, global_dict={})
    except Exception as exc:  # noqa: BLE001 - numexpr refusing the expression is the answer
        raise _refuse("numexpr refuses the expression: %s: %s" % (type(exc).__name__, exc))
    res = np.asarray(res)
    if res.dtype != np.bool_:
        raise _refuse("the expression is %s, not a boolean" % res.dtype)
    if res.shape == ():
        return list(range(rows)) if bool(res) else []
    return [int(i) for i in np.nonzero(res)[0]]
