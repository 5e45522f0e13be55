# The numpy side of the Arrow tests (run by /usr/bin/python3):
#   numpy_oracle.py make OUT_DIR     writes one .npy per column of a dataset of every dtype the store
#                                    writes, and OUT_DIR/expected.json: each column's values as
#                                    numpy sees them (datetimes in the Arrow unit they map to).
#   numpy_oracle.py expect SPEC.json reads the raw little-endian files SPEC lists ({file, dtype,
#                                    shape}) and prints their values the same way.
import json
import sys

import numpy as np

ROWS = 3000
rng = np.random.default_rng(20261125)

ARROW_UNIT = {"s": "s", "ms": "ms", "us": "us", "ns": "ns", "m": "s", "h": "s", "D": "D", "W": "D", "M": "D", "Y": "D"}


def cell(x, dt):
    """One element as JSON: ints as strings, floats as numbers or NaN/Infinity/-0 tags, NaT as None."""
    if dt.kind == "b":
        return bool(x)
    if dt.kind in "iu":
        return str(int(x))
    if dt.kind == "f":
        f = float(x)
        if f != f:
            return "NaN"
        if f in (float("inf"), float("-inf")):
            return "Infinity" if f > 0 else "-Infinity"
        if f == 0 and np.signbit(f):
            return "-0"
        return f
    if dt.kind == "M":
        if np.isnat(x):
            return None
        unit = np.datetime_data(dt)[0]
        return str(int(np.datetime64(x).astype(f"M8[{ARROW_UNIT[unit]}]").view("i8")))
    if dt.kind == "S":
        return bytes(x).hex()  # numpy's bytes_ already lost the trailing NULs
    if dt.kind == "U":
        return str(x)
    raise ValueError(dt)


def values(a):
    """Rows of `a` as nested lists (trailing dimensions) of cells."""
    dt = a.dtype

    def rec(v):
        if isinstance(v, np.ndarray):
            return [rec(w) for w in v]
        return cell(v, dt)

    return [rec(row) for row in a]


def make(out):
    cols = {}
    for dt in ["|i1", "<i2", ">i2", "<i4", ">i4", "<i8", ">i8"]:
        info = np.iinfo(np.dtype(dt))
        a = rng.integers(info.min, info.max, size=ROWS, endpoint=True, dtype=np.dtype(dt).newbyteorder("="))
        a[:2] = [info.min, info.max]
        cols[dt] = a.astype(dt)
    for dt in ["|u1", "<u2", ">u2", "<u4", ">u4", "<u8", ">u8"]:
        info = np.iinfo(np.dtype(dt))
        a = rng.integers(0, info.max, size=ROWS, endpoint=True, dtype=np.dtype(dt).newbyteorder("="))
        a[:2] = [0, info.max]
        cols[dt] = a.astype(dt)
    for dt in ["<f2", ">f2", "<f4", ">f4", "<f8", ">f8"]:
        a = (rng.standard_normal(ROWS) * 1000).astype(dt)
        a[:5] = [np.nan, np.inf, -np.inf, -0.0, 0.0]
        cols[dt] = a
    cols["|b1"] = rng.integers(0, 2, size=ROWS).astype("|b1")
    for unit, spread in [("Y", 300), ("M", 3000), ("W", 20000), ("D", 100000), ("h", 10**6), ("m", 10**7), ("s", 10**9), ("ms", 10**12), ("us", 10**15), ("ns", 10**18)]:
        for order in ["<", ">"] if unit in ("D", "ns") else ["<"]:
            a = rng.integers(-spread, spread, size=ROWS).astype(f"{order}M8[{unit}]")
            a[3] = np.datetime64("NaT")
            cols[f"{order}M8[{unit}]"] = a
    alphabet = np.array(list("abcXYZ09 ,\\\"é€😀\x01"))
    s = np.array([b"", b"a", b"ab\x00c", b"\xff\x00\x01", b"hello"] * (ROWS // 5), dtype="|S5")
    cols["|S5"] = s
    u = np.array(["".join(rng.choice(alphabet, size=rng.integers(0, 5))) for _ in range(ROWS)], dtype="<U4")
    cols["<U4"] = u
    cols[">U3"] = u.astype(">U3")
    cols["<f8(2,3)"] = (rng.standard_normal((ROWS, 2, 3))).astype("<f8")
    cols["<i4(2,)"] = rng.integers(-100, 100, size=(ROWS, 2)).astype("<i4")
    cols[">i2(3,)"] = rng.integers(-100, 100, size=(ROWS, 3)).astype(">i2")
    expected = []
    for i, (key, a) in enumerate(cols.items()):
        name = f"c{i}"
        np.save(f"{out}/{name}.npy", a)
        expected.append({"name": name, "dtype": a.dtype.str, "shape": list(a.shape[1:]), "values": values(a)})
    with open(f"{out}/expected.json", "w") as f:
        json.dump(expected, f)


def expect(spec_path):
    spec = json.load(open(spec_path))
    out = []
    for s in spec:
        dt = np.dtype(s["dtype"]).newbyteorder("<") if np.dtype(s["dtype"]).byteorder in "<>=" else np.dtype(s["dtype"])
        a = np.frombuffer(open(s["file"], "rb").read(), dtype=dt).reshape([-1] + s["shape"])
        out.append(values(a))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        expect(sys.argv[2])
