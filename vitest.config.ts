import { defineConfig } from "vitest/config";

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
  },
});
