"""Superchunk files of format version 2 (spec/v2.md sections 4-7): the 32-byte blpk header, the
metadata section, checksums bound to the global chunk index, the offsets table and one chunk."""

import hashlib
import zlib

from . import jsondialect
from .chunks import NBYTES_LIMIT, check_blosc_header, decode_blosc_body
from .errors import FormatError

MAX_SAFE_INT = 2 ** 53 - 1
MAX_CAPACITY = 65536

# checksum id -> (name, stored size), v2.md section 6
CHECKSUMS = {
    0: ("none", 0), 1: ("adler32", 4), 2: ("crc32", 4), 3: ("md5", 16), 4: ("sha1", 20),
    5: ("sha224", 28), 6: ("sha256", 32), 7: ("sha384", 48), 8: ("sha512", 64),
}


def _is_int(v):
    return type(v) is int


def _i32(buf, off):
    return int.from_bytes(buf[off:off + 4], "little", signed=True)


def _i64(buf, off):
    return int.from_bytes(buf[off:off + 8], "little", signed=True)


def _err(code, path, field, msg):
    return FormatError(code, "%s: %s" % (path, msg), path=path, field=field)


def checksum(cid, data):
    """The checksum `cid` of `data` as the bytes bloscpack stores (before binding)."""
    name, _size = CHECKSUMS[cid]
    if cid == 0:
        return b""
    if cid == 1:
        return (zlib.adler32(data) & 0xFFFFFFFF).to_bytes(4, "little")
    if cid == 2:
        return (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "little")
    return hashlib.new(name, data).digest()


def bind(digest, g):
    """Section 6 "Binding": XOR the first min(size, 8) bytes (little-endian) with g."""
    k = min(len(digest), 8)
    if k == 0:
        return digest
    v = int.from_bytes(digest[:k], "little") ^ (g % (1 << (8 * k)))
    return v.to_bytes(k, "little") + digest[k:]


class Header:
    """A superchunk header that passed section 4.3."""

    def __init__(self, buf):
        self.options = buf[5]
        self.checksum = buf[6]
        self.typesize = buf[7]
        self.chunk_size = _i32(buf, 8)
        self.last_chunk = _i32(buf, 12)
        self.nchunks = _i64(buf, 16)
        self.meta_size = _i32(buf, 24)

    @property
    def has_offsets(self):
        return bool(self.options & 0x01)

    @property
    def has_meta(self):
        return bool(self.options & 0x02)

    @property
    def checksum_size(self):
        return CHECKSUMS[self.checksum][1]


