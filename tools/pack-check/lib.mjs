// Pure checks of the pack-and-install test (no I/O), kept apart so that their own tests can feed
// them bad tarballs and bad bundles and see them fail.

/** The placeholder canonical address of the project (see the root README). */
export const REPOSITORY = "https://github.com/bcolz-ts/bcolz-ts";

/** Packages that may use Node built-ins anywhere (same rule as tools/lint-package.mjs). */
export const NODE_PACKAGES = new Set(["@fmt/cli", "@fmt/conformance", "@fmt/bench", "@fmt/duckdb"]);

/** Data that is shipped on purpose and never scanned for test files (the conformance corpus). */
const DATA_PREFIXES = ["corpus/"];

/**
 * Problems with the file list of one tarball (paths relative to the package root, without the
 * `package/` prefix of npm tarballs): test files, TypeScript sources, source maps, build info,
 * a missing README.md, LICENSE or package.json.
 *
 * @param {string} name package name, for the messages
 * @param {string[]} files
 * @returns {string[]}
 */
export function tarballFileProblems(name, files) {
  const problems = [];
  for (const file of files) {
    if (DATA_PREFIXES.some((prefix) => file.startsWith(prefix))) continue;
    if (/(^|\/)(test|tests|__tests__)\//.test(file) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(file) || /\.(test|spec)\.d\.[cm]?ts$/.test(file))
      problems.push(`${name}: ships a test file: ${file}`);
    else if (/\.[cm]?tsx?$/.test(file) && !/\.d\.[cm]?ts$/.test(file)) problems.push(`${name}: ships a TypeScript source: ${file}`);
    else if (/\.map$/.test(file)) problems.push(`${name}: ships a source map whose sources are not shipped: ${file}`);
    else if (/\.tsbuildinfo$/.test(file)) problems.push(`${name}: ships TypeScript build info: ${file}`);
  }
  for (const required of ["package.json", "README.md", "LICENSE"]) {
    if (!files.includes(required)) problems.push(`${name}: ${required} is missing from the tarball`);
  }
  return problems;
}

/**
 * Problems with the package.json inside a tarball: the metadata every published package carries.
 *
 * @param {string} dir the package's directory in the repository, e.g. "packages/store"
 * @param {Record<string, any>} pkg the packed package.json
 * @returns {string[]}
 */
export function manifestProblems(dir, pkg) {
  const name = pkg.name ?? dir;
  const problems = [];
  const want = (ok, message) => {
    if (!ok) problems.push(`${name}: package.json ${message}`);
  };
  want(typeof pkg.description === "string" && pkg.description.length > 0, "lacks a description");
  want(pkg.license === "BSD-3-Clause", `license is ${JSON.stringify(pkg.license)}, not "BSD-3-Clause"`);
  want(pkg.type === "module", "type must be module");
  want(Array.isArray(pkg.keywords) && pkg.keywords.length > 0, "lacks keywords");
  want(pkg.repository?.url === `git+${REPOSITORY}.git`, `repository.url must be git+${REPOSITORY}.git`);
  want(pkg.repository?.directory === dir, `repository.directory must be ${JSON.stringify(dir)}`);
  want(typeof pkg.homepage === "string" && pkg.homepage.startsWith(REPOSITORY), `homepage must start with ${REPOSITORY}`);
  want(pkg.bugs?.url === `${REPOSITORY}/issues`, `bugs.url must be ${REPOSITORY}/issues`);
  if (jsEntryPoints(pkg).length > 0 || pkg.bin !== undefined) want(pkg.engines?.node === ">=20", 'engines.node must be ">=20"');
  want(pkg.sideEffects !== undefined, "lacks sideEffects");
  want(Array.isArray(pkg.files), "lacks files");
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dep, range] of Object.entries(pkg[field] ?? {})) {
      want(!String(range).startsWith("workspace:"), `${field}.${dep} is still ${range} (pack with pnpm)`);
    }
  }
  for (const [sub, entry] of Object.entries(pkg.exports ?? {})) {
    if (typeof entry === "object" && entry !== null && "development" in entry) problems.push(`${name}: exports["${sub}"] still has the development condition (publishConfig.exports missing)`);
  }
  return problems;
}

/**
 * The import specifiers of a package's JavaScript entry points (wildcard, JSON, Markdown and
 * package.json exports left out).
 *
 * @param {Record<string, any>} pkg a packed package.json
 * @returns {string[]}
 */
export function jsEntryPoints(pkg) {
  const exports = pkg.exports;
  if (exports === undefined) return [];
  const subpaths = typeof exports === "string" || !Object.keys(exports).some((k) => k.startsWith(".")) ? ["."] : Object.keys(exports);
  return subpaths
    .filter((sub) => !sub.includes("*") && !/\.(json|md)$/.test(sub))
    .map((sub) => (sub === "." ? pkg.name : `${pkg.name}/${sub.slice(2)}`));
}

/**
 * The entry points a browser bundle may import: every JavaScript entry of every package except
 * the Node-only packages and the entries whose file is `node.js` or `*-node.js` (the naming rule
 * tools/lint-package.mjs exempts from the browser-safety check).
 *
 * @param {Record<string, any>} pkg a packed package.json
 * @returns {string[]}
 */
