// The release rehearsed end to end against a real npm registry on loopback (verdaccio, through
// ../rehearsal.mjs): in a copy of the workspace, `changeset version` applies the pending
// changesets, `changeset publish` (`pnpm publish` of each package) puts every public package on the
// loopback registry, and then a user's view from outside the workspace: `npm install @fmt/store @fmt/fs-adapters` pulls the rest of
// the @fmt packages from the registry, `npx @fmt/cli info` and `npx @fmt/conformance` run from it.
// The real work tree is never changed (no version, changelog or .changeset file).
//
// Needs the build (`pnpm test` builds first) and the npm registry: the loopback registry serves
// the @fmt scope itself and proxies every other package (fflate, commander, …) to
// https://registry.npmjs.org/, with an empty npm cache, so without network the test fails, loudly.
//
// RELEASE_REHEARSAL_SKIP=@fmt/a,@fmt/b leaves packages out of the publish step (only while a new
// package is half written; the rehearsal is meant to publish every public package).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bumpVersion, copyWorkspace, type PackageManifest, highestBumps, npmEnv, pendingChangesets, registryRequest, run, startRegistry, treeSize, UPLINK, workDir } from "../rehearsal.mjs";

type Registry = Awaited<ReturnType<typeof startRegistry>>;
type Pkg = ReturnType<typeof copyWorkspace>[number];