def parse_header(buf, path):
    """Section 4.3, steps 1-8 in order."""
    size = len(buf)
    if size < 16:
        raise _err("TRUNCATED", path, "blpk.header", "file has %d bytes, the header needs 16" % size)
    if buf[0:4] != b"blpk":
        raise _err("BAD_MAGIC", path, "blpk.magic", "magic is %s, not 'blpk'" % buf[0:4].hex())
    if buf[4] != 2:
        raise _err("UNSUPPORTED_VERSION", path, "blpk.version",
                   "blpk version %d where a superchunk (2) is expected" % buf[4])
    if size < 32:
        raise _err("TRUNCATED", path, "blpk.header", "file has %d bytes, the header needs 32" % size)
    h = Header(buf)
    if h.options & 0xFC:
        raise _err("BAD_HEADER", path, "blpk.options", "options 0x%02x has bits 2-7 set" % h.options)
    if h.checksum > 8:
        raise _err("BAD_HEADER", path, "blpk.checksum", "checksum id %d > 8" % h.checksum)
    # step 7, section 4.2
    if h.chunk_size == 0 or h.chunk_size < -1:
        raise _err("BAD_HEADER", path, "blpk.chunk_size", "chunk-size %d" % h.chunk_size)
    if h.chunk_size > NBYTES_LIMIT:
        raise _err("SIZE_LIMIT", path, "blpk.chunk_size", "chunk-size %d over the limit" % h.chunk_size)
    if h.nchunks < -1:
        raise _err("BAD_HEADER", path, "blpk.nchunks", "nchunks %d" % h.nchunks)
    if h.nchunks > MAX_SAFE_INT:
        raise _err("SIZE_LIMIT", path, "blpk.nchunks", "nchunks %d over 2^53 - 1" % h.nchunks)
    if h.nchunks == -1 and h.has_offsets:
        raise _err("BAD_HEADER", path, "blpk.nchunks", "nchunks -1 with an offsets table")
    if h.last_chunk < -1:
        raise _err("BAD_HEADER", path, "blpk.last_chunk", "last-chunk %d" % h.last_chunk)
    if h.last_chunk != -1 and h.chunk_size != -1 and h.last_chunk > h.chunk_size:
        raise _err("BAD_HEADER", path, "blpk.last_chunk",
                   "last-chunk %d > chunk-size %d" % (h.last_chunk, h.chunk_size))
    if h.nchunks == 0 and h.last_chunk not in (0, -1):
        raise _err("BAD_HEADER", path, "blpk.last_chunk",
                   "last-chunk %d with nchunks 0" % h.last_chunk)
    if h.meta_size < 0:
        raise _err("BAD_HEADER", path, "blpk.meta_size", "meta-size %d" % h.meta_size)
    if not h.has_meta and h.meta_size != 0:
        raise _err("BAD_HEADER", path, "blpk.meta_size",
                   "meta-size %d without the metadata option bit" % h.meta_size)
    if h.has_meta and h.meta_size < 2:
        raise _err("BAD_HEADER", path, "blpk.meta_size",
                   "meta-size %d is too small for a JSON object" % h.meta_size)
    if buf[28:32] != b"\0\0\0\0":
        raise _err("BAD_HEADER", path, "blpk.reserved", "reserved bytes %s" % buf[28:32].hex())
    return h


def parse_meta(buf, h, path):
    """Section 5. Returns the metadata object, or None without option bit 1."""
    if not h.has_meta:
        return None
    end = 32 + h.meta_size
    if len(buf) < end:
        raise _err("TRUNCATED", path, "superchunk.meta",
                   "file has %d bytes, the metadata section ends at %d" % (len(buf), end))
    try:
        meta = jsondialect.parse(bytes(buf[32:end]), path)
    except FormatError as exc:
        exc.field = "superchunk.meta"
        raise
    if not isinstance(meta, dict):
        raise _err("BAD_METADATA", path, "superchunk.meta", "metadata section is not an object")
    if "capacity" in meta:
        cap = meta["capacity"]
        if not _is_int(cap) or not 0 <= cap <= MAX_CAPACITY:
            raise _err("BAD_METADATA", path, "superchunk.meta/capacity",
                       "capacity %r is not an integer 0-65536" % (cap,))
    if "first_chunk" in meta:
        fc = meta["first_chunk"]
        if not _is_int(fc) or not 0 <= fc <= MAX_SAFE_INT:
            raise _err("BAD_METADATA", path, "superchunk.meta/first_chunk",
                       "first_chunk %r is not an integer >= 0" % (fc,))
    if "capacity" in meta and h.nchunks != -1 and meta["capacity"] < h.nchunks:
        raise _err("BAD_METADATA", path, "superchunk.meta/capacity",
                   "capacity %d below nchunks %d" % (meta["capacity"], h.nchunks))
    return meta


def table_entries(h, meta):
    if meta is not None and "capacity" in meta:
        return meta["capacity"]
    return h.nchunks


def first_chunk(meta):
    if meta is not None and "first_chunk" in meta:
        return meta["first_chunk"]
    return 0


def read_offsets(buf, h, meta, indices, path):
    """Section 7.1: the table must hold the live entries; each entry in `indices` must point into
    [start of data, file length - 16]. Returns {i: offset}."""
    start = 32 + h.meta_size
    if len(buf) < start + 8 * h.nchunks:
        raise _err("TRUNCATED", path, "offsets",
                   "file has %d bytes, the %d live offsets end at %d"
                   % (len(buf), h.nchunks, start + 8 * h.nchunks))
    data_start = start + 8 * table_entries(h, meta)
    out = {}
    for i in indices:
        off = _i64(buf, start + 8 * i)
        if off < data_start or off > len(buf) - 16:
            raise _err("BAD_HEADER", path, "offsets[%d]" % i,
                       "offset %d outside [%d, %d]" % (off, data_start, len(buf) - 16))
        out[i] = off
    return out


