"""Builds the generated sets from case descriptions (conformance/generators/gen/*.ts writes them).

build_set(set_description, out_dir) writes <out_dir>/<case>/data.bcolz, <case>/expected/ and
manifest.json + PROVENANCE.md. Valid descriptions carry the values; must-fail descriptions carry a
valid `base` and one `damage`. Expected value files are computed from the described values with
numpy, never read back from the written datasets.
"""
import json
import os

import blosc
import numpy as np

from . import v1 as V1
from .damage_apply import apply_damage
from .lenient import apply_lenient
from .v2build import v2_build

MALFORMED = {"TRUNCATED", "BAD_MAGIC", "UNSUPPORTED_VERSION", "BAD_HEADER", "UNKNOWN_CODEC",
             "CORRUPT_STREAM", "SIZE_LIMIT", "BAD_JSON", "MISSING_FILE"}
INVALID = {"CHECKSUM_MISMATCH", "BAD_METADATA", "UNSUPPORTED_DTYPE", "INCONSISTENT", "UNSAFE_NAME"}


def build_case(fmt, c):
    """(files, expected files, manifest entry) of one case description."""
    head = {"name": c["name"], "rootdir": "data.bcolz"}
    if "damage" not in c:
        files, exps, m, obj = (V1.build(c["dataset"]) if fmt == 1 else v2_build(c["dataset"]))
        entry = dict(head)
        entry.update(m)
        entry["files"] = sorted(files)
        entry["ops"] = ["create"]
        if "lenient" in c:
            files, mutation = apply_lenient(fmt, c["dataset"], c["lenient"], files, obj)
            entry["files"] = sorted(files)
            entry["derived_from"] = "gen-valid/" + c["lenient"]["source"]
            entry["mutation"] = mutation
            entry["ops"] = ["create", "mutate: " + c["lenient"]["kind"]]
        entry["rules"] = c["rules"]
        if c.get("write_rules"):
            entry["write_rules"] = c["write_rules"]
        entry["seed"] = c["seed"]
        entry["gen"] = {k: c[k] for k in ("dataset", "lenient") if k in c}
        return files, exps, entry
    base = c["dataset"]
    files, _, _, obj = (V1.build(base) if fmt == 1 else v2_build(base))
    files, mutation = apply_damage(fmt, base, c["damage"], files, obj)
    code = c["expect"]
    cat = "malformed" if code in MALFORMED else "invalid"
    assert cat == c["category"], (c["name"], code, c["category"])
    entry = dict(head)
    entry.update({"category": cat, "expect": {"error": code}, "mutation": mutation, "rules": c["rules"],
                  "seed": c["seed"], "gen": {"dataset": base, "damage": c["damage"]}})
    return files, {}, entry


def write_tree(root, files):
    for rel, data in sorted(files.items()):
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as fh:
            fh.write(data)


def build_set(desc, out_dir):
    fmt = desc["format"]
    os.makedirs(out_dir)
    cases = []
    for c in desc["cases"]:
        try:
            files, exps, entry = build_case(fmt, c)
        except Exception as e:
            raise RuntimeError("v%d/%s/%s: %s" % (fmt, desc["set"], c["name"], e)) from e
        write_tree(os.path.join(out_dir, c["name"], "data.bcolz"), files)
        if "damage" not in c:
            os.makedirs(os.path.join(out_dir, c["name"], "expected"), exist_ok=True)
            write_tree(os.path.join(out_dir, c["name"], "expected"), exps)
        cases.append(entry)
    manifest = {"format": "bcolz corpus manifest v%d" % fmt, "set": desc["set"], "format_version": fmt,
                "seed": desc["seed"],
                "generator": "conformance/generators/gen-corpus.mjs: descriptions by fast-check (conformance/generators/gen/), bytes by conformance/generators/genlib with c-blosc %s via python3-blosc, values by numpy"
                % blosc.blosclib_version.split()[0],
                "notes": desc["notes"], "cases": cases}
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    with open(os.path.join(out_dir, "PROVENANCE.md"), "w", encoding="utf-8") as fh:
        fh.write(PROVENANCE % {"set": desc["set"], "fmt": fmt, "seed": desc["seed"], "blosc": blosc.blosclib_version.split()[0],
                               "numpy": np.__version__, "what": desc["provenance"]})


PROVENANCE = """# Provenance of `v%(fmt)d/%(set)s`

%(what)s

Generated, not hand-made: `node conformance/generators/gen-corpus.mjs` draws every case
description with fast-check from the seed recorded in `manifest.json` (the set's seed
%(seed)d plus the case's position, recorded per case as `seed`; the description itself is kept in
the case's `gen` member), and the Python builder `conformance/generators/genlib` (written from
`spec/` alone, never from `@fmt/store`) turns each description into bytes: chunks compressed by
c-blosc %(blosc)s through python3-blosc (one thread), values and expected value files by numpy
%(numpy)s from the described values. `conformance/generators/gen.test.ts` regenerates the set from
the recorded seeds and fails unless every byte is reproduced.
"""
