"""Variants of the Python reader for the corpus's mutation score (mutation_score.py).

Each variant drops one rule of the spec (a check skipped, a field not validated, a checksum not
verified, a leniency the spec forbids) or answers one of the spec's former open questions the
other way. It is written as a small source patch: in one function of pyreader, replace one
snippet (which must occur exactly once) by another; the patched function is compiled in its
module's namespace and swapped in for the original everywhere pyreader refers to it, then
restored. A patch whose snippet no longer matches raises StalePatch, so the list cannot silently
go stale when the reader changes.

The list was drawn from the MUSTs of spec/v1.md, spec/v2.md and spec/errors.md, not tuned to
what the corpus catches.

The patch mechanism is in mutants_patch.py, the variants in mutants_v1.py (JSON dialect, v1
metadata, ctables, chunk files and Blosc containers) and mutants_v2.py (format version 2); this
module joins them, in that order, into the one list mutation_score.py runs, and keeps the names
mutation_score.py uses (VARIANTS, check_all_apply, StalePatch).
"""

# The names this module had before the split (mutation_score.py uses StalePatch, check_all_apply).
from mutants_patch import MODULES, Patch, StalePatch, Variant, check_all_apply  # noqa: F401
import mutants_v1
import mutants_v2

P = Patch

VARIANTS = mutants_v1.VARIANTS + mutants_v2.VARIANTS
