// Bundles the TypeScript sources of @fmt/store and @fmt/fs-adapters/node (with the "development"
// export condition, as vitest and load-store.mjs resolve them) into DIR/store.mjs and
// DIR/fs-adapters-node.mjs, sharing one copy of every common module, for load-store.mjs's
// FMT_STORE_BUNDLE. A test that starts many child processes calls this once (about a second).
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const conditions = ["development", "module", "import", "default"];

/** Writes the bundle into `outDir` (emptied first). */
export async function bundleStore(outDir) {
  const vitestRequire = createRequire(createRequire(import.meta.url).resolve("vitest/package.json"));
  const { build } = await import(pathToFileURL(vitestRequire.resolve("vite")).href);
  const source = (path) => fileURLToPath(new URL(path, import.meta.url));
  await build({
    configFile: false,
    logLevel: "silent",
    root: fileURLToPath(new URL("../../../..", import.meta.url)),
    resolve: { conditions },
    ssr: { noExternal: true, resolve: { conditions, externalConditions: conditions } },
    build: {
      ssr: true,
      outDir,
      emptyOutDir: true,
      minify: false,
      target: "node20",
      rollupOptions: {
        input: { store: source("../../src/index.ts"), "fs-adapters-node": source("../../../fs-adapters/src/node.ts") },
        output: { format: "es", entryFileNames: "[name].mjs", chunkFileNames: "[name]-[hash].mjs" },
      },
    },
  });
}
