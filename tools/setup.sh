#!/usr/bin/env bash
# Prepare a fresh machine (Debian + Node 20) for this repository: system packages used as test
# oracles and build tools, pnpm, the workspace's dependencies, and a build of every package.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
/usr/bin/python3 -c "import blosc, numpy" 2>/dev/null || need_apt+=(python3-blosc python3-numpy)
/usr/bin/python3 -c "import numexpr" 2>/dev/null || need_apt+=(python3-numexpr)
/usr/bin/python3 -c "import zarr" 2>/dev/null || need_apt+=(python3-zarr)
command -v clang >/dev/null 2>&1 || need_apt+=(clang)
command -v wasm-ld >/dev/null 2>&1 || need_apt+=(lld)
# Headless browser for tools/remote-tests/test/browser.test.ts (driven through playwright-core,
# which never downloads a browser of its own). The S3 server (s3rver) comes from npm.
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
# Ceph's S3 gateway for tools/remote-tests/test/s3-lock.test.ts (a server that enforces conditional writes).
command -v radosgw >/dev/null 2>&1 || need_apt+=(radosgw ceph-mon ceph-osd)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

want_pnpm="$(node -p 'require("./package.json").packageManager.split("@")[1]')"
if [ "$(pnpm --version 2>/dev/null || true)" != "$want_pnpm" ]; then
  npm install -g "pnpm@$want_pnpm" >/dev/null 2>&1 || npm install -g "pnpm@$want_pnpm"
fi

pnpm install --frozen-lockfile
pnpm run build
