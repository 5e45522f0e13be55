import { ConflictError, UsageError } from "@fmt/errors";
import type { WritableStore } from "@fmt/fs-adapters";
import { createJsonObject, parsePythonJson, stringifyPythonJson } from "@fmt/meta";
import type { JsonValue } from "@fmt/meta";
import { joinKey } from "./internal.js";

/**
 * Name of the lock file a writer creates in the dataset root (`<path>/.lock`). bcolz ignores
 * unknown files in a dataset root, so the lock never disturbs bcolz readers.
 *
 * @example
 * ```ts
 * await store.get(`prices.bcolz/${LOCK_FILE}`); // the lock of a dataset that is open for writing
 * ```
 */
export const LOCK_FILE = ".lock";

/**
 * Options for taking a dataset's write lock.
 *
 * @example
 * ```ts
 * const a = await openCarray(store, "x", { mode: "a", breakLock: true }); // after a crash
 * ```
 */
export interface LockOptions {
  /**
   * Remove an existing lock before taking it. Only for stale locks: a lock left by a writer that
   * was killed. The lock file records `pid`, `hostname` (when the store can tell) and `created`,
   * so check that its process is gone before breaking it; breaking a live writer's lock lets two
   * writers corrupt the dataset.
   */
  breakLock?: boolean;
}

function randomToken(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A held write lock: the file `<path>/.lock`, created exclusively, removed by
 * {@link DatasetLock.release}.
 *
 * @example
 * ```ts
 * const lock = await DatasetLock.acquire(store, "prices.bcolz");
 * try { ... } finally { await lock.release(); }
 * ```
 */
export class DatasetLock {
  /** Store key of the lock file. */
  readonly key: string;
  /** Random owner token written into the lock file. */
  readonly token: string;
  readonly #store: WritableStore;
  /** The exact bytes written to the lock file; release deletes the file only while it holds them. */
  readonly #content: Uint8Array;
  #held = true;

  private constructor(store: WritableStore, key: string, token: string, content: Uint8Array) {
    this.#store = store;
    this.key = key;
    this.token = token;
    this.#content = content;
  }

  /**
   * Creates `<path>/.lock` exclusively. If it exists: `ConflictError` `LOCKED` whose `path` is
   * the lock key and whose `actual` is the lock file's content (owner, pid, hostname, created),
   * unless `breakLock` is set. Stores without `putExclusive` get a check-then-put, which is not
   * atomic between processes. Once the lock is held, the temporary files killed writers left
   * under `path` are deleted (`store.removeStaleTemporaries`, when the store has it).
   *
   * @example
   * ```ts
   * const lock = await DatasetLock.acquire(store, "prices.bcolz");
   * ```
   */
  static async acquire(store: WritableStore, path: string, options: LockOptions = {}): Promise<DatasetLock> {
    const key = joinKey(path, LOCK_FILE);
    const token = randomToken();
    const entries: [string, JsonValue][] = [["owner", token]];
    const identity = store.writerIdentity?.() ?? {};
    for (const [k, v] of Object.entries(identity)) entries.push([k, v]);
    entries.push(["created", new Date().toISOString()]);
    const content = new TextEncoder().encode(stringifyPythonJson(createJsonObject(entries)) + "\n");
    if (options.breakLock === true) await store.delete(key);
    let created: boolean;
    if (store.putExclusive !== undefined) {
      created = await store.putExclusive(key, content);
    } else {
      created = (await store.get(key)) === undefined;
      if (created) await store.put(key, content);
    }
    if (!created) {
      const existing = await store.get(key);
      let holder: unknown = existing === undefined ? "(vanished)" : new TextDecoder().decode(existing).trim();
      try {
        if (existing !== undefined) holder = parsePythonJson(new TextDecoder().decode(existing));
      } catch {
        // keep the raw text
      }
      throw new ConflictError("LOCKED", "the dataset is open for writing elsewhere, or a writer was killed and left its lock: remove it with `bcolz-ts unlock` on the directory, or open with the breakLock option", {
        path: key,
        field: "lock",
        expected: "no lock file",
        actual: holder,
      });
    }
    const lock = new DatasetLock(store, key, token, content);
    // Holding the lock, nobody else writes here: leftover temporary files are a dead writer's.
    try {
      await store.removeStaleTemporaries?.(path);
    } catch (error) {
      await lock.release();
      throw error;
    }
    return lock;
  }

  /** Whether this lock is still held. */
  get held(): boolean {
    return this.#held;
  }

  /**
   * Removes the lock file if it is still ours; idempotent. A writer whose lock was broken
   * (`breakLock`) and taken by another writer never deletes the new holder's lock: the file is
   * deleted through `store.deleteIfUnchanged` with the exact bytes this lock wrote (on S3 a
   * DELETE with `If-Match`, atomic where the server honours it, otherwise one round trip after
   * the check); stores without it get a read, a comparison of the owner token, and a delete.
   *
   * @example
   * ```ts
   * await lock.release();
   * ```
   */
  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    if (this.#store.deleteIfUnchanged !== undefined) {
      await this.#store.deleteIfUnchanged(this.key, this.#content);
      return;
    }
    const current = await this.#store.get(this.key);
    if (current === undefined) return;
    const text = new TextDecoder().decode(current);
    if (text.includes(`"${this.token}"`)) await this.#store.delete(this.key);
  }

  /** Throws unless the lock is held (internal guard for writers). */
  assertHeld(path: string): void {
    if (!this.#held) throw new UsageError("INVALID_ARGUMENT", "the dataset was closed", { path, field: "lock" });
  }
}
