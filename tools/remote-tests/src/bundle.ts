// Bundles the browser demo (browser/demo.ts and the workspace packages it imports, from their
// TypeScript sources) with esbuild for the browser, and reports which inputs went in, so that a
// test can check that no Node built-in or polyfill is part of the bundle.
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export interface DemoBundle {
  /** The bundled JavaScript (an ES module). */
  code: string;
  /** Every input file esbuild read, relative to the working directory. */
  inputs: string[];
  /** Imports esbuild left unresolved (external); must be empty for a self-contained bundle. */
  externals: string[];
}

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Bundles browser/demo.ts for browsers (ES2022). Node built-ins are not allowed to resolve. */
export async function bundleDemo(): Promise<DemoBundle> {
  const entry = fileURLToPath(new URL("../browser/demo.ts", import.meta.url));
  const externals: string[] = [];
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["development"],
    metafile: true,
    logLevel: "silent",
    plugins: [
      {
        name: "report-node-builtins",
        setup(b) {
          // Record instead of failing so that the test can name every offender at once.
          b.onResolve({ filter: /.*/ }, (args) => {
            if (NODE_BUILTINS.has(args.path)) {
              externals.push(`${args.path} (from ${args.importer})`);
              return { path: args.path, external: true };
            }
            return undefined;
          });
        },
      },
    ],
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("esbuild produced no output");
  return { code: output.text, inputs: Object.keys(result.metafile.inputs), externals };
}
