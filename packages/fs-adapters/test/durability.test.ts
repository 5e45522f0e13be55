import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { execFileSync } from "node:child_process";
import { link, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isBcolzError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import type { PutOptions } from "@fmt/fs-adapters";

// Every file handle opened by the store is wrapped so that its flushes can be counted, per
// path: the durability API is about how many fsyncs happen and on what, not about timing.
const flushes: { path: string; kind: "sync" | "datasync" }[] = [];
// Paths whose next fdatasync fails (EIO), once each.
const failingFlushes = new Set<string>();
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  const open = async (...args: Parameters<typeof actual.open>) => {
    const handle = await actual.open(...args);
    const path = String(args[0]);
    const sync = handle.sync.bind(handle);
    const datasync = handle.datasync.bind(handle);
    // Recorded once done: a flush counts when it has completed.
    handle.sync = async () => {
      await sync();
      flushes.push({ path, kind: "sync" });
    };
    handle.datasync = async () => {
      if (failingFlushes.delete(path)) throw Object.assign(new Error(`EIO: i/o error, fdatasync`), { code: "EIO", syscall: "fdatasync" });
      await datasync();
      flushes.push({ path, kind: "datasync" });
    };
    return handle;
  };
  return { ...actual, open, default: { ...actual, open } };
});
// With `io: "sync"` (the default) a put writes through the synchronous calls: its fsyncSync is
// recorded the same way, by the path each descriptor was opened for.
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const paths = new Map<number, string>();
  const openSync = (...args: Parameters<typeof actual.openSync>): number => {
    const fd = actual.openSync(...args);
    paths.set(fd, String(args[0]));
    return fd;
  };
  const closeSync = (fd: number): void => {
    paths.delete(fd);
    actual.closeSync(fd);
  };
  const fsyncSync = (fd: number): void => {
    actual.fsyncSync(fd);
    flushes.push({ path: paths.get(fd) ?? `fd ${fd}`, kind: "sync" });
  };
  const patched = { ...actual, openSync, closeSync, fsyncSync };
  return { ...patched, default: patched };
});
const { FileSystemStore, startWriteThread } = await import("@fmt/fs-adapters/node");

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "fmt-durability-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  flushes.length = 0;
});

let counter = 0;
const freshRoot = () => join(scratch, `case-${counter++}`);
const flushedPaths = () => flushes.map((f) => f.path).sort();

