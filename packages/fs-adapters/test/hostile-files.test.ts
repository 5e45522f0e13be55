// FileSystemStore against what a hostile or damaged dataset directory can hold: special files,
// symbolic-link loops and planted links, over-long names, leftovers of killed writers
// (issue 9, items 3, 4, 8 and 10, and the temporary-file cleanup).
import { execFileSync } from "node:child_process";
import { mkdtemp, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BcolzError, UsageError, isBcolzError } from "@fmt/errors";
import { READ_BUFFER_OFFSET } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { storageFailure } from "../src/file-safety-node.js";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "fmt-fs-hostile-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let counter = 0;
async function freshDir(): Promise<string> {
  const dir = join(scratch, `case-${counter++}`);
  await mkdir(dir);
  return dir;
}

/** The rejection of `promise`, which must be a BcolzError with `code`. */
async function rejection(promise: Promise<unknown>, code: string): Promise<BcolzError> {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected a ${code} rejection`).toBeInstanceOf(BcolzError);
  expect((caught as BcolzError).code).toBe(code);
  return caught as BcolzError;
}

/** Every file below `dir` (not following links) with its content, for before/after comparisons. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length)] = entry.isFile() ? await readFile(path, "utf8") : entry.isDirectory() ? "<dir>" : "<other>";
  }
  return out;
}

const bytes = (...values: number[]) => new Uint8Array(values);

describe.each(["sync", "async"] as const)("special files are refused without reading or blocking (item 3), io %s", (io) => {
  it("a FIFO gives IO_ERROR from get, getRange and byteLength instead of waiting for a writer", async () => {
    const root = await freshDir();
    await mkdir(join(root, "meta"));
    execFileSync("mkfifo", [join(root, "meta", "sizes")]);
    const store = new FileSystemStore(root, { io });
    const error = await rejection(store.get("meta/sizes"), "IO_ERROR");
    expect(error.path).toBe("meta/sizes");
    expect(error.actual).toBe("a FIFO");
    await rejection(store.getRange("meta/sizes", { offset: 0, length: 16 }), "IO_ERROR");
    const sized = await rejection(store.byteLength("meta/sizes"), "IO_ERROR");
    expect([sized.path, sized.actual]).toEqual(["meta/sizes", "a FIFO"]);
  }, 20_000);

  it("a link to a character device gives IO_ERROR, not the device's bytes", async () => {
    // /dev/null rather than /dev/zero: the unfixed store would read /dev/zero until memory ran out.
    const root = await freshDir();
    await mkdir(join(root, "data"));
    await symlink("/dev/null", join(root, "data", "__0.blp"));
    const store = new FileSystemStore(root, { io });
    const error = await rejection(store.get("data/__0.blp"), "IO_ERROR");
    expect(error.actual).toBe("a character device");
    await rejection(store.getRange("data/__0.blp", { suffixLength: 4 }), "IO_ERROR");
  });

  it("reads at most the size fstat reports: a link to a /proc file that claims 0 bytes reads as empty", async () => {
    const root = await freshDir();
    await symlink("/proc/self/environ", join(root, "__attrs__"));
    const store = new FileSystemStore(root, { io });
    expect(await store.get("__attrs__")).toEqual(new Uint8Array(0));
    expect(await store.getRange("__attrs__", { offset: 0, length: 100 })).toEqual(new Uint8Array(0));
  });

  it("a directory is still a missing key, not an error", async () => {
    const root = await freshDir();
    await mkdir(join(root, "meta", "sizes"), { recursive: true });
    const store = new FileSystemStore(root, { io });
    expect(await store.get("meta/sizes")).toBeUndefined();
    expect(await store.getRange("meta/sizes", { offset: 0, length: 1 })).toBeUndefined();
    expect(await store.byteLength("meta/sizes")).toBeUndefined();
    // And byteLength of a missing file, a file under a file, a file.
    await writeFile(join(root, "meta", "sizes", "file"), "123");
    expect(await store.byteLength("meta/none")).toBeUndefined();
    expect(await store.byteLength("meta/sizes/file/below")).toBeUndefined();
    expect(await store.byteLength("meta/sizes/file")).toBe(3);
  });

  it("get refuses a file over maxValueBytes with SIZE_LIMIT and reads one at the limit", async () => {
    const root = await freshDir();
    await writeFile(join(root, "big"), new Uint8Array(5));
    await writeFile(join(root, "fits"), bytes(1, 2, 3, 4));
    const store = new FileSystemStore(root, { maxValueBytes: 4, io });
    const error = await rejection(store.get("big"), "SIZE_LIMIT");
    expect(error.path).toBe("big");
    expect(error.actual).toBe(5);
    expect(await store.get("fits")).toEqual(bytes(1, 2, 3, 4));
    expect(await store.getRange("big", { offset: 3, length: 10 })).toEqual(new Uint8Array(2));
    expect(() => new FileSystemStore(root, { maxValueBytes: -1 })).toThrow(/maxValueBytes/);
  });

  it("reads the same bytes, whole and in ranges (clipped at the end)", async () => {
    const root = await freshDir();
    const content = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) & 0xff);
    await writeFile(join(root, "chunk"), content);
    const store = new FileSystemStore(root, { io });
    expect(store.io).toBe(io);
    expect(await store.get("chunk")).toEqual(content);
    expect(await store.getRange("chunk", { offset: 65_000, length: 10_000 })).toEqual(content.subarray(65_000));
    expect(await store.getRange("chunk", { suffixLength: 3 })).toEqual(content.subarray(-3));
    expect(await store.get("absent")).toBeUndefined();
    expect(() => new FileSystemStore(root, { io: "threads" as never })).toThrow(/io must be/);
  });
});

describe("I/O errors are typed and name the key (item 4)", () => {
  it("a symbolic-link loop gives IO_ERROR ELOOP from every read", async () => {
    const root = await freshDir();
    await symlink("b", join(root, "a"));
    await symlink("a", join(root, "b"));
    const store = new FileSystemStore(root);
    const error = await rejection(store.get("a"), "IO_ERROR");
    expect(error.path).toBe("a");
    expect(error.actual).toBe("ELOOP");
    await rejection(store.get("a/meta/sizes"), "IO_ERROR");
    await rejection(store.getRange("a", { offset: 0, length: 1 }), "IO_ERROR");
    await rejection(store.list("a/"), "IO_ERROR");
  });

  it("a name longer than the file system allows is UNSAFE_NAME in every method", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    const long = "c".repeat(300);
    for (const key of [`${long}/meta/storage`, long]) {
      const error = await rejection(store.get(key), "UNSAFE_NAME");
      expect(error.path).toBe(key);
      expect(error.actual).toBe("ENAMETOOLONG");
      await rejection(store.getRange(key, { offset: 0, length: 1 }), "UNSAFE_NAME");
      await rejection(store.put(key, bytes(1)), "UNSAFE_NAME");
      await rejection(store.putExclusive(key, bytes(1)), "UNSAFE_NAME");
      await rejection(store.delete(key), "UNSAFE_NAME");
      await rejection(store.createDirectory(key), "UNSAFE_NAME");
    }
    expect(await readdir(root)).toEqual([]);
  });

  it("maps permission and device errors to IO_ERROR and leaves other errors alone", () => {
    // Real EACCES cannot be provoked when the tests run as root, and EIO not at all: the mapping
    // is checked on errors shaped like Node's system errors.
    const system = (code: string) => Object.assign(new Error(`${code}: failed`), { code, syscall: "open", errno: -1 });
    for (const [code, reason] of [["EACCES", /permission denied/], ["EPERM", /permission denied/], ["EIO", /file system failed/], ["ENOSPC", /file system failed/]] as const) {
      const mapped = storageFailure(system(code), "data/__0.blp", "read the file");
      expect(isBcolzError(mapped, "IO_ERROR"), code).toBe(true);
      expect((mapped as BcolzError).path).toBe("data/__0.blp");
      expect((mapped as BcolzError).actual).toBe(code);
      expect((mapped as BcolzError).message).toMatch(reason);
    }
    const bug = new TypeError("not a syscall");
    expect(storageFailure(bug, "k", "read")).toBe(bug);
    const argument = Object.assign(new RangeError("bad"), { code: "ERR_OUT_OF_RANGE" });
    expect(storageFailure(argument, "k", "read")).toBe(argument);
  });
});

describe("keys that merely start with two dots are inside the root (item 8)", () => {
  it("stores, reads, lists and deletes ..foo, a/..b and ...", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    for (const key of ["..foo", "a/..b", "...", "..x/y"]) {
      expect(store.pathOf(key)).toBe(join(root, ...key.split("/")));
      await store.put(key, bytes(7));
      expect(await store.get(key)).toEqual(bytes(7));
    }
    expect(await store.list("")).toEqual(["...", "..foo", "..x/y", "a/..b"]);
    await store.delete("..foo");
    expect(await store.get("..foo")).toBeUndefined();
    expect(() => store.pathOf("a/../../x")).toThrow(/unsafe store key/);
  });
});

describe("remembered key paths", () => {
  it("are the resolved path of the key below the root, for any valid key and root (property)", () => {
    // pathOf joins a valid key to the root without resolving it on POSIX: the same path
    // path.resolve gives, for keys of any characters but "/", "\\" and NUL, any root spelling.
    const segment = fc.string({ unit: fc.constantFrom("a", "Z", "0", ".", " ", ":", "_", "-", "é", "☃", "~"), minLength: 1, maxLength: 6 }).filter((x) => x !== "." && x !== "..");
    const keyArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => segments.join("/"));
    const rootArb = fc.constantFrom("/", "/tmp", "/tmp/", "/tmp//x/../y", "relative/dir", "./r/", "/a b/c:d");
    fc.assert(
      fc.property(rootArb, rootArb, keyArb, (root, later, key) => {
        const store = new FileSystemStore(root);
        expect(store.pathOf(key)).toBe(resolve(root, ...key.split("/")));
        // `root` is read-only to TypeScript only; a root changed later is resolved as well.
        (store as { root: string }).root = later;
        expect(store.pathOf(key)).toBe(resolve(later, ...key.split("/")));
      }),
      { seed: 2026, numRuns: 500 },
    );
  });

  it("resolve the same as fresh ones past the remembered count, and unsafe keys keep failing", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    // Twice in a row: a rejected key is never remembered.
    for (let i = 0; i < 2; i++) expect(() => store.pathOf("a/../../x")).toThrow(/unsafe store key/);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5000; i++) {
        const key = `data/__${i}.blp`;
        if (store.pathOf(key) !== join(root, "data", `__${i}.blp`)) expect.fail(`round ${round}: ${key}`);
      }
      expect(() => store.pathOf("a/../../x")).toThrow(/unsafe store key/);
      expect(() => store.pathOf("/etc/passwd")).toThrow(UsageError);
      await expect(store.getRanges("../x", [{ offset: 0, length: 1 }])).rejects.toBeInstanceOf(UsageError);
    }
  });
});

describe("read destinations", () => {
  it.each(["sync", "async"] as const)("start READ_BUFFER_OFFSET (2,032) bytes into their memory, whole files and ranges alike (io %s)", async (io) => {
    // Half a page from the file's bytes in theirs, off the 16-byte offset of a fresh large
    // allocation, which the kernel's copy from the page cache handles several times slower.
    expect(READ_BUFFER_OFFSET).toBe(2032);
    const root = await freshDir();
    const store = new FileSystemStore(root, { io });
    const data = new Uint8Array(300_000).map((_, i) => (i * 31) & 255);
    await store.put("data/__0.blp", data);
    const whole = (await store.get("data/__0.blp"))!;
    expect(whole.byteOffset).toBe(READ_BUFFER_OFFSET);
    expect(whole).toEqual(data);
    const part = (await store.getRange("data/__0.blp", { offset: 4096, length: 200_000 }))!;
    expect(part.byteOffset).toBe(READ_BUFFER_OFFSET);
    expect(part).toEqual(data.subarray(4096, 204_096));
    // Nothing before a result but zeros (no stale memory behind its buffer).
    for (const bytes of [whole, part]) expect(new Uint8Array(bytes.buffer, 0, READ_BUFFER_OFFSET).every((b) => b === 0)).toBe(true);
    const windows = (await store.getRanges("data/__0.blp", [{ offset: 0, length: 100_000 }, { offset: 299_990, length: 30 }]))!;
    expect(windows[0]!.byteOffset).toBe(READ_BUFFER_OFFSET);
    expect(windows[0]).toEqual(data.subarray(0, 100_000));
    expect(windows[1]).toEqual(data.subarray(299_990));
  });
});

describe("writes never follow symbolic links (item 10)", () => {
  async function plantedLink(): Promise<{ root: string; outside: string; store: FileSystemStore }> {
    const root = await freshDir();
    const outside = await freshDir();
    await writeFile(join(outside, "victim"), "precious");
    await mkdir(join(outside, "sub"));
    await writeFile(join(outside, "sub", "x"), "also precious");
    await mkdir(join(root, "col"));
    await symlink(outside, join(root, "data"));
    await symlink(outside, join(root, "col", "data"));
    return { root, outside, store: new FileSystemStore(root) };
  }

  it("put, putExclusive, delete and createDirectory refuse a link between the root and the target", async () => {
    const { outside, store } = await plantedLink();
    const before = await snapshot(outside);
    for (const prefix of ["data", "col/data"]) {
      const error = await rejection(store.put(`${prefix}/__0.blp`, bytes(1)), "UNSAFE_NAME");
      expect(error.path).toBe(`${prefix}/__0.blp`);
      expect(String(error.actual)).toContain(`${prefix} is a symbolic link`);
      await rejection(store.put(`${prefix}/new/deeper`, bytes(1)), "UNSAFE_NAME");
      await rejection(store.putExclusive(`${prefix}/.lock`, bytes(1)), "UNSAFE_NAME");
      await rejection(store.delete(`${prefix}/victim`), "UNSAFE_NAME");
      await rejection(store.delete(`${prefix}/sub/x`), "UNSAFE_NAME");
      await rejection(store.createDirectory(prefix), "UNSAFE_NAME");
      await rejection(store.createDirectory(`${prefix}/made`), "UNSAFE_NAME");
    }
    expect(await snapshot(outside)).toEqual(before);
  });

  it("reads still follow links inside the root; list names the link and deleting it spares the target", async () => {
    const { outside, store } = await plantedLink();
    expect(new TextDecoder().decode(await store.get("data/victim"))).toBe("precious");
    expect(await store.list("")).toEqual(["col/data", "data"]);
    const before = await snapshot(outside);
    for (const key of await store.list("")) await store.delete(key);
    expect(await store.list("")).toEqual([]);
    expect(await snapshot(outside)).toEqual(before);
  });

  it("a key that is itself a link loses the link, never the file it points to", async () => {
    const root = await freshDir();
    const outside = await freshDir();
    await writeFile(join(outside, "victim"), "precious");
    await symlink(join(outside, "victim"), join(root, "gone"));
    await symlink(join(outside, "victim"), join(root, "replaced"));
    const store = new FileSystemStore(root);
    await store.delete("gone");
    await store.put("replaced", bytes(65));
    expect(await readdir(root)).toEqual(["replaced"]);
    expect(await readFile(join(root, "replaced"), "utf8")).toBe("A");
    expect(await readFile(join(outside, "victim"), "utf8")).toBe("precious");
  });

  it("writes through real directories still create what is missing", async () => {
    const root = join(await freshDir(), "not-yet");
    const store = new FileSystemStore(root);
    await store.put("top", bytes(1));
    await store.put("a/b/c", bytes(2));
    await store.createDirectory("a/b/d");
    expect(await store.putExclusive("a/e/.lock", bytes(3))).toBe(true);
    expect(await store.list("")).toEqual(["a/b/c", "a/e/.lock", "top"]);
    expect((await readdir(join(root, "a", "b"))).sort()).toEqual(["c", "d"]);
  });
});

describe("list never walks into links", () => {
  it("a link back to the root is one key", async () => {
    const root = await freshDir();
    await writeFile(join(root, "f"), "1");
    await symlink(root, join(root, "a"));
    expect(await new FileSystemStore(root).list("")).toEqual(["a", "f"]);
  });

  it("two links back to the root do not multiply the walk, a link to / is not walked", async () => {
    const root = await freshDir();
    await writeFile(join(root, "f"), "1");
    await symlink(root, join(root, "a"));
    await symlink(root, join(root, "b"));
    await symlink("/", join(root, "c"));
    expect(await new FileSystemStore(root).list("")).toEqual(["a", "b", "c", "f"]);
  }, 20_000);
});

describe.each(["sync", "async"] as const)("list and delete keep their rules on either path (io %s: in the call or on the thread pool)", (io) => {
  it("list: temporary files hidden, links named and never walked, the prefix cut inside names, a missing root empty, a link loop IO_ERROR", async () => {
    const root = await freshDir();
    const outside = await freshDir();
    await writeFile(join(outside, "x"), "1");
    await mkdir(join(root, "data", "deep"), { recursive: true });
    await writeFile(join(root, "data", "__0.blp"), "0");
    await writeFile(join(root, "data", "__0.blp.fmt-tmp-0123456789abcdef"), "partial");
    await writeFile(join(root, "data", "deep", "__1.blp"), "1");
    await writeFile(join(root, "database"), "d");
    await writeFile(join(root, "meta"), "m");
    await symlink(root, join(root, "data", "back"));
    await symlink("/", join(root, "slash"));
    await symlink(outside, join(root, "linked"));
    await symlink(join(outside, "missing"), join(root, "dangling"));
    await symlink("b", join(root, "a"));
    await symlink("a", join(root, "b"));
    const store = new FileSystemStore(root, { io });
    expect(await store.list("")).toEqual(["a", "b", "dangling", "data/__0.blp", "data/back", "data/deep/__1.blp", "database", "linked", "meta", "slash"]);
    expect(await store.list("data/")).toEqual(["data/__0.blp", "data/back", "data/deep/__1.blp"]);
    expect(await store.list("data")).toEqual(["data/__0.blp", "data/back", "data/deep/__1.blp", "database"]);
    expect(await store.list("data/de")).toEqual(["data/deep/__1.blp"]);
    expect(await store.list("none/")).toEqual([]);
    expect(await new FileSystemStore(join(root, "no-such-dir"), { io }).list("")).toEqual([]);
    const loop = await rejection(store.list("a/"), "IO_ERROR");
    expect([loop.path, loop.actual]).toEqual(["a", "ELOOP"]);
  });

  it("delete: the file goes, a missing key, a missing parent, a parent that is a file and a directory are no error, a link goes and its target stays", async () => {
    const root = await freshDir();
    const outside = await freshDir();
    await writeFile(join(outside, "victim"), "precious");
    await mkdir(join(root, "data", "dir"), { recursive: true });
    await writeFile(join(root, "data", "__0.blp"), "0");
    await symlink(join(outside, "victim"), join(root, "data", "link"));
    await symlink(outside, join(root, "linked"));
    const store = new FileSystemStore(root, { io });
    for (const key of ["data/__0.blp", "data/__9.blp", "none/__0.blp", "data/__0.blp/below", "data/dir", "data/link"]) await store.delete(key);
    expect((await readdir(join(root, "data"))).sort()).toEqual(["dir"]);
    expect(await readFile(join(outside, "victim"), "utf8")).toBe("precious");
    await rejection(store.delete("linked/victim"), "UNSAFE_NAME");
    expect(await readFile(join(outside, "victim"), "utf8")).toBe("precious");
  });
});

describe("removeStaleTemporaries", () => {
  it("deletes the temporary files of killed writers below the path, and nothing else", async () => {
    const root = await freshDir();
    const outside = await freshDir();
    const temp = ".fmt-tmp-0123456789abcdef";
    await writeFile(join(outside, `kept${temp}`), "outside");
    await mkdir(join(root, "t", "c", "data"), { recursive: true });
    await mkdir(join(root, "other"));
    await writeFile(join(root, "t", `__attrs__${temp}`), "partial");
    await writeFile(join(root, "t", "__attrs__"), "{}");
    await writeFile(join(root, "t", "c", "data", `__0.blp${temp}`), "partial");
    await writeFile(join(root, "t", "c", "data", "__0.blp"), "whole");
    await writeFile(join(root, "t", "c", "data", "__1.blp.fmt-tmp-short"), "not ours");
    await writeFile(join(root, "other", `x${temp}`), "another dataset's");
    await symlink(outside, join(root, "t", "linked"));
    const store = new FileSystemStore(root);
    expect(await store.removeStaleTemporaries("t")).toEqual([`t/__attrs__${temp}`, `t/c/data/__0.blp${temp}`]);
    expect(await readdir(join(root, "t", "c", "data"))).toEqual(["__0.blp", "__1.blp.fmt-tmp-short"].sort());
    expect(await readdir(join(root, "other"))).toEqual([`x${temp}`]);
    expect(await readdir(outside)).toEqual([`kept${temp}`]);
    expect(await store.removeStaleTemporaries("t")).toEqual([]);
    expect(await store.removeStaleTemporaries("missing")).toEqual([]);
    expect(await store.removeStaleTemporaries("")).toEqual([`other/x${temp}`]);
    await rejection(store.removeStaleTemporaries("t/linked"), "UNSAFE_NAME");
    expect(await readdir(outside)).toEqual([`kept${temp}`]);
  });
});
