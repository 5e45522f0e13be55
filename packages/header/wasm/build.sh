#!/usr/bin/env bash
# Rebuild the @fmt/header WebAssembly checksum kernel (tools/wasm/build-module.sh does the work).
#
#   bash wasm/build.sh          writes wasm/checksums.wasm and src/wasm/checksums.generated.ts
#   bash wasm/build.sh --check  fails if either committed file differs from a rebuild (CI runs this)
set -euo pipefail
# build-module.sh checks the arguments (nothing, or --check).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../../tools/wasm/build-module.sh" packages/header checksums CHECKSUMS "The checksum kernels module" \
  src/wasm/checksums.generated.ts "$@" -- checksums.c
