// Loads @fmt/store from its TypeScript sources in a plain Node process (the kill test's child),
// through Vite's module runner with the same "development" export condition vitest uses.
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

// vite is a dependency of vitest (the workspace's test runner); resolve it from there.
const vitestRequire = createRequire(createRequire(import.meta.url).resolve("vitest/package.json"));
const { createServer, createServerModuleRunner } = await import(pathToFileURL(vitestRequire.resolve("vite")).href);

const conditions = ["development", "module", "import", "default"];

export async function loadStore() {
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
