// Writers on a FileSystemStore whose dataset holds planted symbolic links or leftovers of killed
// writers (issue 9, item 10 and the temporary-file cleanup): nothing outside the dataset root is
// ever written or deleted, and opening for writing sweeps stale temporary files.
import { lstat, mkdtemp, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "fmt-store-fs-safety-"));
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

async function rejection(promise: Promise<unknown>): Promise<BcolzError> {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(BcolzError);
  return caught as BcolzError;
}

/** Every entry below `dir` (links not followed) with file contents, to compare before and after. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length)] = entry.isFile() ? (await readFile(path)).toString("base64") : entry.isDirectory() ? "<dir>" : "<other>";
  }
  return out;
}

/** A directory outside every dataset, with files a redirected writer would clobber or delete. */
async function outsideDir(): Promise<string> {
  const outside = await freshDir();
  await writeFile(join(outside, "__0.blp"), "precious 0");
  await writeFile(join(outside, "__1.blp"), "precious 1");
  await mkdir(join(outside, "meta"));
  await writeFile(join(outside, "meta", "sizes"), "precious sizes");
  await writeFile(join(outside, "__attrs__"), "precious attrs");
  return outside;
}

describe("writers never write or delete through a planted symbolic link", () => {
  it("appending to a carray whose data/ is a link to an outside directory is refused", async () => {
    const root = join(await freshDir(), "a.bcolz");
    const store = new FileSystemStore(root);
    const created = await createCarray(store, "", new Float64Array(10).fill(1.5), { dtype: "<f8", chunklen: 4 });
    await created.close();
    const outside = await freshDir();
    await writeFile(join(outside, "victim"), "precious");
    // The attacker moves the chunks out and leaves a link in their place: reads still work.
    for (const name of await readdir(join(root, "data"))) await rename(join(root, "data", name), join(outside, name));
    await rm(join(root, "data"), { recursive: true });
    await symlink(outside, join(root, "data"));
    const before = await snapshot(outside);
    const a = await openCarray(store, "", { mode: "a" });
    const error = await rejection(a.append(new Float64Array(9).fill(2)).then(() => a.close()));
    expect(error.code).toBe("UNSAFE_NAME");
    expect(String(error.actual)).toContain("data is a symbolic link");
    await a.close().catch(() => undefined);
    expect(await snapshot(outside)).toEqual(before);
  });

  it("addColumn over a planted link is refused, with and without overwrite, and deletes nothing outside", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    const t = await createCtable(store, "t", [{ name: "a", data: new Int32Array([1, 2, 3]) }]);
    const outside = await outsideDir();
    await symlink(outside, join(root, "t", "evil"));
    const before = await snapshot(outside);
    const plain = await rejection(t.addColumn("evil", new Int32Array([4, 5, 6])));
    expect(["ALREADY_EXISTS", "UNSAFE_NAME"]).toContain(plain.code);
    const overwrite = await rejection(t.addColumn("evil", new Int32Array([4, 5, 6]), { overwrite: true }));
    expect(overwrite.code).toBe("UNSAFE_NAME");
    expect(t.names).toEqual(["a"]);
    await t.close();
    expect(await snapshot(outside)).toEqual(before);
    const reopened = await openCtable(store, "t");
    expect(reopened.names).toEqual(["a"]);
  });

  it("replacing a dataset (mode w) whose column directory is a link removes the link, never its target", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    const outside = await outsideDir();
    await mkdir(join(root, "t"));
    await writeFile(join(root, "t", "__rootdirs__"), '{"names": ["c"]}\n');
    await symlink(outside, join(root, "t", "c"));
    const before = await snapshot(outside);
    await (await createCtable(store, "t", [{ name: "c", data: new Int32Array([7]) }], { mode: "w" })).close();
    expect(await snapshot(outside)).toEqual(before);
    expect((await lstat(join(root, "t", "c"))).isDirectory()).toBe(true);
    expect(Array.from<unknown>(await (await openCtable(store, "t")).columns[0]!.read())).toEqual([7]);
  });

  it("renaming a column that holds a planted link copies the link's name at most, never the outside files", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    const t = await createCtable(store, "t", [{ name: "a", data: new Int32Array([1, 2]) }]);
    const outside = await outsideDir();
    await symlink(outside, join(root, "t", "a", "stolen"));
    const before = await snapshot(outside);
    await t.renameColumn("a", "b");
    await t.close();
    expect(await snapshot(outside)).toEqual(before);
    expect(await readdir(join(root, "t", "b"))).not.toContain("stolen");
    expect(await snapshot(join(root, "t"))).not.toHaveProperty("/b/stolen/__attrs__");
  });
});

describe("names longer than the file system allows", () => {
  it("addColumn and renameColumn with a 300-character name give UNSAFE_NAME and leave the table as it was", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    const t = await createCtable(store, "t", [{ name: "a", data: new Int32Array([1, 2]) }]);
    const long = "c".repeat(300);
    const added = await rejection(t.addColumn(long, new Int32Array([3, 4])));
    expect(added.code).toBe("UNSAFE_NAME");
    const renamed = await rejection(t.renameColumn("a", long));
    expect(renamed.code).toBe("UNSAFE_NAME");
    expect(t.names).toEqual(["a"]);
    await t.close();
    const reopened = await openCtable(store, "t");
    expect(reopened.names).toEqual(["a"]);
    expect(Array.from<unknown>(await reopened.columns[0]!.read())).toEqual([1, 2]);
  });
});

describe("opening for writing removes temporary files of killed writers", () => {
  it("carray: a leftover *.fmt-tmp-* next to a chunk is gone after open with mode a", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    await (await createCarray(store, "a", new Int16Array([1, 2, 3, 4, 5]), { dtype: "<i2", chunklen: 2 })).close();
    const leftover = join(root, "a", "data", "__2.blp.fmt-tmp-00112233445566ff");
    await writeFile(leftover, "half a chunk");
    await writeFile(join(root, "a", "meta", "sizes.fmt-tmp-ffeeddccbbaa9988"), "half");
    const a = await openCarray(store, "a", { mode: "a" });
    await a.close();
    expect(await readdir(join(root, "a", "data"))).toEqual(["__0.blp", "__1.blp", "__2.blp"]);
    expect(await readdir(join(root, "a", "meta"))).toEqual(["sizes", "storage"]);
    expect(Array.from<unknown>(await (await openCarray(store, "a")).read())).toEqual([1, 2, 3, 4, 5]);
  });

  it("ctable: leftovers in column directories are gone after open with mode a; read-only opens leave them", async () => {
    const root = await freshDir();
    const store = new FileSystemStore(root);
    await (await createCtable(store, "t", [{ name: "x", data: new Float32Array([1, 2]) }])).close();
    const leftover = join(root, "t", "x", "data", "__0.blp.fmt-tmp-0123456789abcdef");
    await writeFile(leftover, "partial");
    await openCtable(store, "t");
    expect(await readdir(join(root, "t", "x", "data"))).toContain("__0.blp.fmt-tmp-0123456789abcdef");
    await (await openCtable(store, "t", { mode: "a" })).close();
    expect(await readdir(join(root, "t", "x", "data"))).not.toContain("__0.blp.fmt-tmp-0123456789abcdef");
  });
});
