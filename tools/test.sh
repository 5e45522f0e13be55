#!/usr/bin/env bash
# The project's test command (`pnpm test`): build, lints (ESLint with type-aware rules over the
# workspace, then each package's own), the type check of every test file (tsconfig.tests.json),
# freshness checks of committed generated files, every vitest test (seeded: TEST_SEED, else a fixed
# seed), the API docs build, a short fixed-seed fuzz run of every target (tools/fuzz; findings under
# tools/fuzz/findings), then the summary, ending in one 'N passed, N failed' line.
set -euo pipefail
cd "$(dirname "$0")/.."
# Plain text in logs: no colour codes when the output is not a terminal (FORCE_COLOR keeps them).
if [ ! -t 1 ] && [ -z "${FORCE_COLOR+x}" ]; then export NO_COLOR=1; fi
pnpm exec turbo run build lint typecheck:tests
pnpm --filter @fmt/blosc check:wasm
pnpm --filter @fmt/expr check:wasm
pnpm --filter @fmt/header check:wasm
pnpm --filter @fmt/fs-adapters check:wasm
node tools/gen-meta-types/generate.mjs --check
report="$(mktemp -d)/vitest.json"
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
pnpm exec typedoc --logLevel Warn || status=$?
fuzz_status=0
node tools/fuzz/dist/cli-node.js --inputs 3000 --seed 20261123 --out tools/fuzz/findings || fuzz_status=$?
[ "$fuzz_status" -eq 0 ] || status=$fuzz_status
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`\nfuzz: ${process.argv[2] === "0" ? "0 findings" : "FINDINGS (see above)"}`);
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report" "$fuzz_status"
exit $status