const root = join(import.meta.dirname, "..", "..", "..");
const work = workDir("bcolz-ts-release-");
const app = join(work, "app");
const skip = (process.env.RELEASE_REHEARSAL_SKIP ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const realCorpus = join(root, "conformance", "corpus", "v1", "bcolz-real");
const timings: Record<string, number> = {};
let registry: Registry | undefined;
let packages: Pkg[] = [];
const published = new Map<string, string>();
const sizes: Record<string, string> = {};
const notes: string[] = [];
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Whether `version` (x.y.z) satisfies `range`: space-separated comparators (>=, >, <=, <, =) or one ^ range. */
function satisfiesRange(version: string, range: string): boolean {
  const parse = (v: string): number[] => v.split(".").map(Number);
  const compare = (a: number[], b: number[]): number => a[0]! - b[0]! || (a[1] ?? 0) - (b[1] ?? 0) || (a[2] ?? 0) - (b[2] ?? 0);
  const v = parse(version);
  return range.split(/\s+/).every((part) => {
    const m = /^(\^|>=|<=|>|<|=)?(\d+(?:\.\d+){0,2})$/.exec(part);
    if (m === null) return false;
    const bound = parse(m[2]!);
    const c = compare(v, bound);
    switch (m[1]) {
      case ">=":
        return c >= 0;
      case ">":
        return c > 0;
      case "<=":
        return c <= 0;
      case "<":
        return c < 0;
      case "^":
        return c >= 0 && (bound[0]! > 0 ? v[0] === bound[0] : v[0] === 0 && v[1] === bound[1]);
      default:
        return c === 0;
    }
  });
}

function step<T>(name: string, f: () => T): T {
  const started = Date.now();
  try {
    return f();
  } finally {
    timings[name] = (Date.now() - started) / 1000;
  }
}
const show = (r: { status: number | null; stdout: string; stderr: string }) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;
const warnings: string[] = [];
/** Keeps the warnings npm, pnpm and changesets print (shown at the end), then the result. */
function noted<T extends { stdout: string; stderr: string }>(what: string, r: T): T {
  for (const line of `${r.stdout}\n${r.stderr}`.split("\n")) if (/\bwarn/i.test(line) && !/Received 404 for npm info/.test(line)) warnings.push(`${what}: ${line.trim()}`);
  return r;
}

beforeAll(async () => {
  const started = Date.now();
  registry = await startRegistry(join(work, "registry"));
  timings["start verdaccio"] = (Date.now() - started) / 1000;
  // The uplink must answer: every third-party dependency comes through it. Fail here, clearly.
  let reason = "";
  try {
    const r = await registryRequest(`${registry.url}fflate`);
    if (r.status !== 200) reason = `GET ${registry.url}fflate answered ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
  }
  if (reason !== "") throw new Error(`the release rehearsal needs the npm registry (${UPLINK}) behind the loopback registry, which cannot reach it: ${reason}\n${registry.log()}`);
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  console.log(`release rehearsal timings (s): ${JSON.stringify(timings)}\ninstalled sizes: ${JSON.stringify(sizes)}\n${notes.join("\n")}\nwarnings:\n${[...new Set(warnings)].join("\n") || "none"}`);
  if (process.env.RELEASE_REHEARSAL_KEEP) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}, 60_000);

describe.sequential("release rehearsal on a loopback registry", () => {
  it("rehearses what the README's first screen tells a user to run", () => {
    const top = readFileSync(join(root, "README.md"), "utf8").split(/^## /m)[0]!;
    expect(top).toContain("npm install @fmt/store @fmt/fs-adapters");
    expect(top).toMatch(/^npx @fmt\/cli info /m);
    expect(top).toMatch(/^pnpm pack:public/m);
    expect(top).toMatch(/npm install \S*packs\/\*\.tgz/);
    expect(top).toMatch(/^pnpm exec bcolz-ts /m);
  });

  it("`changeset version` in a copy of the workspace bumps the versions and writes the changelogs", () => {
    const repo = join(work, "repo");
    packages = step("copy workspace", () => copyWorkspace(root, repo));
    const changesets = pendingChangesets(join(repo, ".changeset"));
    // No pending changeset (just after a release): versions stay, and the current ones are published.
    const bumps = highestBumps(changesets);
    const before = new Map(packages.map((p) => [p.name, p.manifest.version]));
    for (const name of bumps.keys()) expect(before.has(name), `a changeset names ${name}, which is not a workspace package`).toBe(true);

    const versioned = step("changeset version", () => run(process.execPath, [join(repo, "node_modules", "@changesets", "cli", "bin.js"), "version"], { cwd: repo }));
    expect(versioned.status, show(versioned)).toBe(0);

    const left = readdirSync(join(repo, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
    expect(left, "changeset version consumed every changeset").toEqual([]);
    for (const p of packages) {
      const manifest = JSON.parse(readFileSync(join(p.path, "package.json"), "utf8")) as PackageManifest;
      const old = before.get(p.name)!;
      const type = bumps.get(p.name);
      if (p.manifest.private === true) {
        expect(manifest.version, `${p.name} is private and ignored by changesets`).toBe(old);
        continue;
      }
      // A package's first release (no CHANGELOG.md yet in the work tree) is named by a changeset,
      // or its first changelog entry would say nothing but "Updated dependencies".
      if (!existsSync(join(root, p.dir, "CHANGELOG.md"))) expect(type, `${p.name} is released for the first time: add a changeset naming it (pnpm changeset)`).toBeDefined();
      if (type !== undefined) {
        expect(manifest.version, `${p.name}: ${old} with a ${type} changeset`).toBe(bumpVersion(old, type));
      } else {
        // Not named in a changeset: unchanged, or a patch because a dependency left its range.
        expect([old, bumpVersion(old, "patch")], `${p.name}`).toContain(manifest.version);
      }
      if (manifest.version !== old) {
        const changelog = readFileSync(join(p.path, "CHANGELOG.md"), "utf8");
        expect(changelog, `${p.name}/CHANGELOG.md`).toContain(`## ${manifest.version}`);
        // Each changeset naming the package is in its changelog (its summary's first line).
        for (const c of changesets.filter((c) => p.name in c.releases)) expect(changelog, `${p.name}/CHANGELOG.md from ${c.file}`).toContain(c.summary.split("\n")[0]);
      }
      p.manifest = manifest;
    }
    // The real work tree is untouched.
    expect(readdirSync(join(root, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md")).toEqual(changesets.map((c) => c.file));
  });

  it("`changeset publish` puts every public package on the registry, with real version ranges, and no private one", async () => {
    const reg = registry!;
    const repo = join(work, "repo");
    const publics = packages.filter((p) => p.manifest.private !== true && !skip.includes(p.name));
    const privates = packages.filter((p) => p.manifest.private === true || skip.includes(p.name));
    expect(publics.map((p) => p.name)).toEqual(expect.arrayContaining(["@fmt/errors", "@fmt/header", "@fmt/blosc", "@fmt/meta", "@fmt/expr", "@fmt/store", "@fmt/fs-adapters", "@fmt/cli", "@fmt/conformance"]));
    for (const p of packages) {
      if (!skip.includes(p.name)) continue;
      // Left out on request: private in the copy, so that changesets passes it over.
      writeFileSync(join(p.path, "package.json"), `${JSON.stringify({ ...p.manifest, private: true }, null, 2)}\n`);
    }
    for (const p of publics) {
      if (p.manifest.scripts?.build) expect(existsSync(join(p.path, "dist")), `${p.name}: no dist/ (run the build first)`).toBe(true);
    }
    // The release's own command (.changeset/README.md, step 4): `pnpm publish` of every package
    // whose version the registry lacks; git tags left out, the copy is no repository.
    const env = npmEnv(join(work, "publisher"), reg.url, { token: reg.token });
    const r = step("changeset publish", () => noted("changeset publish", run(process.execPath, [join(repo, "node_modules", "@changesets", "cli", "bin.js"), "publish", "--no-git-tag"], { cwd: repo, env })));
    expect(r.status, show(r)).toBe(0);
    for (const p of publics) published.set(p.name, p.manifest.version);
    for (const p of publics) {
      const doc = (await registryRequest(`${reg.url}${p.name.replace("/", "%2f")}`)).body as { versions?: Record<string, PackageManifest> } | undefined;
      const manifest = doc?.versions?.[p.manifest.version];
      expect(manifest, `${p.name}@${p.manifest.version} on the registry`).toBeDefined();
      if (manifest === undefined) continue;
      for (const field of ["dependencies", "peerDependencies", "optionalDependencies"] as const) {
        for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
          expect(range, `${p.name} ${field}.${dep}`).not.toMatch(/^workspace:/);
          const target = packages.find((q) => q.name === dep);
          if (target === undefined) continue;
          // A peer keeps the range its package.json states (the CLI's optional @fmt/duckdb:
          // `>=0.1.0 <1`), which must admit the version released with it; the rest are caret ranges.
          if (field === "peerDependencies") expect(satisfiesRange(target.manifest.version, range), `${p.name} ${field}.${dep} ${range} admits ${target.manifest.version}`).toBe(true);
          else expect(range, `${p.name} ${field}.${dep}`).toBe(`^${target.manifest.version}`);
        }
      }
      if (p.manifest.bin !== undefined) {
        // npm drops a bin whose file is not in the tarball (and says so only in a warning).
        const bins = typeof p.manifest.bin === "string" ? { [p.name.split("/").at(-1)!]: p.manifest.bin } : p.manifest.bin;
        expect(manifest.bin, `${p.name} bin`).toEqual(Object.fromEntries(Object.entries(bins).map(([k, v]) => [k, v.replace(/^\.\//, "")])));
      }
      for (const [sub, entry] of Object.entries(manifest.exports ?? {})) {
        expect(JSON.stringify(entry), `${p.name} exports["${sub}"] (publishConfig.exports)`).not.toContain("development");
      }
    }
    for (const p of privates) {
      const r = await registryRequest(`${reg.url}${p.name.replace("/", "%2f")}`);
      expect(r.status, `${p.name} is private and must not be on the registry`).toBe(404);
    }
  }, 240_000);

  it("`npm install @fmt/store @fmt/fs-adapters` in a fresh project gets the other @fmt packages from the registry; they write, read and read real bcolz data", () => {
    const reg = registry!;
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "rehearsal-app", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
    writeFileSync(join(app, ".npmrc"), `registry=${reg.url}\n`);
    // The registry comes from the project's .npmrc only; the cache starts empty.
    const env = npmEnv(join(work, "user"), reg.url, { registryFromProject: true });
    const installed = step("npm install @fmt/store @fmt/fs-adapters", () => noted("npm install", run("npm", ["install", "@fmt/store", "@fmt/fs-adapters"], { cwd: app, env })));
    expect(installed.status, show(installed)).toBe(0);

    const fmt = readdirSync(join(app, "node_modules", "@fmt")).sort();
    expect(fmt).toEqual(["blosc", "errors", "expr", "fs-adapters", "header", "meta", "store"]);
    for (const name of fmt) {
      const { version } = JSON.parse(readFileSync(join(app, "node_modules", "@fmt", name, "package.json"), "utf8")) as PackageManifest;
      expect(version, `@fmt/${name}`).toBe(published.get(`@fmt/${name}`));
    }
    // Every package, ours and third-party, came through the loopback registry.
    const lock = JSON.parse(readFileSync(join(app, "package-lock.json"), "utf8")) as { packages: Record<string, { resolved?: string; link?: boolean }> };
    const entries = Object.entries(lock.packages).filter(([path]) => path !== "");
    for (const [path, entry] of entries) expect(entry.resolved?.startsWith(reg.url), `${path} resolved from ${entry.resolved}`).toBe(true);
    // The AWS SDK is an optional peer of @fmt/fs-adapters (only /s3 needs it): not installed.
    expect(existsSync(join(app, "node_modules", "@aws-sdk")), "@aws-sdk installed").toBe(false);
    expect(entries.some(([path]) => path.includes("@aws-sdk/"))).toBe(false);
    const size = treeSize(join(app, "node_modules"));
    sizes["@fmt/store + @fmt/fs-adapters"] = `${mib(size)}, ${entries.length} packages (${entries.map(([p]) => p.replace(/^node_modules\//, "")).join(", ")})`;
    expect(size, "node_modules of @fmt/store + @fmt/fs-adapters").toBeLessThan(20 * 1024 * 1024);

    // A consistent tree: no missing or invalid dependency, no unmet peer.
    const tree = run("npm", ["ls", "--all"], { cwd: app, env });
    expect(tree.status, show(tree)).toBe(0);

    copyFileSync(join(import.meta.dirname, "..", "rehearsal-app", "use.mjs"), join(app, "use.mjs"));
    const used = step("app script", () => run(process.execPath, ["use.mjs", realCorpus, "carray_f8_n6000_cl1600", "blosc114_zstd_c5_s1_i8", "blosc114_ctable_mixed"], { cwd: app }));
    expect(used.status, show(used)).toBe(0);
    expect(JSON.parse(used.stdout)).toEqual({
      roundTrip: { kind: "carray", dtype: "<f8", length: 10_000, equal: true, element: 4321 * 0.25 - 100 },
      real: {
        carray_f8_n6000_cl1600: { kind: "carray", dtype: "<f8", length: 6000, expectedLength: 6000, equal: true },
        blosc114_zstd_c5_s1_i8: { kind: "carray", dtype: "<i8", length: 5000, expectedLength: 5000, equal: true },
        blosc114_ctable_mixed: { kind: "ctable", length: 2500, expectedLength: 2500, columns: { i: true, f: true } },
      },
    });
  }, 240_000);

  it("`npx @fmt/cli info DATASET` runs the bcolz-ts command from the registry", () => {
    const reg = registry!;
    // An empty directory: npx has nothing local to run and installs @fmt/cli from the registry.
    // @fmt/cli has one bin, bcolz-ts; npx runs a package's only bin whatever its name.
    const dir = join(work, "npx-cli");
    mkdirSync(dir);
    const env = npmEnv(join(work, "user"), reg.url);
    const dataset = join(realCorpus, "blosc114_zstd_c5_s1_i8", "data.bcolz");
    const info = step("npx @fmt/cli info", () => noted("npx @fmt/cli", run("npx", ["--yes", "@fmt/cli", "info", dataset], { cwd: dir, env })));
    expect(info.status, show(info)).toBe(0);
    expect(info.stdout).toMatch(/^kind:\s+carray$/m);
    expect(info.stdout).toMatch(/^dtype:\s+<i8$/m);
    expect(info.stdout).toMatch(/^shape:\s+\(5000,\)$/m);
    expect(info.stdout).toMatch(/^codec:\s+zstd clevel=5/m);
    const version = run("npx", ["--yes", "@fmt/cli", "--version"], { cwd: dir, env });
    expect(version.stdout.trim(), show(version)).toBe(published.get("@fmt/cli"));
    // @fmt/duckdb (DuckDB's native binding, 70 MB) is an optional peer of @fmt/cli: `npx @fmt/cli`
    // does not download it, `sql` says how to get it, and with it beside the CLI `sql` runs over a
    // real bcolz ctable.
    expect(published.has("@fmt/duckdb")).toBe(true);
    const table = join(realCorpus, "blosc114_ctable_mixed", "data.bcolz");
    const query = ["sql", "--json", table, "SELECT count(*) AS n FROM t"];
    const without = run("npx", ["--yes", "@fmt/cli", ...query], { cwd: dir, env });
    expect(without.status, show(without)).toBe(2);
    expect(without.stderr).toContain("npm install @fmt/duckdb");
    const sql = step("npx -p @fmt/cli -p @fmt/duckdb bcolz-ts sql", () => run("npx", ["--yes", "-p", "@fmt/cli", "-p", "@fmt/duckdb", "bcolz-ts", ...query], { cwd: dir, env }));
    expect(sql.status, show(sql)).toBe(0);
    expect(sql.stdout.trim()).toBe('{"n":2500}');
    const npx = readdirSync(join(work, "user", "cache", "_npx"));
    const cliRoot = npx.map((h) => join(work, "user", "cache", "_npx", h, "node_modules", "@fmt", "cli")).find((d) => existsSync(d));
    expect(cliRoot, "@fmt/cli in npx's cache").toBeDefined();
    sizes["npx @fmt/cli"] = mib(treeSize(join(cliRoot!, "..", "..")));
  }, 240_000);

  it("`npx @fmt/conformance --adapter ./adapter.mjs` runs the corpus shipped in its tarball against the installed @fmt/cli adapter", () => {
    const reg = registry!;
    const env = npmEnv(join(work, "user"), reg.url, { registryFromProject: true });
    const added = step("npm install @fmt/cli", () => noted("npm install @fmt/cli", run("npm", ["install", "@fmt/cli"], { cwd: app, env })));
    expect(added.status, show(added)).toBe(0);
    sizes["app with @fmt/cli added"] = mib(treeSize(join(app, "node_modules")));
    const tree = run("npm", ["ls", "--all"], { cwd: app, env });
    expect(tree.status, show(tree)).toBe(0);
    copyFileSync(join(import.meta.dirname, "..", "rehearsal-app", "adapter.mjs"), join(app, "adapter.mjs"));
    chmodSync(join(app, "adapter.mjs"), 0o755);
    // The whole corpus (v1 and v2: read, write and where cases), as the installed package ships it.
    const r = step("npx @fmt/conformance", () => noted("npx @fmt/conformance", run("npx", ["--yes", "@fmt/conformance", "--adapter", "./adapter.mjs", "--jobs", "2"], { cwd: app, env })));
    expect(r.status, show(r).slice(-20_000)).toBe(0);
    const corpus = /^corpus: (.*)$/m.exec(r.stdout + r.stderr)?.[1];
    expect(corpus, "the runner names its corpus").toBeDefined();
    expect(corpus).toContain(join(work, "user", "cache", "_npx"));
    expect(corpus).toMatch(/node_modules\/@fmt\/conformance\/corpus$/);
    expect(r.stdout).toMatch(/^\| .* \| PASS /m);
    const last = r.stdout.trim().split("\n").at(-1) ?? "";
    notes.push(`npx @fmt/conformance (whole shipped corpus): ${last}`);
    expect(last).toMatch(/^\d+ passed, 0 failed$/);
    expect(Number(/^(\d+)/.exec(last)?.[1])).toBeGreaterThan(1000);
    const npxRoot = readdirSync(join(work, "user", "cache", "_npx")).map((h) => join(work, "user", "cache", "_npx", h, "node_modules")).find((d) => existsSync(join(d, "@fmt", "conformance")));
    sizes["npx @fmt/conformance"] = mib(treeSize(npxRoot!));
  }, 300_000);
});
