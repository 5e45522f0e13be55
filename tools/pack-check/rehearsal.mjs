// The release rehearsal's moving parts (test/release-rehearsal.test.ts drives them): a loopback npm
// registry (verdaccio) whose @fmt scope is local and everything else comes from the npm registry,
// a copy of the workspace to version and publish from (the real work tree is never changed), the
// pending changesets read back, and npm commands isolated from the user's configuration and cache.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { workspacePackages } from "./pack.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The registry the loopback registry proxies every package outside the @fmt scope to
 * (RELEASE_REHEARSAL_UPLINK overrides it, e.g. with a company mirror).
 */
export const UPLINK = process.env.RELEASE_REHEARSAL_UPLINK || "https://registry.npmjs.org/";

/**
 * Runs a command to completion; never throws on a non-zero exit (the caller checks `status`).
 *
 * @param {string} command
 * @param {string[]} args
 * @param {import("node:child_process").SpawnSyncOptions} [options]
 */
export function run(command, args, options = {}) {
  const started = Date.now();
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...options });
  if (r.error) throw r.error;
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr), seconds: (Date.now() - started) / 1000 };
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * The verdaccio configuration: storage under `dir`, `@fmt/*` packages served and published locally
 * only (never looked up upstream, so nothing of ours can come from the public registry), every
 * other package proxied to the npm registry; publishing needs a user (made with `addUser`); only
 * errors are logged; no web UI.
 *
 * @param {string} dir
 */
export function registryConfig(dir) {
  return `storage: ${JSON.stringify(join(dir, "storage"))}
auth:
  htpasswd:
    file: ${JSON.stringify(join(dir, "htpasswd"))}
    max_users: 10
uplinks:
  npmjs:
    url: ${UPLINK}
    timeout: 60s
    max_fails: 5
packages:
  "@fmt/*":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  "**":
    access: $all
    publish: $authenticated
    proxy: npmjs
# @fmt/conformance carries the corpus
max_body_size: 500mb
log: { type: stdout, format: pretty, level: error }
web: { enable: false }
`;
}

/**
 * Starts verdaccio (registry.mjs) on a free loopback port with its configuration and storage in
 * `dir`, waits until it answers and adds a user. `stop()` ends it and waits for its exit.
 *
 * @param {string} dir
 * @returns {Promise<{ url: string, port: number, token: string, log: () => string, stop: () => Promise<void> }>}
 */
export async function startRegistry(dir) {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, "config.yaml");
  writeFileSync(config, registryConfig(dir));
  // The free port may be taken before verdaccio listens on it: then another one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRegistryOn(dir, config, await freePort());
    } catch (e) {
      if (attempt >= 3 || !String(e).includes("EADDRINUSE")) throw e;
    }
  }
}

/**
 * @param {string} dir
 * @param {string} config
 * @param {number} port
 */