describe("FileSystemStore durability", () => {
  it.each(["sync", "async"] as const)("a default put flushes the file (before the rename, so under its temporary name) and its directory (io %s)", async (io) => {
    const root = freshRoot();
    const store = new FileSystemStore(root, { io });
    await store.put("meta/sizes", new Uint8Array([1]));
    expect(flushes).toHaveLength(2);
    expect(flushes[0]!.path.startsWith(join(root, "meta", "sizes.fmt-tmp-"))).toBe(true);
    expect(flushes[1]!.path).toBe(join(root, "meta"));
  });

  it("non-durable puts flush nothing; sync flushes each file and each directory once", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root);
    for (let k = 0; k < 3; k++) await store.put(`data/__${k}.blp`, new Uint8Array([k]), { durable: false });
    await store.put("data/__0.blp", new Uint8Array([9]), { durable: false }); // same file twice
    await store.put("meta/storage", new Uint8Array([7]), { durable: false });
    expect(flushes).toEqual([]);
    // Readers see the values at once: durability is the only thing deferred.
    expect([...(await readFile(join(root, "data", "__0.blp")))]).toEqual([9]);

    await store.sync();
    expect(flushedPaths()).toEqual([
      join(root, "data"),
      join(root, "data", "__0.blp"),
      join(root, "data", "__1.blp"),
      join(root, "data", "__2.blp"),
      join(root, "meta"),
      join(root, "meta", "storage"),
    ].sort());
    flushes.length = 0;
    await store.sync();
    expect(flushes).toEqual([]);
  });

  it("a durable put of a pending key covers it; sync skips files deleted meanwhile", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root);
    await store.put("a", new Uint8Array([1]), { durable: false });
    await store.put("b", new Uint8Array([1]), { durable: false });
    await store.put("a", new Uint8Array([2]));
    await unlink(join(root, "b"));
    flushes.length = 0;
    await store.sync();
    // Only the directory of the non-durable puts remains to flush.
    expect(flushedPaths()).toEqual([root]);
  });

  it("sync skips a pending file or directory replaced meanwhile by a FIFO, a directory, a file or a link, without waiting on a FIFO", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root);
    for (const key of ["fifo", "dir", "link", "kept", "sub/x", "filed/y", "linked/z"]) await store.put(key, new Uint8Array([1]), { durable: false });
    const outside = join(scratch, `outside-${counter++}`);
    await writeFile(outside, new Uint8Array([2]));
    await unlink(join(root, "fifo"));
    execFileSync("mkfifo", [join(root, "fifo")]);
    await unlink(join(root, "dir"));
    await mkdir(join(root, "dir"));
    await unlink(join(root, "link"));
    await symlink(outside, join(root, "link"));
    // The directories of pending files: replaced by a FIFO, a regular file, a link to a directory
    // outside the root holding a file of the same name.
    await rm(join(root, "sub"), { recursive: true });
    execFileSync("mkfifo", [join(root, "sub")]);
    await rm(join(root, "filed"), { recursive: true });
    await writeFile(join(root, "filed"), new Uint8Array([3]));
    const outsideDir = join(scratch, `outside-dir-${counter++}`);
    await mkdir(outsideDir);
    await writeFile(join(outsideDir, "z"), new Uint8Array([4]));
    await rm(join(root, "linked"), { recursive: true });
    await symlink(outsideDir, join(root, "linked"));
    flushes.length = 0;
    let timer: NodeJS.Timeout | undefined;
    try {
      // An open of a FIFO for reading waits for a writer: the sync would never resolve.
      const waited = new Promise<"waited">((resolve) => (timer = setTimeout(() => resolve("waited"), 5000)));
      expect(await Promise.race([store.sync().then(() => "synced" as const), waited])).toBe("synced");
    } finally {
      clearTimeout(timer);
      // Releases a reader blocked on the FIFO (an open for reading and writing never waits).
      const { openSync, closeSync, constants } = await import("node:fs");
      for (const fifo of ["fifo", "sub"]) closeSync(openSync(join(root, fifo), constants.O_RDWR | constants.O_NONBLOCK));
    }
    // Nothing of the store's stands at those names any more: only its own file and the root.
    expect(flushedPaths()).toEqual([root, join(root, "kept")].sort());
  });

  it("a sync that overlaps another resolves only once the files the other took are flushed too", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root);
    const keys = ["a", "b", "c"];
    for (const key of keys) await store.put(key, new Uint8Array([1]), { durable: false });
    const first = store.sync();
    await store.sync(); // finds nothing pending of its own, but the first sync's files count
    expect(flushedPaths()).toEqual([root, ...keys.map((k) => join(root, k))].sort());
    await first;
  });

  it("with fsync: false nothing is ever flushed, and every write is still readable", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root, { fsync: false });
    expect(store.fsync).toBe(false);
    await store.put("meta/sizes", new Uint8Array([1, 2]));
    await store.put("data/__0.blp", new Uint8Array([3]), { durable: false });
    expect(await store.putExclusive(".lock", new Uint8Array([4]))).toBe(true);
    await store.writeAt("meta/sizes", 1, new Uint8Array([9]));
    await store.sync();
    expect(flushes).toEqual([]);
    expect([...(await readFile(join(root, "meta", "sizes")))]).toEqual([1, 9]);
    expect([...(await readFile(join(root, "data", "__0.blp")))]).toEqual([3]);
    // The default store flushes the same writes (the spy sees them).
    const durable = new FileSystemStore(freshRoot());
    await durable.put("meta/sizes", new Uint8Array([1]));
    expect(flushes.length).toBeGreaterThan(0);
    expect(() => new FileSystemStore(root, { fsync: "no" as unknown as boolean })).toThrow(/fsync must be/);
  });

  it("rejects malformed options before writing anything", async () => {
    const store = new FileSystemStore(freshRoot());
    for (const options of [null, 5, { durable: "no" }, { unreferenced: 1 }]) {
      const error = await store.put("k", new Uint8Array([1]), options as unknown as PutOptions).catch((e: unknown) => e);
      expect(isBcolzError(error) && error.code).toBe("INVALID_ARGUMENT");
    }
    expect(await store.get("k")).toBeUndefined();
  });
});

