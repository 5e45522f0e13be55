"""Damage of a built dataset ({path: bytes}) as a case description asks (one rule broken per case).

Every damage takes fractions `u` (0 <= u < 1) instead of raw positions, so that the description
stays valid whatever the compressed sizes are: the builder maps a fraction onto the range of
positions where the damage breaks exactly the rule the case names.
"""
import json
import struct

import numpy as np


def pick(seq, u):
    seq = list(seq)
    if not seq:
        raise ValueError("nothing to pick from")
    return seq[min(len(seq) - 1, int(u * len(seq)))]


def span(lo, hi, u):
    """An integer in [lo, hi]."""
    if hi < lo:
        raise ValueError("empty range %d..%d" % (lo, hi))
    return lo + min(hi - lo, int(u * (hi - lo + 1)))


def patch(b, off, new):
    b = bytearray(b)
    b[off:off + len(new)] = new
    return bytes(b)


def json_damage(text, how, u):
    """BAD_JSON damages of v1.md §9.1 applied to a JSON file's bytes."""
    body = text.rstrip(b"\n")
    if how == "cut":
        cut = span(0, len(body) - 1, u)  # the closing brace or bracket is always lost
        return body[:cut] + b"\n", "cut to %d of %d bytes" % (cut, len(body))
    if how == "trailing":
        return body + b" x\n", "non-whitespace after the value"
    if how == "utf8":
        pos = span(1, len(body) - 1, u)
        return body[:pos] + b"\xff" + body[pos:], "byte FF (invalid UTF-8) inserted at %d" % pos
    if how == "bom":
        return b"\xef\xbb\xbf" + text, "UTF-8 byte-order mark prepended"
    if how == "dupkey":
        obj = json.loads(text.decode("utf-8").replace("NaN", "null"))
        if not isinstance(obj, dict) or not obj:
            return b'{"a": 1, "a": 2}\n', "object with a repeated key"
        k = pick(sorted(obj), u)
        item = json.dumps({k: obj[k]})[1:-1]
        return body[:-1] + b", " + item.encode("ascii") + b"}\n", "key %r repeated" % k
    if how == "single_quotes":
        return body.replace(b'"', b"'") + b"\n", "single quotes instead of double quotes"
    raise ValueError(how)


def blosc_fields(chunk):
    version, versionlz, flags, typesize, nbytes, blocksize, cbytes = struct.unpack_from("<BBBBiii", chunk, 0)
    return {"version": version, "versionlz": versionlz, "flags": flags, "typesize": typesize,
            "nbytes": nbytes, "blocksize": blocksize, "cbytes": cbytes}


def memcpyed(chunk):
    return bool(blosc_fields(chunk)["flags"] & 0x02)


def blosc_header_damage(chunk, how, u, v):
    """Damage of the 16-byte Blosc header of v1.md §5.1-§5.3 -> (new chunk, text)."""
    h = blosc_fields(chunk)
    if how == "version":
        val = pick([x for x in range(256) if x != 2], v)
        return patch(chunk, 0, bytes([val])), "Blosc version byte %d" % val
    if how == "versionlz":
        if memcpyed(chunk):
            raise ValueError("versionlz damage needs a compressed chunk")
        val = pick([x for x in range(256) if x != 1], v)
        return patch(chunk, 1, bytes([val])), "Blosc versionlz byte %d" % val
    if how == "reserved_flag":
        return patch(chunk, 2, bytes([h["flags"] | 0x08])), "Blosc flags bit 3 (reserved) set"
    if how == "typesize0":
        return patch(chunk, 3, b"\0"), "Blosc typesize 0"
    if how == "codec":
        if memcpyed(chunk):
            raise ValueError("codec damage needs a compressed chunk")
        code = pick([5, 6, 7], v)
        return patch(chunk, 2, bytes([(h["flags"] & 0x1F) | (code << 5)])), "Blosc codec format code %d" % code
    if how == "cbytes_small":
        val = pick([-(2 ** 31), -1, 0, 1, 15], v)
        return patch(chunk, 12, struct.pack("<i", val)), "Blosc cbytes %d" % val
    if how == "nbytes_negative":
        val = pick([-(2 ** 31), -65536, -1], v)
        return patch(chunk, 4, struct.pack("<i", val)), "Blosc nbytes %d" % val
    if how == "blocksize_bad":
        if h["nbytes"] <= 0:
            raise ValueError("blocksize damage needs nbytes > 0")
        val = pick([0, -1, h["nbytes"] + 1 + span(0, 1000, u)], v)
        return patch(chunk, 8, struct.pack("<i", val)), "Blosc blocksize %d (nbytes %d)" % (val, h["nbytes"])
    if how == "nbytes_over_limit":
        val = span(2147483632, 2147483647, u)
        return patch(chunk, 4, struct.pack("<i", val)), "Blosc nbytes %d (above 2,147,483,631)" % val
    if how == "memcpy_cbytes":
        if not memcpyed(chunk):
            raise ValueError("memcpy_cbytes damage needs a memcpyed chunk")
        d = span(1, max(1, min(8, h["nbytes"])), u)
        return patch(chunk, 12, struct.pack("<i", h["cbytes"] - d)), "memcpyed chunk with cbytes nbytes + 16 - %d" % d
    raise ValueError(how)
