// `pnpm pack:public` (tools/pack-public.mjs): which packages it packs, and that the tarballs of
// @fmt/store and @fmt/fs-adapters install into a fresh npm project outside the workspace with
// their @fmt dependencies resolved from each other, not from a registry.
// Requires the build (`pnpm test` builds first) and the third-party dependencies in npm's cache
// (or the registry, when the cache lacks them).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packClosure } from "../lib.mjs";

const root = join(import.meta.dirname, "..", "..", "..");
const work = mkdtempSync(join(tmpdir(), "bcolz-ts-pack-public-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Manifest = Parameters<typeof packClosure>[0][number];

describe("packClosure", () => {
  const manifests: Manifest[] = [
    { name: "@fmt/errors" },
    { name: "@fmt/meta", dependencies: { "@fmt/errors": "workspace:^" } },
    { name: "@fmt/store", dependencies: { "@fmt/meta": "workspace:^", "fflate": "^0.8.2" } },
    { name: "@fmt/adapters", dependencies: { "@fmt/errors": "workspace:^" }, peerDependencies: { "@aws-sdk/client-s3": "^3.0.0" } },
    { name: "@fmt/bench", private: true, dependencies: { "@fmt/store": "workspace:*" } },
    { name: "@fmt/leaky", dependencies: { "@fmt/bench": "workspace:*" } },
  ];
  it("packs the named packages and the workspace packages they depend on, never third-party ones", () => {
    expect(packClosure(manifests, ["@fmt/store"])).toEqual(["@fmt/errors", "@fmt/meta", "@fmt/store"]);
    expect(packClosure(manifests, ["@fmt/adapters", "@fmt/meta"])).toEqual(["@fmt/adapters", "@fmt/errors", "@fmt/meta"]);
  });
  it("packs every publishable package when none is named, and never a private one", () => {
    const safe = manifests.filter((m) => m.name !== "@fmt/leaky");
    expect(packClosure(safe, [])).toEqual(["@fmt/adapters", "@fmt/errors", "@fmt/meta", "@fmt/store"]);
  });
  it("refuses a private package, one that depends on a private package, and an unknown name", () => {
    expect(() => packClosure(manifests, ["@fmt/bench"])).toThrow(/private and is never packed/);
    expect(() => packClosure(manifests, ["@fmt/leaky"])).toThrow(/@fmt\/leaky depends on @fmt\/bench, which is private/);
    expect(() => packClosure(manifests, ["@fmt/nope"])).toThrow(/not a package of this workspace/);
  });
});

function run(command: string, args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

describe("pack:public end to end", () => {
  it("packs @fmt/store and @fmt/fs-adapters with their @fmt dependencies; they install and import outside the workspace", () => {
    const packs = join(work, "packs");
    const packed = run(process.execPath, [join(root, "tools", "pack-public.mjs"), "--out", packs, "@fmt/store", "@fmt/fs-adapters"], root);
    expect(packed.status, `${packed.stdout}\n${packed.stderr}`).toBe(0);
    const tarballs = readdirSync(packs).sort();
    expect(tarballs.map((f) => f.replace(/-\d+\.\d+\.\d+.*\.tgz$/, ""))).toEqual([
      "fmt-blosc",
      "fmt-errors",
      "fmt-expr",
      "fmt-fs-adapters",
      "fmt-header",
      "fmt-meta",
      "fmt-store",
    ]);
    expect(packed.stdout).toContain("npm install");

    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "app", private: true, type: "module" })}\n`);
    const flags = ["install", "--no-audit", "--no-fund", "--loglevel=error"];
    const files = tarballs.map((f) => join(packs, f));
    // Offline first (only npm's cache); the registry only when the cache lacks a third-party package.
    let installed = run("npm", [...flags, "--offline", ...files], app);
    if (installed.status !== 0 && /ENOTCACHED/.test(installed.stderr)) installed = run("npm", [...flags, "--prefer-offline", ...files], app);
    expect(installed.status, installed.stderr).toBe(0);
    // The AWS SDK is an optional peer of @fmt/fs-adapters: a local-disk install goes without it.
    expect(existsSync(join(app, "node_modules", "@aws-sdk"))).toBe(false);

    writeFileSync(
      join(app, "use.mjs"),
      `import { MemoryStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, open } from "@fmt/store";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const dir = join(mkdtempSync(join(tmpdir(), "pack-public-app-")), "a.bcolz");
const a = await createCarray(new FileSystemStore(dir), "", new Float64Array([1.5, 2.5, 3.5]), { dtype: "<f8" });
await a.close();
const b = await open(new FileSystemStore(dir));
const m = await createCarray(new MemoryStore(), "m", new Int32Array([7, 8]), { dtype: "<i4" });
let s3 = "loaded";
try { await import("@fmt/fs-adapters/s3"); } catch (e) { s3 = e.constructor.name + " " + e.code; }
console.log(JSON.stringify({ kind: b.kind, values: Array.from(await b.read(0, 3)), memory: Array.from(await m.read(0, 2)), s3 }));
`,
    );
    const used = run(process.execPath, ["use.mjs"], app);
    expect(used.status, used.stderr).toBe(0);
    expect(JSON.parse(used.stdout)).toEqual({ kind: "carray", values: [1.5, 2.5, 3.5], memory: [7, 8], s3: "UsageError INVALID_ARGUMENT" });
  }, 300_000);

  it("refuses to pack a private package", () => {
    const r = run(process.execPath, [join(root, "tools", "pack-public.mjs"), "--out", join(work, "never"), "@fmt/bench"], root);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/@fmt\/bench is private and is never packed/);
    expect(existsSync(join(work, "never"))).toBe(false);
  });
});
