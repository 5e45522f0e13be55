// The AWS SDK is an optional peer dependency: the root and node entry points never load it, and the
// S3 entry point without it fails with a typed error that says what to install. Checked on the
// built files (dist/, as a user gets them) in child processes whose module resolution refuses
// every `@aws-sdk/*` package, as on a machine where the SDK is not installed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
};

// Resolution hooks (node:module register) that answer every `@aws-sdk/*` specifier the way Node
// answers a package that is not installed.
const HOOKS = `
export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith("@aws-sdk/")) {
    const error = new Error(\`Cannot find package '\${specifier}' imported from \${context.parentURL}\`);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return nextResolve(specifier, context);
}
`;

// Imports the entry points named on the command line (through the package's own exports, so that
// the published "default" files are used) and prints what happened to each as JSON.
const PROBE = `
const out = {};
for (const entry of process.argv.slice(1)) {
  try {
    const m = await import(entry);
    out[entry] = { ok: true, exports: Object.keys(m).sort() };
  } catch (e) {
    out[entry] = { ok: false, name: e?.constructor?.name, code: e?.code, field: e?.field, message: String(e?.message) };
  }
}
process.stdout.write(JSON.stringify(out));
`;

interface Outcome {
  ok: boolean;
  exports?: string[];
  name?: string;
  code?: string;
  field?: string;
  message?: string;
}

let work: string;
let register: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "fmt-optional-sdk-"));
  writeFileSync(join(work, "hooks.mjs"), HOOKS);
  register = join(work, "register.mjs");
  writeFileSync(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(work, "hooks.mjs")).href)});\n`);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the probe from the package directory (self-reference by name), with or without the SDK. */
function probe(entries: string[], withoutSdk: boolean): Record<string, Outcome> {
  const args = [...(withoutSdk ? ["--import", pathToFileURL(register).href] : []), "--input-type=module", "--eval", PROBE, "--", ...entries];
  const r = spawnSync(process.execPath, args, { cwd: pkgDir, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, Outcome>;
}

/** Every module a built file reaches through static and dynamic imports: relative files followed, packages listed. */
function reachable(file: string, seen = new Set<string>(), packages = new Set<string>()): Set<string> {
  if (seen.has(file)) return packages;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
    const spec = m[1]!;
    if (spec.startsWith(".")) reachable(resolve(dirname(file), spec), seen, packages);
    else packages.add(spec);
  }
  return packages;
}

describe("@aws-sdk/client-s3 is an optional peer dependency", () => {
  it("is declared as an optional peer (and a devDependency for the tests), not a dependency", () => {
    expect(manifest.dependencies?.["@aws-sdk/client-s3"]).toBeUndefined();
    expect(manifest.peerDependencies?.["@aws-sdk/client-s3"]).toMatch(/^\^3\./);
    expect(manifest.peerDependenciesMeta?.["@aws-sdk/client-s3"]?.optional).toBe(true);
    expect(manifest.devDependencies?.["@aws-sdk/client-s3"]).toBe(manifest.peerDependencies?.["@aws-sdk/client-s3"]);
  });

  it("the built root, node, http and http-node entry points import nothing from @aws-sdk", () => {
    for (const entry of ["index.js", "node.js", "http.js", "http-node.js"]) {
      const packages = [...reachable(join(pkgDir, "dist", entry))];
      expect(packages.filter((p) => p.startsWith("@aws-sdk/")), entry).toEqual([]);
    }
    expect([...reachable(join(pkgDir, "dist", "s3.js"))]).toContain("@aws-sdk/client-s3");
  });

  it("without the SDK, the root, node, http and http-node entry points load and work", () => {
    const got = probe(["@fmt/fs-adapters", "@fmt/fs-adapters/node", "@fmt/fs-adapters/http", "@fmt/fs-adapters/http-node"], true);
    expect(got["@fmt/fs-adapters"]).toMatchObject({ ok: true });
    expect(got["@fmt/fs-adapters"]!.exports).toContain("MemoryStore");
    expect(got["@fmt/fs-adapters/node"]!.exports).toContain("FileSystemStore");
    expect(got["@fmt/fs-adapters/http"]!.exports).toContain("HttpStore");
    expect(got["@fmt/fs-adapters/http-node"]!.exports).toEqual(expect.arrayContaining(["nodeHttpTransport", "httpStoreForNode"]));
  });

  it("without the SDK, the S3 entry point fails with a UsageError that says what to install", () => {
    const got = probe(["@fmt/fs-adapters/s3"], true)["@fmt/fs-adapters/s3"]!;
    expect(got).toMatchObject({ ok: false, name: "UsageError", code: "INVALID_ARGUMENT", field: "@aws-sdk/client-s3" });
    expect(got.message).toContain(`npm install @aws-sdk/client-s3@${manifest.peerDependencies?.["@aws-sdk/client-s3"]}`);
    expect(got.message).toContain("optional peer dependency of @fmt/fs-adapters");
  });

  it("with the SDK installed, the S3 entry point loads", () => {
    const got = probe(["@fmt/fs-adapters/s3"], false)["@fmt/fs-adapters/s3"]!;
    expect(got).toMatchObject({ ok: true });
    expect(got.exports).toContain("S3Store");
  });
});
