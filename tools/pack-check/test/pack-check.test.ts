// The pack-and-install test (tools/pack-check/pack-check.mjs) end to end, and its checks fed bad
// tarballs, manifests, bundles and reports, so that a clean run means something.
// Requires the build (`pnpm test` builds first) and the npm registry or npm's cache.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  attwProblems,
  browserEntryPoints,
  jsEntryPoints,
  manifestProblems,
  nodeEntryPoints,
  nodeImportsIn,
  readmeExample,
  REPOSITORY,
  tarballFileProblems,
} from "../lib.mjs";

const good = {
  name: "@fmt/x",
  version: "0.1.0",
  description: "x",
  license: "BSD-3-Clause",
  type: "module",
  keywords: ["bcolz"],
  homepage: `${REPOSITORY}/tree/main/packages/x#readme`,
  repository: { type: "git", url: `git+${REPOSITORY}.git`, directory: "packages/x" },
  bugs: { url: `${REPOSITORY}/issues` },
  engines: { node: ">=20" },
  sideEffects: false,
  files: ["dist", "README.md", "LICENSE"],
  exports: {
    ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
    "./node": { types: "./dist/node.d.ts", default: "./dist/node.js" },
    "./pool": { types: "./dist/pool-node.d.ts", default: "./dist/pool-node.js" },
    "./pool-web": { types: "./dist/pool-web.d.ts", default: "./dist/pool-web.js" },
    "./schemas/*.json": "./schemas/*.json",
  },
  dependencies: { "@fmt/errors": "^0.1.0" },
};

describe("tarball contents", () => {
  const base = ["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"];
  it("accepts dist, README, LICENSE and shipped corpus data", () => {
    expect(tarballFileProblems("@fmt/x", [...base, "corpus/v1/test/case.json"])).toEqual([]);
  });
  it.each([
    ["src/shuffle-forward.test.ts"],
    ["dist/decompress.test.js"],
    ["dist/decompress.test.d.ts"],
    ["test/roundtrip.js"],
    ["src/index.ts"],
    ["dist/index.js.map"],
    ["dist/tsconfig.tsbuildinfo"],
  ])("refuses %s", (file) => {
    expect(tarballFileProblems("@fmt/x", [...base, file])).toHaveLength(1);
  });
  it("wants README.md and LICENSE", () => {
    expect(tarballFileProblems("@fmt/x", ["package.json", "dist/index.js"])).toEqual([
      "@fmt/x: README.md is missing from the tarball",
      "@fmt/x: LICENSE is missing from the tarball",
    ]);
  });
});

describe("packed package.json", () => {
  it("accepts complete metadata", () => {
    expect(manifestProblems("packages/x", good)).toEqual([]);
  });
  it.each([
    ["license", { license: "MIT" }],
    ["workspace range", { dependencies: { "@fmt/errors": "workspace:^" } }],
    ["repository directory", { repository: { ...good.repository, directory: "packages/y" } }],
    ["engines", { engines: undefined }],
    ["keywords", { keywords: [] }],
    ["development condition", { exports: { ".": { development: "./src/index.ts", types: "./dist/index.d.ts", default: "./dist/index.js" } } }],
  ])("refuses a wrong %s", (_, change) => {
    expect(manifestProblems("packages/x", { ...good, ...change })).toHaveLength(1);
  });
});

describe("entry points", () => {
  it("lists JavaScript entries, and splits them into Node and browser ones by file name", () => {
    expect(jsEntryPoints(good)).toEqual(["@fmt/x", "@fmt/x/node", "@fmt/x/pool", "@fmt/x/pool-web"]);
    expect(browserEntryPoints(good)).toEqual(["@fmt/x", "@fmt/x/pool-web"]);
    expect(nodeEntryPoints(good)).toEqual(["@fmt/x", "@fmt/x/node", "@fmt/x/pool"]);
    expect(browserEntryPoints({ ...good, name: "@fmt/cli" })).toEqual([]);
  });
});

describe("Node built-ins in a bundle", () => {
  it("finds node: and bare built-in imports, requires and dynamic imports", () => {
    const text = [
      'import { readFile } from "node:fs/promises";',
      "const w = await import('worker_threads');",
      'const z = require("zlib");',
      'import "path";',
      'const ok = "a path, not an import"; import { x } from "./fs.js";',
    ].join("\n");
    expect(nodeImportsIn(text)).toEqual(["node:fs/promises", "path", "worker_threads", "zlib"]);
    expect(nodeImportsIn('import { x } from "./node.js"; const s = "fs";')).toEqual([]);
  });
});

describe("arethetypeswrong report", () => {
  it("counts only the node16-esm and bundler resolutions", () => {
    const report = {
      analysis: {
        problems: [
          { kind: "NoResolution", entrypoint: ".", resolutionKind: "node10" },
          { kind: "CJSResolvesToESM", entrypoint: ".", resolutionKind: "node16-cjs" },
        ],
      },
    };
    expect(attwProblems(report)).toEqual([]);
    report.analysis.problems.push({ kind: "FalseESM", entrypoint: "./pool", resolutionKind: "node16-esm" });
    expect(attwProblems(report)).toEqual(["FalseESM at ./pool (node16-esm)"]);
    expect(attwProblems({ analysis: { types: false } })).toHaveLength(1);
  });
});

describe("README example", () => {
  it("is the first js block under ## Example", () => {
    const readme = "# x\n```js\nnot this\n```\n## Example\n\ntext\n```sh\nnpm i x\n```\n```js\nconsole.log(1);\n```\n```js\nnot this either\n```\n";
    expect(readmeExample(readme)).toBe("console.log(1);\n");
    expect(readmeExample("# x\n## Example\n```sh\nls\n```\n## Other\n```js\nx\n```\n")).toBeUndefined();
    expect(readmeExample("# x\n```js\nx\n```\n")).toBeUndefined();
  });
});

describe("pack-check end to end", () => {
  it("packs, installs, imports, type-checks and bundles every publishable package cleanly", () => {
    const script = join(import.meta.dirname, "..", "pack-check.mjs");
    const r = spawnSync(process.execPath, [script], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/tsc --moduleResolution node16: clean/);
    expect(r.stdout).toMatch(/tsc --moduleResolution bundler: clean/);
    expect(r.stdout).toMatch(/bundle: \d+ KiB, 0 Node built-ins, round trip ok/);
  }, 600_000);
});
