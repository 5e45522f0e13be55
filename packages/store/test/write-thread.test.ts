// Writers on a FileSystemStore whose new chunk files go to the process's write thread
// (`@fmt/fs-adapters/node`'s startWriteThread): the same files as without it, read back by real
// values, and a failed chunk write leaves the dataset as it was.
import { mkdtemp, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isBcolzError } from "@fmt/errors";
import { FileSystemStore, startWriteThread } from "@fmt/fs-adapters/node";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";
import { startedWriteThread } from "../../fs-adapters/src/write-thread-node.js";
import type { WriteThread } from "../../fs-adapters/src/write-thread-node.js";

let scratch: string;
let thread: WriteThread;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "fmt-store-write-thread-"));
  await startWriteThread();
  thread = await startedWriteThread();
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let counter = 0;
function freshDir(): string {
  return join(scratch, `case-${counter++}`);
}

/** A random walk of `n` doubles from `seed` (compressible, as real series are). */
function walk(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let s = seed | 1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    v += (s % 1000) / 100;
    out[i] = v;
  }
  return out;
}

/** Every file below `dir` with its bytes, to compare two datasets. */
async function files(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.set(join(entry.parentPath, entry.name).slice(dir.length), await readFile(join(entry.parentPath, entry.name)));
  }
  return out;
}

describe("carray and ctable writers with the write thread", () => {
  // Format 2 streams each new chunk into its superchunk file with writeAtWithAdler32: through the
  // thread, the thread computes its Adler-32 (the default checksum); without it, this thread does.
  it.each([1, 2] as const)("create and append write the same files as on the calling thread, and read back (format %i)", async (formatVersion) => {
    const values = walk(300_000, 7);
    const more = walk(123_457, 8);
    const dirs = [freshDir(), freshDir()];
    const before = thread.queuedFiles;
    for (const [i, dir] of dirs.entries()) {
      const store = new FileSystemStore(dir, { writeThread: i === 0 });
      const a = await createCarray(store, "", values, { dtype: "float64", chunklen: 4096, formatVersion, ...(formatVersion === 2 ? { superchunksize: 16 } : {}) });
      await a.append(more);
      await a.close();
    }
    // 73 chunks by create (the last one partial), then the appended ones past it.
    expect(thread.queuedFiles - before).toBeGreaterThanOrEqual(100);
    const [viaThread, here] = await Promise.all(dirs.map(files));
    expect([...viaThread!.keys()].sort()).toEqual([...here!.keys()].sort());
    for (const [name, bytes] of viaThread!) expect(Buffer.compare(bytes, here!.get(name)!), name).toBe(0);
    const read = (await (await openCarray(new FileSystemStore(dirs[0]!))).read()) as Float64Array;
    expect(Buffer.compare(Buffer.from(read.buffer, read.byteOffset, read.byteLength), Buffer.concat([Buffer.from(values.buffer), Buffer.from(more.buffer)]))).toBe(0);
  });

  it("a ctable's columns, written through the thread, read back", async () => {
    const dir = freshDir();
    const n = 200_000;
    const ints = new Int32Array(n).map((_, i) => (i * 7919) % 100_003);
    const reals = walk(n, 3);
    const t = await createCtable(new FileSystemStore(dir), "", [{ name: "i", data: ints }, { name: "x", data: reals }], { chunklen: 8192 });
    await t.close();
    const again = await openCtable(new FileSystemStore(dir));
    expect(Buffer.compare(Buffer.from(((await again.column("i").read()) as Int32Array).buffer), Buffer.from(ints.buffer))).toBe(0);
    expect(Buffer.compare(Buffer.from(((await again.column("x").read()) as Float64Array).buffer), Buffer.from(reals.buffer))).toBe(0);
  });

  it("an append whose chunk file cannot be written fails with the store's error and leaves the carray as it was", async () => {
    const dir = freshDir();
    const values = walk(50_000, 11);
    const a = await createCarray(new FileSystemStore(dir), "", values, { dtype: "float64", chunklen: 4096 });
    await a.close();
    // A directory where the append's fifth new chunk file goes: the write thread cannot replace it.
    await mkdir(join(dir, "data", "__17.blp"));
    const writer = await openCarray(new FileSystemStore(dir), { mode: "a" });
    const before = thread.queuedFiles;
    const error = await writer.append(walk(40_000, 12)).catch((e: unknown) => e);
    expect(isBcolzError(error) && [error.code, error.path]).toEqual(["ALREADY_EXISTS", "data/__17.blp"]);
    expect(thread.queuedFiles - before).toBeGreaterThan(0);
    await writer.close();
    const read = (await (await openCarray(new FileSystemStore(dir))).read()) as Float64Array;
    expect(read.length).toBe(values.length);
    expect(Buffer.compare(Buffer.from(read.buffer, read.byteOffset, read.byteLength), Buffer.from(values.buffer))).toBe(0);
  });
});
