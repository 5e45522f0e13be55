"""dtype strings of meta/storage (spec/v1.md section 13)."""

import re

from .errors import FormatError

UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as")

# bcolz spelling (numpy `str(dtype)` of native little-endian builtins) -> little-endian dtype.str
_NAMES = {
    "bool": "|b1", "int8": "|i1", "uint8": "|u1",
    "int16": "<i2", "int32": "<i4", "int64": "<i8",
    "uint16": "<u2", "uint32": "<u4", "uint64": "<u8",
    "float16": "<f2", "float32": "<f4", "float64": "<f8",
}
_ONE_BYTE = {"|b1", "|i1", "|u1"}
_ORDERED = {"i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8"}
_WIDTH = r"([1-9][0-9]*)"


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
    def bad():
        return FormatError("UNSUPPORTED_DTYPE", "%s: unsupported dtype %r" % (path, text),
                           path=path, field="storage.dtype")

    if not isinstance(text, str):
        raise bad()
    s = text
    if s in _NAMES:
        s = _NAMES[s]
    m = re.fullmatch(r"datetime64\[([A-Za-z]+)\]", s)
    if m:
        s = "<M8[%s]" % m.group(1)
    if s in _ONE_BYTE:
        return Dtype(s, s[1], 1, 0)
    if len(s) == 3 and s[0] in "<>" and s[1:] in _ORDERED:
        size = int(s[2])
        return Dtype(s, s[1], size, size)
    m = re.fullmatch(r"\|S" + _WIDTH, s)
    if m:
        return Dtype(s, "S", int(m.group(1)), 0)
    m = re.fullmatch(r"([<>])U" + _WIDTH, s)
    if m:
        return Dtype(s, "U", 4 * int(m.group(2)), 4)
    m = re.fullmatch(r"([<>])M8\[([A-Za-z]+)\]", s)
    if m and m.group(2) in UNITS:
        return Dtype(s, "M", 8, 8)
    raise bad()