async function startRegistryOn(dir, config, port) {
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(process.execPath, [join(here, "registry.mjs"), config, String(port)], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited ${child.exitCode} before answering:\n${output}`);
    try {
      if ((await registryRequest(`${url}-/ping`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`verdaccio did not answer on ${url} within 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  let token;
  try {
    token = await addUser(url, "rehearsal", "rehearsal-password");
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, port, token, log: () => output, stop };
}

/**
 * One HTTP request to the registry on a connection of its own (a pooled keep-alive connection may
 * be one the registry is just closing): status and parsed JSON body (undefined when not JSON).
 *
 * @param {string} url
 * @param {{ method?: string, body?: unknown }} [options] a body is sent as JSON
 * @returns {Promise<{ status: number, body: any }>}
 */
export function registryRequest(url, { method = "GET", body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { accept: "application/json", ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }) };
    const req = request(url, { method, agent: false, headers, timeout: 120_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        let parsed;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${url}: no answer within 120 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * A directory for the rehearsal's temporary files: under /dev/shm when it is there (the
 * conformance corpus is thousands of small files, copied when packing and again when installing;
 * on a busy disk that costs a minute, in memory a second), else the system's temporary directory.
 * RELEASE_REHEARSAL_TMP overrides the parent.
 *
 * @param {string} prefix
 */
export function workDir(prefix) {
  const candidates = [process.env.RELEASE_REHEARSAL_TMP, "/dev/shm", tmpdir()].filter((d) => d !== undefined && d !== "");
  for (const parent of candidates) {
    try {
      return mkdtempSync(join(parent, prefix));
    } catch {
      // not there or not writable: the next one
    }
  }
  throw new Error(`no writable temporary directory among ${candidates.join(", ")}`);
}

/**
 * Adds a user through the registry's `adduser` endpoint (what `npm adduser` calls) and returns
 * its token.
 *
 * @param {string} url registry address ending in "/"
 * @param {string} name
 * @param {string} password
 */
export async function addUser(url, name, password) {
  const r = await registryRequest(`${url}-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
    method: "PUT",
    body: { _id: `org.couchdb.user:${name}`, name, password, type: "user", roles: [], date: new Date().toISOString() },
  });
  const body = r.body ?? {};
  if (r.status !== 201 && r.status !== 200) throw new Error(`adduser on ${url} failed: ${r.status} ${JSON.stringify(body)}`);
  if (typeof body.token !== "string") throw new Error(`adduser on ${url} returned no token: ${JSON.stringify(body)}`);
  return body.token;
}

/**
 * The environment for npm, npx and pnpm commands against the loopback registry, isolated from
 * the user's setup: its own user config (the registry's token, when given), its own empty cache,
 * no update check, audit or funding messages. The registry address goes into the environment
 * unless `registryFromProject` is set: then a project's own `.npmrc` has to name it.
 *
 * @param {string} dir directory for the user config and the cache
 * @param {string} url registry address ending in "/"
 * @param {{ token?: string, registryFromProject?: boolean }} [options]
 */
export function npmEnv(dir, url, { token, registryFromProject = false } = {}) {
  mkdirSync(dir, { recursive: true });
  const userconfig = join(dir, "npmrc");
  writeFileSync(userconfig, token === undefined ? "" : `//${new URL(url).host}/:_authToken=${token}\n`);
  const env = { ...process.env };
  // Settings that pnpm or a parent npm process passes down in the environment would override ours.
  for (const key of Object.keys(env)) if (/^npm_config_/i.test(key) || /^pnpm_config_/i.test(key)) delete env[key];
  return {
    ...env,
    npm_config_userconfig: userconfig,
    ...(registryFromProject ? {} : { npm_config_registry: url }),
    npm_config_cache: join(dir, "cache"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_loglevel: "error",
  };
}

/**
 * Copies what a release needs from the workspace at `root` into `dest`: the root manifests,
 * lockfile and configuration, `.changeset/`, every publishable package's directory with its build
 * output (`dist/`) and pnpm's links (`node_modules/`, symlinks kept as they are, so they resolve
 * inside the copy), and the private packages' manifests only (changesets wants to see the packages
 * its config ignores). The root `node_modules` is linked, not copied, and so is the conformance
 * corpus, which @fmt/conformance's prepack script copies into its tarball. Timestamps are kept,
 * so that `tsc -b` in a prepack script finds the build up to date.
 *
 * @param {string} root
 * @param {string} dest
 * @returns {{ name: string, path: string, dir: string, manifest: Record<string, any> }[]} the packages, paths in the copy
 */
export function copyWorkspace(root, dest) {
  const packages = workspacePackages(root);
  mkdirSync(dest, { recursive: true });
  for (const file of ["package.json", "pnpm-workspace.yaml", "pnpm-lock.yaml", ".npmrc", "tsconfig.base.json", "tsconfig.json", "LICENSE", "README.md"]) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(dest, file), { preserveTimestamps: true });
  }
  cpSync(join(root, ".changeset"), join(dest, ".changeset"), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(dest, "node_modules"));
  const corpus = join(root, "conformance", "corpus");
  if (existsSync(corpus)) {
    mkdirSync(join(dest, "conformance"), { recursive: true });
    symlinkSync(corpus, join(dest, "conformance", "corpus"));
  }
  for (const p of packages) {
    const to = join(dest, p.dir);
    if (p.manifest.private === true) {
      mkdirSync(to, { recursive: true });
      cpSync(join(p.path, "package.json"), join(to, "package.json"));
    } else {
      // A pack running in the work tree meanwhile may have put a corpus copy into the runner
      // package (its prepack script); the copy's own prepack makes one again.
      const made = new Set(p.manifest.scripts?.prepack?.includes("pack-corpus") ? [join(p.path, "corpus"), join(p.path, "conformance.md")] : []);
      cpSync(p.path, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, filter: (src) => !made.has(src) });
    }
  }
  return packages.map((p) => ({ ...p, path: join(dest, p.dir) }));
}

/**
 * The pending changesets in `dir` (`.changeset/*.md` but README.md): for each, the packages and
 * their bump types from the front matter, and the summary after it.
 *
 * @param {string} dir the .changeset directory
 * @returns {{ file: string, releases: Record<string, "major" | "minor" | "patch">, summary: string }[]}
 */
export function pendingChangesets(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), "utf8");
      const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
      if (m === null) throw new Error(`${file}: no front matter`);
      /** @type {Record<string, "major" | "minor" | "patch">} */
      const releases = {};
      for (const line of m[1].split(/\r?\n/)) {
        const r = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
        if (r) releases[r[1]] = /** @type {"major" | "minor" | "patch"} */ (r[2]);
        else if (line.trim() !== "") throw new Error(`${file}: cannot read front matter line ${JSON.stringify(line)}`);
      }
      return { file, releases, summary: text.slice(m[0].length).trim() };
    });
}

/**
 * The highest bump each package gets from a set of changesets.
 *
 * @param {{ releases: Record<string, "major" | "minor" | "patch"> }[]} changesets
 * @returns {Map<string, "major" | "minor" | "patch">}
 */
export function highestBumps(changesets) {
  const rank = { patch: 0, minor: 1, major: 2 };
  const out = new Map();
  for (const c of changesets) {
    for (const [name, type] of Object.entries(c.releases)) {
      const prev = out.get(name);
      if (prev === undefined || rank[type] > rank[prev]) out.set(name, type);
    }
  }
  return out;
}

/**
 * `version` bumped by `type` as semver does for a release (no pre-release tags).
 *
 * @param {string} version
 * @param {"major" | "minor" | "patch"} type
 */
export function bumpVersion(version, type) {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (m === null) throw new Error(`not a release version: ${version}`);
  const [major, minor, patch] = m.slice(1).map(Number);
  if (type === "major") return `${major + 1}.0.0`;
  if (type === "minor") return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/**
 * Total size in bytes of the files under `dir` (symlinks not followed).
 *
 * @param {string} dir
 */
export function treeSize(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeSize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}
