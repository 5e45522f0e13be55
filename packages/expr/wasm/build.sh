#!/usr/bin/env bash
# Rebuild the @fmt/expr WebAssembly comparison kernels (tools/wasm/build-module.sh does the work).
#
#   bash wasm/build.sh          writes wasm/compare.wasm and src/wasm/compare.generated.ts
#   bash wasm/build.sh --check  fails if either committed file differs from a rebuild (CI runs this)
set -euo pipefail
# build-module.sh checks the arguments (nothing, or --check).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../../tools/wasm/build-module.sh" packages/expr compare COMPARE "The comparison kernels module" \
  src/wasm/compare.generated.ts "$@" -- compare.c
