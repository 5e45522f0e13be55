"""Byte-level building blocks of format version 2 (spec/v2.md), written from the spec text alone.

Nothing here reads datasets back; everything is built forward from chosen values.
"""
import hashlib
import json
import math
import struct
import zlib

import blosc  # python3-blosc (c-blosc 1.21.x); output is deterministic for one version and 1 thread

blosc.set_nthreads(1)  # blocks are stored in completion order (v1 §5.4): one thread keeps it fixed

# ---------------------------------------------------------------- JSON (v1 §9.2)

def jdump(obj):
    """v1 §9.2 dialect (Python json.dumps defaults) + one newline, as bytes."""
    return (json.dumps(obj) + "\n").encode("ascii")


# ---------------------------------------------------------------- checksums (v2 §6)

CHECKSUM_NAMES = ["none", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512"]
CHECKSUM_SIZE = [0, 4, 4, 16, 20, 28, 32, 48, 64]


def raw_checksum(cid, data):
    if cid == 0:
        return b""
    if cid == 1:
        return struct.pack("<I", zlib.adler32(data) & 0xFFFFFFFF)
    if cid == 2:
        return struct.pack("<I", zlib.crc32(data) & 0xFFFFFFFF)
    return hashlib.new(CHECKSUM_NAMES[cid], data).digest()


def bind(raw, g):
    """§6 binding: first min(size, 8) bytes as LE unsigned XOR g mod 2^(8n); rest unchanged."""
    n = min(len(raw), 8)
    if n == 0:
        return raw
    v = int.from_bytes(raw[:n], "little") ^ (g % (1 << (8 * n)))
    return v.to_bytes(n, "little") + raw[n:]


# ---------------------------------------------------------------- Blosc chunks (v1 §5)

def compress(data, typesize, clevel, shuffle, cname):
    if typesize > 255:
        typesize = 1
    return blosc.compress(bytes(data), typesize=typesize, clevel=clevel, shuffle=shuffle, cname=cname)


def memcpy_chunk(data, typesize, flags=0x33):
    """A memcpyed Blosc chunk built by hand (v1 §5.3)."""
    n = len(data)
    return struct.pack("<BBBBiii", 2, 1, flags, typesize, n, max(n, 1), n + 16) + bytes(data)


def chunk_nbytes(chunk):
    return struct.unpack_from("<i", chunk, 4)[0]


def spare_bytes(cbytes, spare_pct, chunk_size):
    """§7.3."""
    return min(math.ceil(cbytes * spare_pct / 100), max(0, chunk_size + 16 - cbytes))


# ---------------------------------------------------------------- superchunk files (v2 §4-§7)

def meta_section(meta, extra_ws=b"", align=True):
    """§5: JSON object (v1 §9.2), then spaces up to 32 + meta-size ≡ 0 mod 8."""
    text = json.dumps(meta).encode("ascii") + extra_ws
    if align:
        text += b" " * ((-(32 + len(text))) % 8)
    return text


def superchunk(chunks, *, cid, typesize, chunk_size, spare_pct=0, first_chunk=0, capacity=None,
               meta=None, meta_raw=None, options=0x03, nchunks=None, last_chunk=None,
               meta_size=None, reserved=b"\0\0\0\0", version=2, magic=b"blpk",
               order=None, free_fill=None, stored_checksum=None, offsets_override=None,
               spare_cs=None, bind_base=None):
    """Build one superchunk file.

    chunks: list of Blosc chunks, local index 0..len-1 (all written as slots).
    options bit 1 -> metadata section (meta dict, default {"capacity", "first_chunk"}) and binding.
    Returns (bytes, info) with info["offsets"] (list), info["table_off"], info["slot"] {i: (off, len)}.
    """
    has_meta = bool(options & 0x02) or meta_raw is not None
    if nchunks is None:
        nchunks = len(chunks)
    if capacity is None:
        capacity = nchunks if not has_meta else len(chunks)
    if meta_raw is None and has_meta:
        if meta is None:
            meta = {"capacity": capacity, "first_chunk": first_chunk}
        meta_raw = meta_section(meta)
    if meta_raw is None:
        meta_raw = b""
    if meta_size is None:
        meta_size = len(meta_raw)
    if last_chunk is None:
        last_chunk = chunk_nbytes(chunks[nchunks - 1]) if 0 < nchunks <= len(chunks) else 0
    if spare_cs is None:
        spare_cs = chunk_size
    if bind_base is None:
        bind_base = first_chunk
    ntable = capacity if options & 0x01 else 0
    table_off = 32 + len(meta_raw)
    pos = table_off + 8 * ntable
    offsets = [-1] * ntable
    if free_fill is not None:
        for k in range(nchunks, ntable):
            offsets[k] = free_fill
    body = bytearray()
    slot = {}
    for i in (order if order is not None else range(len(chunks))):
        c = chunks[i]
        raw = raw_checksum(cid, c)
        st = bind(raw, bind_base + i) if has_meta else raw
        if stored_checksum is not None:
            st = stored_checksum(i, c, raw, st)
        sp = spare_bytes(len(c), spare_pct, spare_cs)
        if i < ntable:
            offsets[i] = pos
        slot[i] = (pos, len(c) + len(st) + sp)
        body += c + st + b"\0" * sp
        pos += len(c) + len(st) + sp
    if offsets_override:
        for k, v in offsets_override.items():
            offsets[k] = v
    head = magic + bytes([version, options, cid, typesize & 0xFF]) + struct.pack(
        "<iiqi", chunk_size, last_chunk, nchunks, meta_size) + reserved
    table = b"".join(struct.pack("<q", o) for o in offsets)
    out = head + meta_raw + table + bytes(body)
    return out, {"offsets": offsets, "table_off": table_off, "slot": slot, "meta_size": meta_size}


def relocate(buf, info, i, new_chunk, *, cid, g, spare_pct, chunk_size, zero_old=True, has_meta=True):
    """§13.5: append a new slot for local chunk i, rewrite entry i, zero the old Blosc header."""
    buf = bytearray(buf)
    old = info["offsets"][i]
    raw = raw_checksum(cid, new_chunk)
    st = bind(raw, g) if has_meta else raw
    sp = spare_bytes(len(new_chunk), spare_pct, chunk_size)
    new_off = len(buf)
    buf += new_chunk + st + b"\0" * sp
    struct.pack_into("<q", buf, info["table_off"] + 8 * i, new_off)
    if zero_old:
        buf[old:old + 16] = b"\0" * 16
    info = dict(info)
    info["offsets"] = list(info["offsets"])
    info["offsets"][i] = new_off
    return bytes(buf), info


def set_header(buf, *, chunk_size=None, last_chunk=None, nchunks=None):
    buf = bytearray(buf)
    if chunk_size is not None:
        struct.pack_into("<i", buf, 8, chunk_size)
    if last_chunk is not None:
        struct.pack_into("<i", buf, 12, last_chunk)
    if nchunks is not None:
        struct.pack_into("<q", buf, 16, nchunks)
    return bytes(buf)


def next_file(chunk, cid, g, has_meta=True):
    """§13.4: data/__s__.bin.i.next = Blosc chunk + its checksum, bound as the superchunk."""
    raw = raw_checksum(cid, chunk)
    return chunk + (bind(raw, g) if has_meta else raw)
