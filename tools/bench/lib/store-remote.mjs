// Remote read-all for the store benchmark: tools/remote-tests/bench/read-remote.ts (bundled with
// that package's esbuild, as its own `bench` script does) runs as a child, serves this run's
// carrays over HTTP (its static server) and S3 (s3rver on loopback), and reads each whole from
// local files, HTTP and S3 in the same process. Anything missing (the package, esbuild, s3rver)
// makes the rows n/a with the reason.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { fail, na, ok } from "./report.mjs";
import { median } from "./store-report.mjs";

const REMOTE_TESTS = join(dirname(fileURLToPath(import.meta.url)), "../../remote-tests");

/** Bundle read-remote.ts next to its package (so its dependencies resolve); the bundle's path. */
async function bundle() {
  const require = createRequire(join(REMOTE_TESTS, "package.json"));
  const esbuild = await import(pathToFileURL(require.resolve("esbuild")).href);
  const outfile = join(REMOTE_TESTS, "artifacts", "read-remote.mjs");
  try {
    await esbuild.build({
      entryPoints: [join(REMOTE_TESTS, "bench", "read-remote.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      outfile,
      logLevel: "warning",
    });
  } finally {
    // esbuild's service process would stay for the rest of the run: the idle-machine check
    // counts a child that still runs as another process's work (lib/machine-load.mjs).
    await esbuild.stop?.();
  }
  return outfile;
}

function runChild(script, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd: REMOTE_TESTS, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      const last = stdout.trim().split("\n").at(-1) ?? "";
      if (code === 0 && last.startsWith("{")) resolve(JSON.parse(last));
      else reject(new Error(`read-remote exited with ${code}: ${(stderr.trim().split("\n").find((l) => /error/i.test(l)) ?? stderr.trim().split("\n")[0] ?? "").slice(0, 200)}`));
    });
  });
}

const missing = (error) => /Cannot find (package|module)|ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND/.test(String(error?.message ?? error));

/**
 * `{ [name]: { local, http, s3 } }` cells (ms, median of `runs` after a warm-up), or for every
 * name the same n/a/fail cell when the child could not run.
 * @param {string} root the store benchmark's data directory
 * @param {string[]} names carray directories under root
 * @param {number} runs
 */
export async function measureRemote(root, names, runs) {
  const all = (cell) => Object.fromEntries(names.map((n) => [n, { local: cell, http: cell, s3: cell }]));
  if (!existsSync(join(REMOTE_TESTS, "bench", "read-remote.ts"))) return all(na("tools/remote-tests/bench/read-remote.ts missing"));
  let script;
  try {
    script = await bundle();
  } catch (error) {
    const reason = String(error?.message ?? error).split("\n")[0];
    return all(missing(error) ? na(`esbuild of @fmt/remote-tests missing: ${reason}`) : fail(`bundling read-remote.ts: ${reason}`));
  }
  let crcModule;
  try {
    crcModule = fileURLToPath(import.meta.resolve("@fmt/header/node"));
  } catch {
    crcModule = undefined;
  }
  let reply;
  try {
    reply = await runChild(script, {
      BENCH_STORE_ROOT: root,
      BENCH_STORE_NAMES: names.join(","),
      BENCH_STORE_RUNS: String(runs),
      ...(crcModule ? { BENCH_CRC_MODULE: crcModule } : {}),
    });
  } catch (error) {
    const reason = String(error?.message ?? error).split("\n")[0];
    return all(missing(error) ? na(`a dependency of @fmt/remote-tests is missing: ${reason}`) : fail(reason));
  }
  const out = {};
  for (const name of names) {
    const result = reply.results?.find((r) => r.name === name);
    const cell = (kind) => {
      const r = result?.[kind];
      if (r === undefined) return fail("no result");
      if (r.error !== undefined) return kind.endsWith("Curl") && /ENOENT/.test(r.error) ? na("curl not installed") : fail(r.error);
      return Object.assign(ok(median(r.times)), { times: r.times });
    };
    out[name] = { local: cell("local"), http: cell("http"), s3: cell("s3"), httpFetch: cell("httpFetch"), s3Fetch: cell("s3Fetch"), httpCurl: cell("httpCurl"), s3Curl: cell("s3Curl") };
  }
  return out;
}
