"""Lenient changes of a valid case: changes a reader must accept without changing the values."""
from . import damage as D
from . import v1 as V1


def apply_lenient(fmt, d, len_, files, obj):
    """A change a reader must accept without changing the values (the case stays valid)."""
    files = dict(files)
    kind = len_["kind"]
    u = len_["u"]
    if fmt == 1:
        ca = obj[""]
        if kind == "both_shuffle_bits":
            ks = [k for k, ch in enumerate(ca.chunks) if not D.memcpyed(ch) and D.blosc_fields(ch)["flags"] & 0x01]
            k = D.pick(ks, u)
            path = "data/__%d.blp" % k
            b = files[path]
            files[path] = D.patch(b, 18, bytes([b[18] | 0x04]))
            return files, "%s: Blosc flags 0x%02x -> 0x%02x (bit shuffle bit set next to byte shuffle)" % (path, b[18], b[18] | 0x04)
        if kind == "leftover_extra_rows":
            k = ca.nfull
            extra = D.span(1, ca.chunklen - ca.rest, u)
            path = "data/__%d.blp" % k
            files[path] = V1.BLPK + ca.rows_chunk(k, ca.rest + extra)
            return files, "%s: leftover chunk holds %d rows, meta/sizes needs %d" % (path, ca.rest + extra, ca.rest)
        raise ValueError(kind)
    ca = obj
    if kind == "both_shuffle_bits":
        gs = [g for g in range(ca.N) if not D.memcpyed(ca.chunk(g)) and D.blosc_fields(ca.chunk(g))["flags"] & 0x01]
        g = D.pick(gs, u)
        ch = bytearray(ca.chunk(g))
        old = ch[2]
        ch[2] |= 0x04
        ca.chunk_override[g] = bytes(ch)
        s = g // ca.S + 1
        path = "data/__%d__.bin" % s
        files[path] = ca.superchunk_bytes(s)
        return files, "%s: chunk %d: Blosc flags 0x%02x -> 0x%02x (bit shuffle bit set next to byte shuffle; checksum recomputed)" % (path, g, old, ch[2])
    raise ValueError(kind)
