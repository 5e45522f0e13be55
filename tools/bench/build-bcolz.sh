#!/usr/bin/env bash
# Builds real bcolz 1.2.1 for the store benchmark's bcolz rows (store_bcolz.py) from its sources (a
# checkout of tag 1.2.1 of https://github.com/Blosc/bcolz or the extracted PyPI sdist
# bcolz-1.2.1.tar.gz), copied into a directory of its own, DEST, and built there in place. Nothing
# is installed. DEST defaults to tools/bench/.data/bcolz-1.2.1, where `pnpm bench:store` looks
# (BENCH_BCOLZ names another); an existing DEST is replaced only if this script built it.
#
#   bash tools/bench/build-bcolz.sh SOURCE_DIR [DEST]
#
# Needs /usr/bin/python3 with numpy and its headers (python3-dev), Cython 0.29 (Debian:
# `apt-get install cython3`) and gcc. Two changes to the source make 1.2.1 build today, neither
# touching what it computes or writes:
# - its setup.py asks setuptools_scm for the version (a git checkout or sdist metadata): pinned to
#   1.2.1 instead, and the setuptools_scm requirement dropped;
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
# The release's announcement names it on its first line (later releases name themselves).
[ "$(head -n 2 "$source_dir/ANNOUNCE.rst" 2>/dev/null | tr -d '\r' | grep -c '^Announcing bcolz 1\.2\.1$')" = 1 ] ||
  { echo "build-bcolz: $source_dir is not bcolz 1.2.1 (ANNOUNCE.rst does not begin with 'Announcing bcolz 1.2.1')" >&2; exit 1; }
"$python" -c "import numpy, Cython" 2>/dev/null ||
  { echo "build-bcolz: $python needs numpy and Cython (apt-get install python3-numpy cython3 python3-dev)" >&2; exit 1; }

# DEST is replaced only when it is a build of this script, and never overlaps the sources.
marker=".built-by-build-bcolz"
source_real="$(realpath "$source_dir")"
mkdir -p "$(dirname "$dest")"
dest_real="$(realpath -m "$dest")"
case "$dest_real/" in "$source_real/"*) echo "build-bcolz: DEST $dest lies inside the sources $source_dir" >&2; exit 1 ;; esac
case "$source_real/" in "$dest_real/"*) echo "build-bcolz: the sources $source_dir lie inside DEST $dest" >&2; exit 1 ;; esac
if [ -e "$dest" ]; then
  [ -f "$dest/$marker" ] || { echo "build-bcolz: $dest exists and is not a build of this script (no $marker); remove it first" >&2; exit 1; }
  rm -rf "$dest"
fi
cp -r "$source_dir" "$dest"
rm -rf "$dest/.git" "$dest/build"
touch "$dest/$marker"

"$python" - "$dest/setup.py" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
pinned, n = re.subn(r"use_scm_version=\{.*?\},", "version='1.2.1',", text, flags=re.S)
if n != 1:
    sys.exit("build-bcolz: setup.py has no use_scm_version block to pin")
# setuptools_scm was only needed for the version: its setup_requires entry goes with it.
pinned, n = re.subn(r"\n\s*setup_requires=\[[^\]]*\],", "", pinned)
if n != 1:
    sys.exit("build-bcolz: setup.py has no setup_requires list to drop")
open(path, "w").write(pinned)
PY
echo "version = '1.2.1'" > "$dest/bcolz/version.py"
sed -i 's/\b_xgetbv\b/bcolz_bundled_xgetbv/g' "$dest/c-blosc/blosc/shuffle.c"

echo "build-bcolz: building in $dest (about a minute)"
(cd "$dest" && "$python" setup.py build_ext --inplace > build.log 2>&1) ||
  { echo "build-bcolz: the build failed; see $dest/build.log" >&2; tail -20 "$dest/build.log" >&2; exit 1; }
# setup.py enables the SIMD shuffles only when its CPU probe works, and falls back silently.
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && ! grep -q "AVX2 detected" "$dest/build.log"; then
  echo "build-bcolz: this CPU has AVX2 but the build did not enable it (see $dest/build.log)" >&2
  exit 1
fi

# The benchmark's own child answers: it imports bcolz as the bench will.
reply="$(echo '{"cmd": "versions"}' | BENCH_BCOLZ="$dest" "$python" -W ignore "$here/store_bcolz.py")"
case "$reply" in
  *'"na": null'*) echo "build-bcolz: $reply" ;;
  *) echo "build-bcolz: built, but store_bcolz.py cannot use it: $reply" >&2; exit 1 ;;
esac
