"""Writing a set of conformance/corpus/v2: its case folders, manifest.json (with the rule ids of existing-rules.json) and PROVENANCE.md."""
import json
import os

import blosc

from .registry import OUT, SEED

# Spec rule ids each case pins (spec/conformance.md §2.3), kept for every hand-written set in one file.
with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "existing-rules.json"), encoding="utf-8") as _fh:
    EXISTING_RULES = json.load(_fh)


# ------------------------------------------------------------------ output

PROV_VALID = """# Provenance of `v2/synth-valid`

Valid format-version-2 datasets: carrays over every dtype of v1.md §13 (little- and big-endian,
`S`, `U`, `M8[ns]`, N-d rows), every codec (blosclz, lz4, lz4hc, snappy, zlib, zstd), shuffles
0/1/2, every checksum id 0–8, one or many superchunks, `superchunksize` 1 to 64, partial and exact
last chunks, len 0 and 1; the byte-exact worked examples of v2.md §8.1 and §8.3; and the layouts
interrupted or later writes leave, which readers must accept: a relocated chunk with dead space
and a zeroed old Blosc header, a last chunk holding more rows than the length needs, header
`nchunks` above `n_s`, live offsets entries of chunks the length does not need that are out of
range (damage §6.1 makes harmless) or lead to a zeroed slot (v2.md §15.1 item 4), a stale
`last-chunk`, garbage in free offsets entries, slots in any order, an unfinished `.journal` with
`data/__s__.bin.i.next` files, ignored `.next`/`.compact`/extra superchunk files, per-file
checksum ids; vlarrays (utf8, bytes, ragged) alone and as ctable columns; ctables.

Made by `conformance/generators/v2_corpus.py` (run `python3 conformance/generators/v2_corpus.py`;
it re-executes itself with `/usr/bin/python3` when the interpreter lacks python3-blosc). The
generator was written from `spec/` alone (v2.md, v1.md, errors.md, conformance.md,
schemas/v2/) without reading or importing any implementation of this repository. Values come
from `random.Random(%(seed)d + crc32(case name))`; Blosc chunks are compressed by real c-blosc
%(blosc)s through python3-blosc %(pyblosc)s (one thread); superchunk headers, metadata sections,
offsets tables, checksums (Python's zlib and hashlib), spare room and all JSON files are built by
the generator. Expected value files are computed from the chosen values with numpy %(numpy)s, never read
back from the datasets. The generator first checks that it reproduces the hex examples of v2.md
§8.1–§8.3 byte for byte. Rerunning it reproduces this folder byte for byte.

Cases whose layout only a later operation produces carry `derived_from` (so the runner leaves
them out of the write check) and `ops`. Open questions about the spec: see
`conformance/generators/V2-SPEC-QUESTIONS.md`.
"""

PROV_BROKEN = """# Provenance of `v2/synth-broken`

Must-fail format-version-2 datasets: each breaks exactly one rule of v2.md §3–§13 that a reader
checks (every row of the §15 checklist is covered), named in the case's `rule`, with the error
code of errors.md in `expect.error` and the code's class as `category`. Most cases are small
variants of one base carray (`<i4`, len 10, chunklen 4, superchunksize 2, lz4, adler32:
`data/__1__.bin` holds chunks 0 and 1, `data/__2__.bin` chunk 2 with 2 rows); `mutation` says what
differs. Where a rule cannot be broken without also breaking a later check (for example a
`chunk-size` of 0 also contradicts chunklen), the expected code is the one of the check that
v2.md's reader order (§4.3, §15) reaches first. Checksums are recomputed after a mutation of a
chunk so that only the intended rule breaks, unless the checksum is the rule.

Made by `conformance/generators/v2_corpus.py` (seed %(seed)d), written from `spec/` alone, with
c-blosc %(blosc)s through python3-blosc; see `../synth-valid/PROVENANCE.md`. Rerunning it
reproduces this folder byte for byte.
"""


def write_set(setname, cases, notes, prov):
    d = os.path.join(OUT, setname)
    os.makedirs(d)
    manifest = {"format": "bcolz corpus manifest v2", "set": setname, "format_version": 2, "seed": SEED,
                "generator": "conformance/generators/v2_corpus.py (written from spec/ alone; c-blosc %s via python3-blosc)" % blosc.blosclib_version.split()[0],
                "notes": notes, "cases": []}
    names = set()
    for name, files, exps, m in cases:
        assert name not in names, name
        names.add(name)
        root = os.path.join(d, name, "data.bcolz")
        os.makedirs(root)
        for rel, data in sorted(files.items()):
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as fh:
                fh.write(data)
        for sub in ("meta", "data"):
            pass
        ed = os.path.join(d, name, "expected")
        os.makedirs(ed)
        for fname, data in exps.items():
            with open(os.path.join(ed, fname), "wb") as fh:
                fh.write(data)
        ids = EXISTING_RULES.get("v2/%s/%s" % (setname, name))
        if ids is None:
            raise KeyError("no rule ids for v2/%s/%s in existing-rules.json" % (setname, name))
        m.update(ids)
        manifest["cases"].append(m)
    with open(os.path.join(d, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    with open(os.path.join(d, "PROVENANCE.md"), "w", encoding="utf-8") as fh:
        fh.write(prov)
