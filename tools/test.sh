#!/usr/bin/env bash
# The project's test command (`pnpm test`): build, package lints, freshness checks of committed
# generated files, every vitest test, the API docs build, then one closing summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
pnpm exec turbo run build lint
pnpm --filter @fmt/blosc check:wasm
node tools/gen-meta-types/generate.mjs --check
report="$(mktemp -d)/vitest.json"
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
pnpm exec typedoc --logLevel Warn || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`\nvitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report"
exit $status
