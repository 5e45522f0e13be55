// Packing publishable workspace packages into tarballs, shared by the pack-and-install test
// (pack-check.mjs) and `pnpm pack:public` (tools/pack-public.mjs).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { packClosure } from "./lib.mjs";

function mustRun(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/**
 * Every package of the workspace at `root` (the root package itself left out): name, absolute
 * path, directory relative to the root and package.json.
 *
 * @param {string} root
 * @returns {{ name: string, path: string, dir: string, manifest: Record<string, any> }[]}
 */
export function workspacePackages(root) {
  const listing = JSON.parse(mustRun("pnpm", ["ls", "-r", "--depth", "-1", "--json"], { cwd: root }).stdout);
  return listing
    .filter((p) => p.name !== undefined && p.path !== root)
    .map((p) => ({ name: p.name, path: p.path, dir: relative(root, p.path).split("\\").join("/"), manifest: JSON.parse(readFileSync(join(p.path, "package.json"), "utf8")) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Packs the publishable packages named in `wanted` (all of them when empty) and the workspace
 * packages they depend on into `dest` with `pnpm pack`, which turns `workspace:` ranges into the
 * packed versions, so the tarballs install together with `npm install dest/*.tgz`. Private
 * packages are never packed. Needs the build (`pnpm build`).
 *
 * @param {string} root the workspace root
 * @param {string[]} wanted package names
 * @param {string} dest directory for the tarballs (created if missing)
 * @returns {{ name: string, path: string, dir: string, manifest: Record<string, any>, tarball: string }[]}
 */
export function packPublic(root, wanted, dest) {
  const all = workspacePackages(root);
  const names = packClosure(all.map((p) => p.manifest), wanted);
  const chosen = all.filter((p) => names.includes(p.name));
  for (const p of chosen) {
    if (p.manifest.scripts?.build && !existsSync(join(p.path, "dist"))) throw new Error(`${p.name}: no dist/ — run \`pnpm build\` first`);
  }
  mkdirSync(dest, { recursive: true });
  return chosen.map((p) => {
    // The JSON report comes last: a package's prepack script may print before it.
    const stdout = mustRun("pnpm", ["pack", "--pack-destination", dest, "--json"], { cwd: p.path }).stdout;
    const out = JSON.parse(stdout.slice(stdout.startsWith("{") ? 0 : stdout.lastIndexOf("\n{") + 1));
    const tarball = typeof out?.filename === "string" ? join(dest, basename(out.filename)) : undefined;
    if (tarball === undefined || !existsSync(tarball)) throw new Error(`${p.name}: pnpm pack made no tarball in ${dest}`);
    return { ...p, tarball };
  });
}
