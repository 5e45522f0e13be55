// Imports one TypeScript module from a plain Node script without a build step: the TypeScript
// compiler (a devDependency) strips the types in memory, bare imports (`fast-check`) are resolved
// from here, and the module runs from a temporary folder, next to its relative imports (sibling
// .ts modules such as gen/describe.ts's ./datasets.js, transpiled the same way). Used by
// gen-corpus.mjs and ../rules/generate.mjs, whose logic lives in .ts files that the vitest checks
// import directly.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

/**
 * Imports the TypeScript module at `path` (its relative imports, written `./x.js` as NodeNext
 * wants, must be .ts modules in its folder or below it).
 *
 * Limits: imports are found in the transpiled JavaScript by their `from "…"` clause, in double
 * quotes (the repository's style), so a side-effect `import "./x.js"`, a dynamic `import()`, a
 * single-quoted specifier or a `from "…"` inside a string or comment is not handled; relative
 * imports of anything but .ts modules (.json, .mjs) are not either. The generator modules use
 * none of these.
 */
export async function importTs(path) {
  const out = mkdtempSync(join(tmpdir(), "import-ts-"));
  try {
    writeFileSync(join(out, "package.json"), '{ "type": "module" }\n');
    const file = transpileTree(resolve(path), dirname(resolve(path)), out, new Set());
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Writes the JavaScript of the .ts module `path` and of its relative imports under `out`, at their places relative to `root`; returns its file. */
function transpileTree(path, root, out, done) {
  const rel = relative(root, path);
  if (rel.startsWith("..") || isAbsolute(rel)) throw new Error(`${path}: a relative import outside ${root} is not supported`);
  const file = join(out, rel.replace(/\.ts$/, ".js"));
  if (done.has(file)) return file;
  done.add(file);
  const source = readFileSync(path, "utf8");
  let js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  js = js.replace(/from "([^".][^"]*)"/g, (m, spec) => (spec.startsWith("node:") ? m : `from ${JSON.stringify(import.meta.resolve(spec))}`));
  for (const [, spec] of js.matchAll(/from "(\.\.?\/[^"]*)"/g)) transpileTree(resolve(dirname(path), spec.replace(/\.js$/, ".ts")), root, out, done);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, js);
  return file;
}