describe("FileSystemStore in-place puts ({ unreferenced: true })", () => {
  it("write the file under its own name (no temporary file), durable at once or at the next sync", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root);
    await store.put("data/__0.blp", new Uint8Array([1, 2, 3]), { unreferenced: true });
    // Durable by default: the file itself is flushed, under its own name, then its directory.
    expect(flushes.map((f) => f.path)).toEqual([join(root, "data", "__0.blp"), join(root, "data")]);
    flushes.length = 0;
    await store.put("data/__1.blp", new Uint8Array([4]), { unreferenced: true, durable: false });
    expect(flushes).toEqual([]);
    await store.sync();
    expect(flushedPaths()).toEqual([join(root, "data"), join(root, "data", "__1.blp")].sort());
    expect(await readdir(join(root, "data"))).toEqual(["__0.blp", "__1.blp"]);
  });

  it("replace what stands at the name, never writing through it: a longer file, a symbolic link, a hard link, a FIFO", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root, { fsync: false });
    await store.put("data/__0.blp", new Uint8Array(1000).fill(7));
    await store.put("data/__0.blp", new Uint8Array([1, 2]), { unreferenced: true });
    expect([...(await readFile(join(root, "data", "__0.blp")))]).toEqual([1, 2]);

    // A symbolic link at the key's name is replaced, as the atomic put's rename replaces it; what
    // it points to (here outside the root) is not written.
    const outside = join(scratch, `outside-${counter++}`);
    await writeFile(outside, "keep");
    await symlink(outside, join(root, "data", "__1.blp"));
    await store.put("data/__1.blp", new Uint8Array([9]), { unreferenced: true });
    expect(await readFile(outside, "utf8")).toBe("keep");
    expect((await lstat(join(root, "data", "__1.blp"))).isFile()).toBe(true);
    expect([...(await readFile(join(root, "data", "__1.blp")))]).toEqual([9]);

    // A hard link: the other name keeps its content (a new file, not the shared one rewritten).
    const other = join(scratch, `other-${counter++}`);
    await writeFile(other, "snapshot");
    await link(other, join(root, "data", "__2.blp"));
    await store.put("data/__2.blp", new Uint8Array([5]), { unreferenced: true });
    expect(await readFile(other, "utf8")).toBe("snapshot");
    expect([...(await readFile(join(root, "data", "__2.blp")))]).toEqual([5]);

    // A FIFO nobody reads: opening it for writing would block the thread; it is replaced.
    execFileSync("mkfifo", [join(root, "data", "__3.blp")]);
    await store.put("data/__3.blp", new Uint8Array([6]), { unreferenced: true });
    expect((await lstat(join(root, "data", "__3.blp"))).isFile()).toBe(true);

    await mkdir(join(root, "data", "__4.blp"));
    const directory = await store.put("data/__4.blp", new Uint8Array([9]), { unreferenced: true }).catch((e: unknown) => e);
    expect(isBcolzError(directory) && [directory.code, directory.path]).toEqual(["ALREADY_EXISTS", "data/__4.blp"]);
    expect((await lstat(join(root, "data", "__4.blp"))).isDirectory()).toBe(true);

    // A symbolic link between the root and the file is still refused.
    await symlink(scratch, join(root, "linked"));
    const between = await store.put("linked/__0.blp", new Uint8Array([9]), { unreferenced: true }).catch((e: unknown) => e);
    expect(isBcolzError(between) && between.code).toBe("UNSAFE_NAME");
  });

  it("with io: async are atomic puts as before", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root, { io: "async" });
    await store.put("data/__0.blp", new Uint8Array([1]), { unreferenced: true });
    expect(flushes[0]!.path.startsWith(join(root, "data", "__0.blp.fmt-tmp-"))).toBe(true);
  });
});

describe("MemoryStore durability", () => {
  it("takes the same options and sync, which change nothing", async () => {
    const store = new MemoryStore();
    await store.put("k", new Uint8Array([1]), { durable: false });
    await store.sync();
    expect([...(await store.get("k"))!]).toEqual([1]);
    const error = await store.put("k", new Uint8Array([2]), { durable: 1 } as unknown as PutOptions).catch((e: unknown) => e);
    expect(isBcolzError(error) && error.code).toBe("INVALID_ARGUMENT");
  });
});

// Last in the file: these start the process's write thread, which would take the in-place puts
// of the tests above off the calling thread.
describe("FileSystemStore sync and the calls around it", () => {
  it("a put called after sync and not awaited stays pending for the next sync, even one the write thread writes", async () => {
    // sync takes what is pending in the call: taken later, the write thread's file could be
    // flushed before it was written (or skipped as missing) and then never flushed again.
    await startWriteThread();
    const root = freshRoot();
    for (const writeThread of [true, false]) {
      const key = `data/__${writeThread ? 1 : 2}.blp`;
      const writer = new FileSystemStore(root, { writeThread });
      const synced = writer.sync();
      const put = writer.put(key, new Uint8Array(1000).fill(7), { unreferenced: true, durable: false });
      await Promise.all([synced, put]);
      flushes.length = 0;
      await writer.sync();
      expect(flushedPaths(), `writeThread ${writeThread}`).toEqual([join(root, "data"), join(root, key)]);
    }
  });

  it("a failed sync's files are flushed by the next sync, even one called before the failure; a third finds nothing left", async () => {
    const root = freshRoot();
    const store = new FileSystemStore(root, { writeThread: false });
    for (const key of ["a", "b", "c", "d"]) await store.put(key, new Uint8Array([1]), { durable: false });
    failingFlushes.add(join(root, "b"));
    const first = store.sync().then(() => "resolved", (error: unknown) => (isBcolzError(error) ? [error.code, (error.cause as NodeJS.ErrnoException).code, error.path] : error));
    const put = store.put("e", new Uint8Array([2]), { durable: false });
    const second = store.sync();
    await put;
    expect(await first).toEqual(["IO_ERROR", "EIO", "b"]); // the key, as every error of the store names it
    await second;
    // b's flush failed; a, c and d may have been flushed by the first run too: the second flushes them all again, and e.
    expect(new Set(flushedPaths())).toEqual(new Set([root, ...["a", "b", "c", "d", "e"].map((k) => join(root, k))]));
    expect(flushes.filter((f) => f.path === join(root, "b"))).toHaveLength(1);
    flushes.length = 0;
    await store.sync();
    expect(flushes).toEqual([]);
  });
});
