#!/usr/bin/env bash
# Builds real bcolz 1.2.1 for the store benchmark's bcolz rows (store_bcolz.py), in place, from its
# source: a checkout of tag 1.2.1 of https://github.com/Blosc/bcolz or the extracted PyPI sdist
# bcolz-1.2.1.tar.gz. Nothing is installed; the build lands in DEST (default
# tools/bench/.data/bcolz-1.2.1, where `pnpm bench:store` looks; BENCH_BCOLZ names another).
#
#   bash tools/bench/build-bcolz.sh SOURCE_DIR [DEST]
#
# Needs /usr/bin/python3 with numpy and its headers (python3-dev), Cython 0.29 (Debian:
# `apt-get install cython3`) and gcc. Two changes to the source make 1.2.1 build today, neither
# touching what it computes or writes:
# - its setup.py asks setuptools_scm for the version (a git checkout or sdist metadata): pinned to
#   1.2.1 instead;
# - its bundled c-blosc 1.14.3 defines a helper named `_xgetbv` (shuffle.c), which GCC 8 and later
#   declare themselves in <immintrin.h>: renamed.
# numpy 1.24 removed aliases such as `np.float` that bcolz 1.2.1 uses; store_bcolz.py puts them
# back before importing it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="${1:?usage: bash tools/bench/build-bcolz.sh SOURCE_DIR [DEST] (SOURCE_DIR: bcolz 1.2.1 sources)}"
dest="${2:-$here/.data/bcolz-1.2.1}"
python=/usr/bin/python3

[ -f "$source_dir/setup.py" ] && [ -d "$source_dir/bcolz" ] && [ -f "$source_dir/c-blosc/blosc/shuffle.c" ] ||
  { echo "build-bcolz: $source_dir does not look like bcolz sources (setup.py, bcolz/, c-blosc/)" >&2; exit 1; }
grep -q "1\.2\.1" "$source_dir/RELEASE_NOTES.rst" ||
  { echo "build-bcolz: $source_dir is not bcolz 1.2.1 (RELEASE_NOTES.rst does not name it)" >&2; exit 1; }
"$python" -c "import numpy, Cython" 2>/dev/null ||
  { echo "build-bcolz: $python needs numpy and Cython (apt-get install python3-numpy cython3 python3-dev)" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
cp -r "$source_dir" "$dest"
rm -rf "$dest/.git" "$dest/build"

"$python" - "$dest/setup.py" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
pinned, n = re.subn(r"use_scm_version=\{.*?\},", "version='1.2.1',", text, flags=re.S)
if n != 1:
    sys.exit("build-bcolz: setup.py has no use_scm_version block to pin")
pinned = pinned.replace("setup_requires=", "_setup_requires_not_needed=")
open(path, "w").write(pinned)
PY
echo "version = '1.2.1'" > "$dest/bcolz/version.py"
sed -i 's/\b_xgetbv\b/bcolz_bundled_xgetbv/g' "$dest/c-blosc/blosc/shuffle.c"

echo "build-bcolz: building in $dest (about a minute)"
(cd "$dest" && "$python" setup.py build_ext --inplace > build.log 2>&1) ||
  { echo "build-bcolz: the build failed; see $dest/build.log" >&2; tail -20 "$dest/build.log" >&2; exit 1; }

# The benchmark's own child answers: it imports bcolz as the bench will.
reply="$(echo '{"cmd": "versions"}' | BENCH_BCOLZ="$dest" "$python" -W ignore "$here/store_bcolz.py")"
case "$reply" in
  *'"na": null'*) echo "build-bcolz: $reply" ;;
  *) echo "build-bcolz: built, but store_bcolz.py cannot use it: $reply" >&2; exit 1 ;;
esac
