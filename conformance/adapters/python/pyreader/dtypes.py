"""dtype strings of meta/storage (spec/v1.md section 13)."""

import re

from .errors import FormatError

UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as")

# v1.md section 13 grammar. Names (numpy `str(dtype)` of native little-endian builtins):
_NAMES = {
    "bool": ("b", 1), "int8": ("i", 1), "uint8": ("u", 1),
    "int16": ("i", 2), "int32": ("i", 4), "int64": ("i", 8),
    "uint16": ("u", 2), "uint32": ("u", 4), "uint64": ("u", 8),
    "float16": ("f", 2), "float32": ("f", 4), "float64": ("f", 8),
}
# codes: an optional byte-order character, then the type code
_CODE_RE = re.compile(r"([<>|=]?)(b1|[iu][1248]|f[248]|S([1-9][0-9]*)|U([1-9][0-9]*)|M8\[([A-Za-z]+)\])")
MAX_ITEMSIZE = 2147483631   # v1.md section 13 (the largest Blosc nbytes)


class Dtype:
    """A parsed base dtype.

    str      numpy dtype.str ('<f8', '|S7', '>U2', '<M8[ns]')
    kind     'b', 'i', 'u', 'f', 'S', 'U', 'M'
    itemsize bytes per element
    swap     size of the unit to byte-swap when big-endian (0 = no swapping)
    """

    def __init__(self, s, kind, itemsize, swap):
        self.str = s
        self.kind = kind
        self.itemsize = itemsize
        self.swap = swap

    @property
    def big_endian(self):
        return self.str.startswith(">")


def parse_dtype(text, path):
    """v1.md section 13: a name of the table, or [<>|=]? followed by a code; returns a Dtype whose
    `str` is numpy's dtype.str ('|' for one-byte types and S, '<' unless the order is '>')."""
    def bad():
        return FormatError("UNSUPPORTED_DTYPE", "%s: unsupported dtype %r" % (path, text),
                           path=path, field="storage.dtype")

    if not isinstance(text, str):
        raise bad()
    if text in _NAMES:
        kind, size = _NAMES[text]
        if size == 1:
            return Dtype("|%s1" % kind, kind, 1, 0)
        return Dtype("<%s%d" % (kind, size), kind, size, size)
    m = re.fullmatch(r"datetime64\[([A-Za-z]+)\]", text)
    if m:
        if m.group(1) not in UNITS:
            raise bad()
        return Dtype("<M8[%s]" % m.group(1), "M", 8, 8)
    m = _CODE_RE.fullmatch(text)
    if not m:
        raise bad()
    order = ">" if m.group(1) == ">" else "<"
    code = m.group(2)
    kind = code[0]
    if kind == "S":
        n = int(m.group(3))
        if n > MAX_ITEMSIZE:
            raise bad()
        return Dtype("|S%d" % n, "S", n, 0)
    if kind == "U":
        n = int(m.group(4))
        if 4 * n > MAX_ITEMSIZE:
            raise bad()
        return Dtype("%sU%d" % (order, n), "U", 4 * n, 4)
    if kind == "M":
        if m.group(5) not in UNITS:
            raise bad()
        return Dtype("%sM8[%s]" % (order, m.group(5)), "M", 8, 8)
    size = int(code[1])
    if size == 1:
        return Dtype("|%s1" % kind, kind, 1, 0)
    return Dtype("%s%s%d" % (order, kind, size), kind, size, size)
