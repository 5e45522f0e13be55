#!/usr/bin/env bash
# Rebuild the @fmt/fs-adapters WebAssembly module of the write thread's ring checksum
# (tools/wasm/build-module.sh does the work). Its memory is imported and shared: the ring itself.
# The module keeps nothing in it (no stack, no data: global base 0) and asks for one page at least;
# its stack-size=0 comes after build-module.sh's own stack size, and the last one given wins.
#
#   bash wasm/build.sh          writes wasm/ring_checksum.wasm and src/wasm/ring-checksum.generated.ts
#   bash wasm/build.sh --check  fails if either committed file differs from a rebuild (CI runs this)
set -euo pipefail
# build-module.sh checks the arguments (nothing, or --check).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../../tools/wasm/build-module.sh" packages/fs-adapters ring_checksum RING_CHECKSUM "The write thread's ring checksum module" \
  src/wasm/ring-checksum.generated.ts "$@" -- ring_checksum.c \
  -matomics -Wl,--import-memory -Wl,--shared-memory -Wl,--max-memory=4294967296 -Wl,-z,stack-size=0 -Wl,--global-base=0 -Wl,--initial-memory=65536
