// Imports one TypeScript module from a plain Node script without a build step: the TypeScript
// compiler (a devDependency) strips the types in memory, bare imports (`fast-check`) are resolved
// from here, and the module runs from a temporary file. Used by gen-corpus.mjs and
// ../rules/generate.mjs, whose logic lives in .ts files that the vitest checks import directly.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

/** Imports the TypeScript module at `path` (its relative imports are not supported). */
export async function importTs(path) {
  const source = readFileSync(path, "utf8");
  let js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  js = js.replace(/from "([^".][^"]*)"/g, (m, spec) => (spec.startsWith("node:") ? m : `from ${JSON.stringify(import.meta.resolve(spec))}`));
  const file = join(mkdtempSync(join(tmpdir(), "import-ts-")), "module.mjs");
  writeFileSync(file, js);
  try {
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dirname(file), { recursive: true, force: true });
  }
}
