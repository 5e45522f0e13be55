"""Self-test of the superchunk builder: it must reproduce the hex examples of spec/v2.md §8 byte for byte."""
import re

import numpy as np

from .fmt import compress, raw_checksum, relocate, set_header, superchunk
from .registry import SPEC


# ------------------------------------------------------------------ spec self-test

def spec_hex(name):
    text = open(SPEC, encoding="utf-8").read()
    m = re.search(r"```hex %s\n(.*?)```" % re.escape(name), text, re.S)
    out = bytearray()
    for line in m.group(1).splitlines():
        line = re.sub(r"^[0-9A-Fa-f]{4}:\s*", "", line.strip())
        for tok in line.split():
            if re.fullmatch(r"[0-9A-Fa-f]{2}", tok):
                out.append(int(tok, 16))
            else:
                break
    return bytes(out)


def self_test():
    assert raw_checksum(1, b"abc") == bytes.fromhex("27014D02")
    assert raw_checksum(1, b"") == bytes.fromhex("01000000")
    c0 = compress(np.array([1, 2], "<i4").tobytes(), 4, 5, 1, "lz4")
    c1 = compress(np.array([3], "<i4").tobytes(), 4, 5, 1, "lz4")
    b, info = superchunk([c0, c1], cid=1, typesize=4, chunk_size=8, spare_pct=50, capacity=4)
    assert b == spec_hex("superchunk-dataset"), "§8.1"
    b2, _ = superchunk([c0, c1], cid=2, typesize=4, chunk_size=8, options=1)
    assert b2 == spec_hex("superchunk-no-metadata"), "§8.2"
    c1b = compress(np.array([3, 4], "<i4").tobytes(), 4, 5, 1, "lz4")
    b3, _ = relocate(b, info, 1, c1b, cid=1, g=1, spare_pct=50, chunk_size=8)
    assert set_header(b3, last_chunk=8) == spec_hex("superchunk-relocated"), "§8.3"