export function browserEntryPoints(pkg) {
  if (NODE_PACKAGES.has(pkg.name)) return [];
  return jsEntryPoints(pkg).filter((specifier) => {
    const sub = specifier === pkg.name ? "." : `./${specifier.slice(pkg.name.length + 1)}`;
    const entry = pkg.exports[sub];
    const target = typeof entry === "string" ? entry : (entry?.default ?? entry?.import ?? "");
    return !/(^|\/)([\w-]+-)?node\.js$/.test(target);
  });
}

const NODE_BUILTINS = [
  "assert", "async_hooks", "buffer", "child_process", "cluster", "crypto", "dgram", "dns", "events", "fs", "fs/promises",
  "http", "http2", "https", "module", "net", "os", "path", "perf_hooks", "process", "readline", "stream", "string_decoder",
  "timers", "tls", "tty", "url", "util", "v8", "vm", "worker_threads", "zlib",
];

/**
 * Node built-in modules that a bundle still imports or requires (`node:` specifiers and the bare
 * built-in names), as they appear in the text.
 *
 * @param {string} text bundle source
 * @returns {string[]}
 */
export function nodeImportsIn(text) {
  const found = new Set();
  const builtin = `node:[\\w/]+|${NODE_BUILTINS.map((b) => b.replace("/", "\\/")).join("|")}`;
  const patterns = [
    new RegExp(`\\bfrom\\s*["'](${builtin})["']`, "g"),
    new RegExp(`\\bimport\\s*["'](${builtin})["']`, "g"),
    new RegExp(`\\bimport\\s*\\(\\s*["'](${builtin})["']\\s*\\)`, "g"),
    new RegExp(`\\brequire\\s*\\(\\s*["'](${builtin})["']\\s*\\)`, "g"),
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) found.add(m[1]);
  for (const m of text.matchAll(/["'](node:[\w/]+)["']/g)) found.add(m[1]);
  return [...found].sort();
}

/**
 * The problems arethetypeswrong reports for the resolution modes an ESM-only package supports
 * (node16 from ESM, bundler), from `attw --format json` output.
 *
 * @param {any} report parsed JSON of `attw --format json`
 * @returns {string[]}
 */
export function attwProblems(report) {
  const problems = report?.analysis?.problems;
  if (!Array.isArray(problems)) return [`arethetypeswrong gave no analysis (${JSON.stringify(report).slice(0, 200)})`];
  return problems
    .filter((p) => p.resolutionKind === undefined || p.resolutionKind === "node16-esm" || p.resolutionKind === "bundler")
    .map((p) => `${p.kind}${p.entrypoint ? ` at ${p.entrypoint}` : ""}${p.resolutionKind ? ` (${p.resolutionKind})` : ""}`);
}

/**
 * The entry points a Node program may import: every JavaScript entry except those whose file is
 * `web.js` or `*-web.js` (browser-only, e.g. `@fmt/blosc/pool-web`, typed against the DOM).
 *
 * @param {Record<string, any>} pkg a packed package.json
 * @returns {string[]}
 */
export function nodeEntryPoints(pkg) {
  return jsEntryPoints(pkg).filter((specifier) => {
    const sub = specifier === pkg.name ? "." : `./${specifier.slice(pkg.name.length + 1)}`;
    const entry = pkg.exports[sub];
    const target = typeof entry === "string" ? entry : (entry?.default ?? entry?.import ?? "");
    return !/(^|\/)([\w-]+-)?web\.js$/.test(target);
  });
}

/**
 * The runnable example of a README: the first ```js block after a "## Example" heading.
 *
 * @param {string} readme
 * @returns {string | undefined}
 */
export function readmeExample(readme) {
  const section = readme.split(/^## Example\s*$/m)[1];
  if (section === undefined) return undefined;
  const m = /^```js\n([\s\S]*?)^```$/m.exec(section.split(/^## /m)[0]);
  return m?.[1];
}

/**
 * The publishable packages to pack for `wanted` (names; empty: every publishable package) together
 * with every workspace package they depend on (`dependencies` and `peerDependencies`, transitively),
 * so that the tarballs install from each other without a registry. Private packages are never
 * packed: naming one, or an unknown name, throws; so does a publishable package that depends on a
 * private one. Sorted by name.
 *
 * @param {{ name: string, private?: boolean, dependencies?: Record<string, string>, peerDependencies?: Record<string, string> }[]} manifests
 *   the package.json of every workspace package
 * @param {string[]} wanted
 * @returns {string[]}
 */
export function packClosure(manifests, wanted) {
  const byName = new Map(manifests.map((m) => [m.name, m]));
  const roots = wanted.length > 0 ? wanted : manifests.filter((m) => m.private !== true).map((m) => m.name);
  const chosen = new Set();
  const visit = (name, from) => {
    const m = byName.get(name);
    if (m === undefined) throw new Error(`${name} is not a package of this workspace (publishable ones: ${manifests.filter((x) => x.private !== true).map((x) => x.name).sort().join(", ")})`);
    if (m.private === true) throw new Error(from === undefined ? `${name} is private and is never packed` : `${from} depends on ${name}, which is private`);
    if (chosen.has(name)) return;
    chosen.add(name);
    for (const dep of Object.keys({ ...m.dependencies, ...m.peerDependencies })) if (byName.has(dep)) visit(dep, name);
  };
  for (const name of roots) visit(name, undefined);
  return [...chosen].sort();
}