def read_chunk(buf, pos, h, i, is_last, g, path, allowance=NBYTES_LIMIT, check_nbytes=None):
    """Section 7.4 steps 2-5 for the chunk at `pos` of `buf` (a superchunk, or a .next file with
    pos 0). `g` is the global index the checksum is bound to, or None (no metadata section).
    `check_nbytes(nbytes)`, when given, runs after the checksum and before decompression (a
    dataset's section 10.4 rule, section 15.1 item 6). Returns (Blosc header, payload)."""
    if pos + 16 > len(buf):
        raise _err("TRUNCATED", path, "blosc.header", "no room for a Blosc header at %d" % pos)
    # the Blosc header in v1.md section 5.1's order, which includes "its cbytes bytes are in the file"
    bh = check_blosc_header(bytes(buf[pos:pos + 16]), path, allowance, available=len(buf) - pos)
    end = pos + bh.cbytes
    if h.chunk_size != -1:
        if not is_last and bh.nbytes != h.chunk_size:
            raise _err("BAD_HEADER", path, "chunk[%d].nbytes" % i,
                       "chunk %d holds %d bytes, chunk-size is %d" % (i, bh.nbytes, h.chunk_size))
        if is_last and bh.nbytes > h.chunk_size:
            raise _err("BAD_HEADER", path, "chunk[%d].nbytes" % i,
                       "last chunk %d holds %d bytes > chunk-size %d" % (i, bh.nbytes, h.chunk_size))
    csize = h.checksum_size
    if end + csize > len(buf):
        raise _err("TRUNCATED", path, "chunk[%d].checksum" % i,
                   "file ends before the checksum of chunk %d" % i)
    chunk = bytes(buf[pos:end])
    stored = bytes(buf[end:end + csize])
    actual = checksum(h.checksum, chunk)
    if g is not None:
        actual = bind(actual, g)
    if stored != actual:
        exc = _err("CHECKSUM_MISMATCH", path, "chunk[%d].checksum" % i,
                   "chunk %d: stored %s, computed %s" % (i, stored.hex(), actual.hex()))
        exc.expected, exc.actual = stored.hex(), actual.hex()
        raise exc
    if check_nbytes is not None:
        check_nbytes(bh.nbytes)
    return bh, decode_blosc_body(chunk, bh, path)


def read_standalone(buf, path="superchunk"):
    """Read a stand-alone superchunk (section 7.1 both layouts); returns the list of payloads."""
    h = parse_header(buf, path)
    meta = parse_meta(buf, h, path)
    fc = first_chunk(meta)
    bound = h.has_meta
    out = []
    if h.has_offsets:
        offs = read_offsets(buf, h, meta, range(h.nchunks), path)
        for i in range(h.nchunks):
            _bh, payload = read_chunk(buf, offs[i], h, i, i == h.nchunks - 1,
                                      fc + i if bound else None, path)
            out.append(payload)
        return out
    pos = 32 + h.meta_size
    i = 0
    while (h.nchunks == -1 and pos < len(buf)) or i < h.nchunks:
        # with nchunks -1 the last chunk is only known once the walk reaches the end of the file
        bh, payload = read_chunk(buf, pos, h, i, True, fc + i if bound else None, path)
        out.append((bh, payload))
        pos += bh.cbytes + h.checksum_size
        i += 1
    last = len(out) - 1
    for k, (bh, _p) in enumerate(out):
        if k != last and h.chunk_size != -1 and bh.nbytes != h.chunk_size:
            raise _err("BAD_HEADER", path, "chunk[%d].nbytes" % k,
                       "chunk %d holds %d bytes, chunk-size is %d" % (k, bh.nbytes, h.chunk_size))
    return [p for _bh, p in out]
