"""How a variant of the Python reader is made (mutants.py lists the variants).

A variant is a small source patch: in one function of pyreader, replace one snippet (which must
occur exactly once) by another; the patched function is compiled in its module's namespace and
swapped in for the original everywhere pyreader refers to it, then restored. A patch whose snippet
no longer matches raises StalePatch, so the list cannot silently go stale when the reader changes.

Apart from the lists of variants (mutants_v1.py, mutants_v2.py) so that they read as the rules
they drop, with the mechanism in one place.
"""

import contextlib
import inspect
import textwrap

from pyreader import chunks, dtypes, jsondialect, reader, reader2, superchunk

MODULES = (chunks, dtypes, jsondialect, reader, reader2, superchunk)


class StalePatch(Exception):
    pass


class Patch:
    """In `module`, function or method `qualname` ("f" or "Class.method"), replace each snippet
    `old` by `new` (pairs old, new, old2, new2, ...). Snippets carry the file's own indentation."""

    def __init__(self, module, qualname, *pairs):
        assert pairs and len(pairs) % 2 == 0
        self.module, self.qualname = module, qualname
        self.pairs = list(zip(pairs[0::2], pairs[1::2]))

    def _target(self):
        owner = self.module
        parts = self.qualname.split(".")
        for part in parts[:-1]:
            owner = getattr(owner, part)
        return owner, parts[-1], vars(owner)[parts[-1]]

    def build(self):
        owner, name, original = self._target()
        src = inspect.getsource(original)
        for old, new in self.pairs:
            count = src.count(old)
            if count != 1:
                raise StalePatch("%s.%s: snippet found %d times, expected once:\n%s"
                                 % (self.module.__name__, self.qualname, count, old))
            src = src.replace(old, new)
        namespace = {}
        code = compile(textwrap.dedent(src), "<variant of %s.%s>" % (self.module.__name__, self.qualname),
                       "exec")
        exec(code, self.module.__dict__, namespace)
        return owner, name, original, namespace[name]


def _swap(original, replacement):
    """Rebind every module-level or class-level name in pyreader bound to `original`."""
    undo = []
    for mod in MODULES:
        for key, value in list(vars(mod).items()):
            if value is original:
                undo.append((mod, key, value))
                setattr(mod, key, replacement)
            elif inspect.isclass(value) and value.__module__ == mod.__name__:
                for attr, member in list(vars(value).items()):
                    if member is original:
                        undo.append((value, attr, member))
                        setattr(value, attr, replacement)
    return undo


class Variant:
    """`equivalent`, when given, says why no dataset can tell the variant from the reader under the
    runner's comparison (error codes, values, metadata); such variants are listed but not scored."""

    def __init__(self, name, rule, *patches, equivalent=None):
        self.name, self.rule, self.patches, self.equivalent = name, rule, patches, equivalent

    @contextlib.contextmanager
    def applied(self):
        undo = []
        try:
            for p in self.patches:
                _owner, _name, original, replacement = p.build()
                undo.extend(_swap(original, replacement))
            yield
        finally:
            for owner, key, value in reversed(undo):
                setattr(owner, key, value)


def check_all_apply(variants):
    for v in variants:
        for p in v.patches:
            p.build()
