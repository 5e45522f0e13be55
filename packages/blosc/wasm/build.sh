#!/usr/bin/env bash
# Rebuild the @fmt/blosc WebAssembly kernels (tools/wasm/build-module.sh does the work).
#
#   bash wasm/build.sh          writes wasm/kernels.wasm and src/wasm/kernels.generated.ts
#   bash wasm/build.sh --check  rebuilds into a temporary directory and fails if either committed
#                               file differs from the rebuild (CI runs this)
set -euo pipefail
# build-module.sh checks the arguments (nothing, or --check).
exec bash "$(dirname "${BASH_SOURCE[0]}")/../../../tools/wasm/build-module.sh" packages/blosc kernels KERNELS "The SIMD kernels module" \
  src/wasm/kernels.generated.ts "$@" -- filters.c lz4.c blosclz.c kernels.c zstd_seq.c compare_planes.c
