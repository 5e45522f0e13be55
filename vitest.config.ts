import { defineConfig } from "vitest/config";

// No colour codes when the output is not a terminal (CI logs, `| cat`): tinyrainbow, vitest's
// colour library, colours whenever TERM is not "dumb", even into a pipe. NO_COLOR reaches the test
// workers (forked after this file runs); the reporter in this process has built its coloured
// strings already, so its colour sequences (SGR only) are dropped on the way out of a stream that
// is not a terminal. FORCE_COLOR (any value) keeps the colours.
if (process.env.FORCE_COLOR === undefined) {
  if (!process.stdout.isTTY) process.env.NO_COLOR = "1";
  const sgr = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.isTTY) continue;
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = (chunk: unknown, ...rest: unknown[]) => write(typeof chunk === "string" ? chunk.replace(sgr, "") : chunk, ...rest);
  }
}

// Tests import workspace packages through the "development" export condition, which points at
// TypeScript sources, so `pnpm test` needs no build step.
export default defineConfig({
  resolve: { conditions: ["development", "module", "import", "default"] },
  // The AWS SDK's "module" builds (picked by these conditions) use extensionless imports that
  // only a bundler resolves; Node's own "node" condition picks their CommonJS builds instead.
  ssr: { resolve: { conditions: ["development", "node", "import", "default"], externalConditions: ["node"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts", "conformance/**/*.test.ts", "tools/*/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Seeds every randomised test (TEST_SEED, else a fixed seed) and prints the seed on failure.
    setupFiles: ["tools/test-seed.ts"],
  },
});
