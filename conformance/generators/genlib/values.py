"""Case descriptions -> numpy arrays (the JSON value encoding of conformance/generators/gen/).

Encoding of one element (flat list, C order): integers as JSON numbers, or as decimal strings for
8-byte integers and datetime64 counts; floats as JSON numbers or the strings "NaN", "Infinity",
"-Infinity", "-0"; |S<n> as lower-case hex of the bytes; <U<n> as a JSON string; |b1 as a boolean.
"""
import numpy as np

SPECIAL = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf"), "-0": -0.0}


def array(dtype, shape, flat):
    dt = np.dtype(dtype)
    shape = tuple(shape)
    k = dt.kind
    if k == "b":
        arr = np.array([bool(v) for v in flat], dtype="|b1")
    elif k in "iu":
        arr = np.array([int(v) for v in flat], dtype=dt)
    elif k == "f":
        arr = np.array([SPECIAL[v] if isinstance(v, str) else float(v) for v in flat], dtype="<f8")
        arr = arr.astype(dt)
    elif k == "S":
        arr = np.array([bytes.fromhex(v) for v in flat], dtype=dt)
    elif k == "U":
        arr = np.array(list(flat), dtype=dt)
    elif k == "M":
        arr = np.array([int(v) for v in flat], dtype="<i8").view("<" + dt.str[1:]).astype(dt)
    else:
        raise ValueError("unsupported dtype %s" % dtype)
    if arr.dtype != dt:
        arr = arr.astype(dt)
    return arr.reshape(shape)


def le_bytes(arr):
    """spec/conformance.md §1.2: little-endian, C order."""
    dt = arr.dtype
    if dt.byteorder == ">":
        arr = arr.astype(dt.newbyteorder("<"))
    return np.ascontiguousarray(arr).tobytes()


def blosc_typesize(dt):
    """v1.md §13: S -> 1, U -> 4, otherwise the element itemsize."""
    dt = np.dtype(dt)
    if dt.kind == "S":
        return 1
    if dt.kind == "U":
        return 4
    return dt.itemsize


def bcolz_spelling(dt):
    """v1.md §13: numpy str(dtype) of the base dtype (type name for native builtin types)."""
    return str(np.dtype(dt))


def zero_dflt(dt):
    """v1.md §14 item 3: the zero of the dtype."""
    k = np.dtype(dt).kind
    return {"b": False, "S": "", "U": "", "f": 0.0}.get(k, 0)
