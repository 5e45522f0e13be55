#!/usr/bin/env bash
# Rebuild the @fmt/expr WebAssembly comparison kernels (tools/wasm/build-module.sh does the work).
#
#   bash wasm/build.sh          writes wasm/compare.wasm and src/wasm/compare.generated.ts
#   bash wasm/build.sh --check  fails if either committed file differs from a rebuild (CI runs this)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in
  --check | "") ;;
  *) echo "usage: build.sh [--check]" >&2; exit 2 ;;
esac
exec bash "$here/../../../tools/wasm/build-module.sh" packages/expr compare COMPARE "The comparison kernels module" \
  src/wasm/compare.generated.ts ${1:+"$1"} -- compare.c
