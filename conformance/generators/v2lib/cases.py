"""The cases of conformance/corpus/v2 (see v2_corpus.py for how to run).

main() runs the self-test, registers every case and writes both sets. The parts live in
registry.py (seed, paths, case lists, add_*), selftest.py (spec/v2.md §8 hex examples),
valid_cases.py (synth-valid), broken_cases.py (synth-broken) and output.py (write_set,
provenance texts); their public names stay importable from here.
"""
import os
import shutil

import blosc
import numpy as np

from .broken_cases import B, BASE_DESC, base, broken_cases, hdr, padded, sc1_patch, sc_built, storage_variant
from .output import EXISTING_RULES, PROV_BROKEN, PROV_VALID, write_set
from .registry import (BROKEN, HERE, OUT, REPO, SEED, SPEC, VALID, add_broken, add_carray, add_ctable, add_vlarray,
                       patch, rng_for)
from .selftest import self_test, spec_hex
from .valid_cases import valid_cases

__all__ = ["B", "BASE_DESC", "BROKEN", "EXISTING_RULES", "HERE", "OUT", "PROV_BROKEN", "PROV_VALID", "REPO", "SEED",
           "SPEC", "VALID", "add_broken", "add_carray", "add_ctable", "add_vlarray", "base", "broken_cases", "hdr",
           "main", "padded", "patch", "rng_for", "sc1_patch", "sc_built", "self_test", "spec_hex", "storage_variant",
           "valid_cases", "write_set"]


def main():
    self_test()
    valid_cases()
    broken_cases()
    if os.path.isdir(OUT):
        for s in ("synth-valid", "synth-broken"):
            if os.path.isdir(os.path.join(OUT, s)):
                shutil.rmtree(os.path.join(OUT, s))
    info = {"seed": SEED, "blosc": blosc.blosclib_version.split()[0], "pyblosc": blosc.__version__, "numpy": np.__version__}
    write_set("synth-valid", VALID, [
        "valid format-version-2 datasets built from spec/ alone; expected/*.bin are little-endian C-order values (vlarrays: u64 LE byte length + bytes per element)",
        "cases with derived_from have layouts that only later operations produce and are left out of the write check",
    ], PROV_VALID % info)
    write_set("synth-broken", BROKEN, [
        "each case breaks exactly one rule (rule) and must fail with expect.error; category is the code's class in spec/errors.md",
    ], PROV_BROKEN % info)
    print("synth-valid: %d cases, synth-broken: %d cases" % (len(VALID), len(BROKEN)))
