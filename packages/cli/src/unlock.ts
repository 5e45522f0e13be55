/**
 * `bcolz-ts unlock DIR [--force]`: removes the write locks (`.lock`) that a killed writer left in
 * a dataset, after checking that their holder is gone.
 */
import { hostname } from "node:os";
import { ConflictError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { parsePythonJson, parseRootdirs } from "@fmt/meta";
import { LOCK_FILE } from "@fmt/store";

/**
 * The help text of `bcolz-ts unlock`.
 *
 * @example
 * ```ts
 * process.stdout.write(UNLOCK_HELP);
 * ```
 */
export const UNLOCK_HELP = `usage: bcolz-ts unlock DIR [--force]

Removes the write locks of the dataset at DIR: DIR/.lock and, for a ctable, the .lock of every
column listed in DIR/__rootdirs__. A writer (openCarray/openCtable with mode "a" or "w", or
create*) holds these files while it works; one that was killed leaves them behind, and every
later writer then fails with LOCKED.

Each lock records the process id and host name of its holder. A lock is removed only when its
holder is provably gone: it was taken on this host and no process with its id is running.
Without --force, unlock refuses (exit 3, error LOCKED, naming the lock file) and removes
nothing when any lock's holder is still running on this host, was taken on another host, or
cannot be identified.

--force removes the locks anyway. Only use it when you know that no writer is running (for
example on a shared file system, after checking the other host): breaking a live writer's lock
lets two writers corrupt the dataset.
`;

/** What `unlock` found about one lock file. */
export interface LockState {
  /** Store key of the lock, relative to DIR (`.lock`, `price/.lock`). */
  key: string;
  /** The lock file's content as recorded by its writer (or its raw text when it is not JSON). */
  holder: unknown;
  /** Whether its holder is gone (`false`: running, or cannot be told). */
  stale: boolean;
  /** Why it is or is not considered stale. */
  reason: string;
}

/** Whether process `pid` exists on this host (EPERM: it exists but belongs to another user). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function judge(key: string, bytes: Uint8Array): LockState {
  const text = new TextDecoder().decode(bytes);
  let holder: unknown = text.trim();
  try {
    holder = parsePythonJson(text);
  } catch {
    return { key, holder, stale: false, reason: "the lock file is not JSON, so its holder cannot be identified" };
  }
  const record = typeof holder === "object" && holder !== null ? (holder as { pid?: unknown; hostname?: unknown }) : {};
  const pid = typeof record.pid === "bigint" ? Number(record.pid) : record.pid;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0 || typeof record.hostname !== "string") {
    return { key, holder, stale: false, reason: "the lock records no process id and host name" };
  }
  if (record.hostname !== hostname()) return { key, holder, stale: false, reason: `the lock was taken on host ${record.hostname}, not this one` };
  if (processExists(pid)) return { key, holder, stale: false, reason: `process ${pid} on this host is still running` };
  return { key, holder, stale: true, reason: `process ${pid} on this host is gone` };
}

/**
 * Finds the locks of the dataset at `dir` and removes them when every holder is gone, or always
 * with `force`. Refusing throws `ConflictError` `LOCKED` naming the first live lock (nothing is
 * removed then). Resolves to the locks found (and removed).
 *
 * @example
 * ```ts
 * const removed = await unlockDataset("/data/prices.bcolz");
 * console.log(removed.map((l) => l.key)); // [".lock"] or []
 * ```
 */
export async function unlockDataset(dir: string, options: { force?: boolean } = {}): Promise<LockState[]> {
  const store = new FileSystemStore(dir);
  const keys = [LOCK_FILE];
  const rootdirs = await store.get("__rootdirs__");
  if (rootdirs !== undefined) {
    const { names } = parseRootdirs(new TextDecoder().decode(rootdirs), "__rootdirs__");
    for (const name of names) keys.push(`${name}/${LOCK_FILE}`);
  }
  const found: LockState[] = [];
  for (const key of keys) {
    const bytes = await store.get(key);
    if (bytes !== undefined) found.push(judge(key, bytes));
  }
  const live = found.find((lock) => !lock.stale);
  if (live !== undefined && options.force !== true) {
    throw new ConflictError("LOCKED", `not removing the locks: ${live.reason} (use --force if you are sure no writer is running)`, {
      path: live.key,
      field: "lock",
      expected: "a lock whose holder is gone",
      actual: live.holder,
    });
  }
  for (const lock of found) await store.delete(lock.key);
  return found;
}

/**
 * Runs `bcolz-ts unlock` with its arguments (after the word `unlock`), writing to `out`;
 * resolves to the exit code (0 done, 2 usage). Refusals throw like {@link unlockDataset}.
 *
 * @example
 * ```ts
 * process.exitCode = await runUnlockCommand(["/data/prices.bcolz", "--force"], (s) => process.stdout.write(s));
 * ```
 */
export async function runUnlockCommand(args: readonly string[], out: (text: string) => void): Promise<number> {
  const force = args.includes("--force");
  const rest = args.filter((a) => a !== "--force");
  if (rest.includes("--help") || rest.includes("-h")) {
    out(UNLOCK_HELP);
    return 0;
  }
  if (rest.length !== 1 || rest[0]!.startsWith("-")) {
    out(UNLOCK_HELP);
    return 2;
  }
  const removed = await unlockDataset(rest[0]!, { force });
  if (removed.length === 0) out("no locks found\n");
  for (const lock of removed) out(`removed ${lock.key} (${lock.stale ? lock.reason : `forced: ${lock.reason}`})\n`);
  return 0;
}
