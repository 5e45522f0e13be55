"""Deterministic value choices for the corpus (random.Random seeded per case)."""
import numpy as np

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
UNI = ["a", "b", "z", "é", "ß", "Ω", "ж", "☃", "中", "😀", "\U0001F600", "ǅ"]


def make(rng, dt, n, trailing=()):
    dt = np.dtype(dt)
    m = n * int(np.prod(trailing, dtype=np.int64)) if trailing else n
    native = dt.newbyteorder("<") if dt.byteorder == ">" else dt
    k = dt.kind
    if k == "b":
        vals = [rng.random() < 0.3 for _ in range(m)]
    elif k in "iu":
        info = np.iinfo(dt)
        lo, hi = int(info.min), int(info.max)
        x = rng.randint(lo // 4, hi // 4) if hi > 1000 else rng.randint(lo, hi)
        vals = []
        step = max(1, (hi - lo) // 10000)
        for i in range(m):
            r = rng.random()
            if r < 0.01:
                v = lo
            elif r < 0.02:
                v = hi
            else:
                x = min(hi, max(lo, x + rng.randint(-3, 3) * step))
                v = x
            vals.append(v)
    elif k == "f":
        x = 0.0
        vals = []
        for i in range(m):
            r = rng.random()
            if r < 0.005:
                vals.append(float("nan"))
            elif r < 0.01:
                vals.append(float("-inf") if rng.random() < 0.5 else float("inf"))
            elif r < 0.015:
                vals.append(-0.0)
            else:
                x += rng.gauss(0, 1)
                vals.append(round(x, 3) if dt.itemsize == 2 else x)
    elif k == "S":
        w = dt.itemsize
        vals = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, w))).encode() for _ in range(m)]
    elif k == "U":
        w = dt.itemsize // 4
        vals = ["".join(rng.choice(UNI) for _ in range(rng.randint(0, w))) for _ in range(m)]
    elif k == "M":
        base = 1_700_000_000_000_000_000
        vals = []
        for i in range(m):
            if rng.random() < 0.02:
                vals.append(-(2 ** 63))
            else:
                vals.append(base + i * 1_000_000_000 + rng.randint(-999, 999))
        arr = np.array(vals, dtype="<i8").view(native)
        return arr.astype(dt).reshape((n,) + tuple(trailing))
    else:
        raise ValueError(dt)
    arr = np.array(vals, dtype=native)
    return arr.astype(dt).reshape((n,) + tuple(trailing))
