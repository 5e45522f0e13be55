// Loads @fmt/store from its TypeScript sources in a plain Node process (the kill test's child),
// through Vite's module runner with the same "development" export condition vitest uses. When
// the parent test has bundled the sources once (bundle-store.mjs) and names the bundle's
// directory in FMT_STORE_BUNDLE, the child imports that instead: the same sources, loaded in
// milliseconds rather than half a second, which matters for tests that start hundreds of children.
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const conditions = ["development", "module", "import", "default"];

export async function loadStore() {
  const bundle = process.env.FMT_STORE_BUNDLE;
  if (bundle) {
    const store = await import(pathToFileURL(join(bundle, "store.mjs")).href);
    const fsAdapters = await import(pathToFileURL(join(bundle, "fs-adapters-node.mjs")).href);
    return { store, fsAdapters, close: async () => {} };
  }
  // vite is a dependency of vitest (the workspace's test runner); resolve it from there.
  const vitestRequire = createRequire(createRequire(import.meta.url).resolve("vitest/package.json"));
  const { createServer, createServerModuleRunner } = await import(pathToFileURL(vitestRequire.resolve("vite")).href);
  const server = await createServer({
    configFile: false,
    logLevel: "silent",
    root: fileURLToPath(new URL("../../../..", import.meta.url)),
    server: { middlewareMode: true, hmr: false, watch: null },
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: conditions } },
  });
  const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
  const store = await runner.import(fileURLToPath(new URL("../../src/index.ts", import.meta.url)));
  const fsAdapters = await runner.import(fileURLToPath(new URL("../../../fs-adapters/src/node.ts", import.meta.url)));
  return { store, fsAdapters, close: async () => { await runner.close(); await server.close(); } };
}
