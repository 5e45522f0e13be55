"""Chunk files: the 16-byte blpk header (v1.md section 4) and the Blosc 1.x container checks
(section 5). Whole Blosc chunks are decompressed by python-blosc (c-blosc) only after every
structural rule of the spec has been checked here."""

import blosc

from .errors import FormatError

NBYTES_LIMIT = 2147483631      # v1.md section 5.8
BLOCKSIZE_LIMIT = 715827542     # v1.md section 5.8
MAX_SPLITS = 16
MIN_SPLIT_ELEMENTS = 128

blosc.set_nthreads(1)


def _i32(buf, off):
    return int.from_bytes(buf[off:off + 4], "little", signed=True)


class BloscHeader:
    """The fields of a checked 16-byte Blosc header (v1.md sections 5.1, 5.2)."""

    def __init__(self, flags, typesize, nbytes, blocksize, cbytes):
        self.flags = flags
        self.typesize = typesize
        self.nbytes = nbytes
        self.blocksize = blocksize
        self.cbytes = cbytes

    @property
    def memcpyed(self):
        return bool(self.flags & 0x02)


def check_blosc_header(h, path, allowance=NBYTES_LIMIT, available=None):
    """Sections 5.1, 5.2, 5.3, 5.4 (table size) and 5.8, in the order v1.md section 5.1 gives;
    `h` is 16 bytes, `available` how many bytes the file holds from the header on (None: not
    checked here)."""
    def err(code, field, msg):
        return FormatError(code, "%s: %s" % (path, msg), path=path, field=field)

    version, versionlz, flags, typesize = h[0], h[1], h[2], h[3]
    memcpyed = bool(flags & 0x02)
    nbytes, blocksize, cbytes = _i32(h, 4), _i32(h, 8), _i32(h, 12)
    if version != 2:
        raise err("UNSUPPORTED_VERSION", "blosc.version", "Blosc version %d, must be 2" % version)
    if flags & 0x08:
        raise err("BAD_HEADER", "blosc.flags", "reserved flag bit 3 is set")
    if nbytes < 0:
        raise err("BAD_HEADER", "blosc.nbytes", "negative nbytes %d" % nbytes)
    if blocksize < 0:
        raise err("BAD_HEADER", "blosc.blocksize", "negative blocksize %d" % blocksize)
    if cbytes < 16:
        raise err("BAD_HEADER", "blosc.cbytes", "cbytes %d < 16" % cbytes)
    if available is not None and cbytes > available:
        raise err("TRUNCATED", "blosc.cbytes",
                  "%d bytes from the Blosc header on, the chunk needs %d" % (available, cbytes))
    if nbytes > NBYTES_LIMIT or nbytes > allowance:
        raise err("SIZE_LIMIT", "blosc.nbytes", "nbytes %d over the limit" % nbytes)
    hdr = BloscHeader(flags, typesize, nbytes, blocksize, cbytes)
    if nbytes == 0:
        return hdr   # an empty chunk: no further field is checked (section 5.1)
    if typesize == 0:
        raise err("BAD_HEADER", "blosc.typesize", "typesize 0")
    if blocksize == 0:
        raise err("BAD_HEADER", "blosc.blocksize", "blocksize 0")
    if blocksize > BLOCKSIZE_LIMIT:
        raise err("SIZE_LIMIT", "blosc.blocksize", "blocksize %d over the limit" % blocksize)
    if blocksize > nbytes:
        raise err("BAD_HEADER", "blosc.blocksize",
                  "blocksize %d outside [1, nbytes=%d]" % (blocksize, nbytes))
    if memcpyed:
        # section 5.3
        if cbytes != nbytes + 16:
            raise err("BAD_HEADER", "blosc.cbytes",
                      "memcpyed chunk with cbytes %d != nbytes + 16 = %d" % (cbytes, nbytes + 16))
        return hdr
    codec = flags >> 5
    if codec > 4:
        raise err("UNKNOWN_CODEC", "blosc.flags.codec", "codec format code %d" % codec)
    if versionlz != 1:
        raise err("UNSUPPORTED_VERSION", "blosc.versionlz", "versionlz %d, must be 1" % versionlz)
    nblocks = -(-nbytes // blocksize)
    if 16 + 4 * nblocks > cbytes:
        raise err("BAD_HEADER", "blosc.bstarts",
                  "%d bstarts do not fit in cbytes %d" % (nblocks, cbytes))
    return hdr


def decode_blosc_body(chunk, hdr, path):
    """Decode the whole Blosc chunk `chunk` (cbytes bytes, header included) whose header `hdr`
    passed check_blosc_header: section 5.3 memcpyed size, 5.4 bstarts, 5.5 streams, then c-blosc."""
    def err(code, field, msg):
        return FormatError(code, "%s: %s" % (path, msg), path=path, field=field)

    nbytes, blocksize, cbytes, typesize = hdr.nbytes, hdr.blocksize, hdr.cbytes, hdr.typesize
    flags = hdr.flags
    if nbytes == 0:
        return b""
    if hdr.memcpyed:
        return chunk[16:16 + nbytes]   # cbytes = nbytes + 16 was checked with the header

    # --- bstarts and streams (sections 5.4, 5.5); the table's size was checked with the header ---
    nblocks = -(-nbytes // blocksize)
    leftover = nbytes % blocksize
    table_end = 16 + 4 * nblocks
    dont_split = bool(flags & 0x10)
    for j in range(nblocks):
        bstart = _i32(chunk, 16 + 4 * j)
        if bstart < table_end or bstart > cbytes - 4:
            raise err("BAD_HEADER", "blosc.bstarts[%d]" % j,
                      "bstart %d outside [%d, %d]" % (bstart, table_end, cbytes - 4))
    for j in range(nblocks):
        is_leftover_block = leftover != 0 and j == nblocks - 1
        bsize = leftover if is_leftover_block else blocksize
        split = (not dont_split and typesize <= MAX_SPLITS
                 and bsize // typesize >= MIN_SPLIT_ELEMENTS and not is_leftover_block)
        nsplits = typesize if split else 1
        pos = _i32(chunk, 16 + 4 * j)
        for s in range(nsplits):
            if pos + 4 > cbytes:
                raise err("TRUNCATED", "blosc.csize",
                          "block %d split %d: size prefix past cbytes" % (j, s))
            csize = _i32(chunk, pos)
            if csize < 0 or pos + 4 + csize > cbytes:
                raise err("TRUNCATED", "blosc.csize",
                          "block %d split %d: csize %d runs past cbytes" % (j, s, csize))
            if csize == 0:
                raise err("CORRUPT_STREAM", "blosc.stream",
                          "block %d split %d: empty stream" % (j, s))
            pos += 4 + csize

    try:
        out = blosc.decompress(chunk)
    except Exception as exc:  # c-blosc reports any decoding failure as an exception
        raise err("CORRUPT_STREAM", "blosc.stream", "a stream does not decode (%s)" % exc)
    if len(out) != nbytes:
        raise err("CORRUPT_STREAM", "blosc.stream",
                  "decoded %d bytes, header says %d" % (len(out), nbytes))
    return out


def decode_chunk_file(buf, path, expected, leftover_max=None, allowance=NBYTES_LIMIT):
    """Check and decode one format-1 chunk file.

    buf          the file's bytes
    path         its path relative to the dataset root, for messages
    expected     the nbytes section 8.1 requires
    leftover_max for the leftover chunk: (atomsize, chunksize) of the section 8.5 leniency
    Returns the decoded payload (bytes of length nbytes).
    """
    def err(code, field, msg):
        return FormatError(code, "%s: %s" % (path, msg), path=path, field=field)

    size = len(buf)
    # --- blpk header (section 4.3) ---
    if size < 16:
        raise err("TRUNCATED", "blpk.header", "file has %d bytes, the blpk header needs 16" % size)
    if buf[0:4] != b"blpk":
        raise err("BAD_MAGIC", "blpk.magic", "magic is %s, not 'blpk'" % buf[0:4].hex())
    if buf[4] != 1:
        raise err("UNSUPPORTED_VERSION", "blpk.version", "blpk version %d (only 1 is read)" % buf[4])
    nchunks = int.from_bytes(buf[8:16], "little", signed=True)
    if nchunks != 1:
        raise err("BAD_HEADER", "blpk.nchunks", "nchunks is %d, must be 1" % nchunks)
    if size < 32:
        raise err("TRUNCATED", "blosc.header", "file has %d bytes, no room for a Blosc header" % size)

    # --- Blosc header, including the file length (section 4.3 step 7, section 5.1's order) ---
    hdr = check_blosc_header(buf[16:32], path, allowance, available=size - 16)
    nbytes, cbytes = hdr.nbytes, hdr.cbytes

    # --- the chunk's size against the metadata (section 8.1, 8.5) ---
    if nbytes != expected:
        ok = False
        if leftover_max is not None:
            atomsize, chunksize = leftover_max
            ok = nbytes > expected and nbytes % atomsize == 0 and nbytes <= chunksize
        if not ok:
            raise err("INCONSISTENT", "blosc.nbytes",
                      "chunk holds %d bytes, metadata require %d" % (nbytes, expected))
    if nbytes == 0:
        return b""
    return decode_blosc_body(bytes(buf[16:16 + cbytes]), hdr, path)
