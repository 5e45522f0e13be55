// Shared by the deliberately broken adapters: each one runs the reference adapter
// (packages/cli, built) and then spoils one thing, so that the runner's test can check that
// exactly that kind of breakage is caught.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const referenceMain = fileURLToPath(new URL("../../../../packages/cli/dist/adapter-main.js", import.meta.url));

/**
 * Runs the reference adapter with `args`, capturing its output. Its `info` loses "serve": these
 * adapters spoil one call at a time, so the runner must start one process per call
 * (serve-faults.mjs is the one that breaks serve itself).
 */
export function reference(args) {
  const r = spawnSync(process.execPath, [referenceMain, ...args], { encoding: "utf8" });
  let stdout = r.stdout ?? "";
  if (args.length === 1 && args[0] === "info" && r.status === 0) {
    const info = JSON.parse(stdout);
    stdout = `${JSON.stringify({ ...info, operations: info.operations.filter((o) => o !== "serve") })}\n`;
  }
  return { status: r.status ?? 1, stdout, stderr: r.stderr ?? "" };
}

/** Replays a captured call as this process's own output and exit status. */
export function passThrough(r) {
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exit(r.status);
}
