import type { SpawnSyncOptions } from "node:child_process";

type Bump = "major" | "minor" | "patch";
/** The fields of a package.json the rehearsal reads. */
export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  scripts?: Record<string, string>;
  bin?: string | Record<string, string>;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}
type WorkspacePackage = { name: string; path: string; dir: string; manifest: PackageManifest };

/** The registry the loopback registry proxies every package outside the @fmt scope to. */
export declare const UPLINK: string;
/** Runs a command to completion; never throws on a non-zero exit. */
export declare function run(command: string, args: string[], options?: SpawnSyncOptions): { status: number | null; stdout: string; stderr: string; seconds: number };
/** A TCP port that was free on 127.0.0.1 a moment ago. */
export declare function freePort(): Promise<number>;
/** The verdaccio configuration with storage under `dir`. */
export declare function registryConfig(dir: string): string;
/** Starts verdaccio on a free loopback port, waits until it answers, adds a user. */
export declare function startRegistry(dir: string): Promise<{ url: string; port: number; token: string; log: () => string; stop: () => Promise<void> }>;
/** One HTTP request on a connection of its own: status and parsed JSON body. */
export declare function registryRequest(url: string, options?: { method?: string; body?: unknown }): Promise<{ status: number; body: unknown }>;
/** A fresh temporary directory, in memory (/dev/shm) when there is one. */
export declare function workDir(prefix: string): string;
/** Adds a user through the registry's adduser endpoint; returns its token. */
export declare function addUser(url: string, name: string, password: string): Promise<string>;
/** The environment for npm, npx and pnpm against the loopback registry, isolated from the user's setup. */
export declare function npmEnv(dir: string, url: string, options?: { token?: string; registryFromProject?: boolean }): NodeJS.ProcessEnv;
/** Copies what a release needs from the workspace at `root` into `dest`; the packages, paths in the copy. */
export declare function copyWorkspace(root: string, dest: string): WorkspacePackage[];
/** The pending changesets in a .changeset directory. */
export declare function pendingChangesets(dir: string): { file: string; releases: Record<string, Bump>; summary: string }[];
/** The highest bump each package gets from a set of changesets. */
export declare function highestBumps(changesets: { releases: Record<string, Bump> }[]): Map<string, Bump>;
/** `version` bumped by `type`. */
export declare function bumpVersion(version: string, type: Bump): string;
/** Total size in bytes of the files under `dir`. */
export declare function treeSize(dir: string): number;
