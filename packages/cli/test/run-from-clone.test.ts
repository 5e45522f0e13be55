// `pnpm exec bcolz-ts` works at the repository root of a clone (issue 18 item 1): the root
// package.json depends on the workspace CLI package, so pnpm links its bin into the root's
// node_modules/.bin, and the bin is a committed launcher (bin/bcolz-ts.js), not a build output,
// so that the link is made by the install that runs before the first build.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkgDir, "../..");
const cliManifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string; bin: Record<string, string>; files: string[] };
const rootManifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
const dataset = join(repo, "conformance/corpus/v1/bcolz-real/carray_i4_n5000_cl1024/data.bcolz");

const pnpmExec = (...args: string[]) => spawnSync("pnpm", ["exec", "bcolz-ts", ...args], { cwd: repo, encoding: "utf8" });

describe("bcolz-ts from a clone", () => {
  it("the root depends on the workspace CLI, whose bin is a launcher that exists before any build", () => {
    expect(rootManifest.devDependencies?.["@fmt/cli"]).toBe("workspace:*");
    expect(cliManifest.bin["bcolz-ts"]).toBe("./bin/bcolz-ts.js");
    expect(cliManifest.files).toContain("bin");
    expect(readFileSync(join(pkgDir, "bin/bcolz-ts.js"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(existsSync(join(repo, "node_modules/.bin/bcolz-ts"))).toBe(true);
  });

  it("pnpm exec bcolz-ts --version at the root prints the CLI's version", () => {
    const r = pnpmExec("--version");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(cliManifest.version);
  });

  it("pnpm exec bcolz-ts info at the root describes a dataset, exit codes pass through", () => {
    const r = pnpmExec("info", dataset, "--json");
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: "carray", length: 5000 });
    expect(pnpmExec("info", join(repo, "no-such.bcolz")).status).toBe(3);
  });
});
