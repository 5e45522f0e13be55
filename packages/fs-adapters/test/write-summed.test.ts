// FileSystemStore.writeAtWithAdler32: a positional write followed by the Adler-32 of its bytes
// (XOR a given value, little-endian) and zero bytes, as format-2 writers store a new chunk, its
// bound checksum and its spare room. Through the write thread the sum is computed there; on the
// calling thread (no thread, io "async", a durable write, a subclass's own writeAt) it is computed
// here. Either way the file must hold zlib's Adler-32 of the bytes (node:zlib is the oracle), the
// promise must give the stored value, and failures must be writeAt's.
import { deflateSync } from "node:zlib";
import { mkdir, readFile } from "node:fs/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isBcolzError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import type { FileSystemStoreOptions } from "@fmt/fs-adapters/node";
import type { PutOptions } from "@fmt/fs-adapters";
import { useWriteThreadScratch } from "./write-thread-scratch.js";

const NEW_FILE: PutOptions = { unreferenced: true, durable: false };

const scratch = useWriteThreadScratch("fmt-write-summed-");

/** zlib's Adler-32 of `bytes`: the big-endian trailer of a zlib stream of them. */
function zlibAdler32(bytes: Uint8Array): number {
  const stream = deflateSync(bytes, { level: 0 });
  return new DataView(stream.buffer, stream.byteOffset + stream.length - 4, 4).getUint32(0, false);
}

/** What a summed write of `bytes` leaves in the file: the bytes, the stored value little-endian, the zeros. */
function expectedBytes(bytes: Uint8Array, xor: number, zeros: number): { stored: number; file: Buffer } {
  const stored = (zlibAdler32(bytes) ^ xor) >>> 0;
  const after = Buffer.alloc(4 + zeros);
  after.writeUInt32LE(stored, 0);
  return { stored, file: Buffer.concat([bytes, after]) };
}

/** The error a call rejects with (or `undefined`), as its code and fields. */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  const error = await call.then(() => undefined, (e: unknown) => e);
  return isBcolzError(error) ? { code: error.code, path: error.path, field: error.field, expected: error.expected, actual: error.actual } : error;
}

const part = fc.record({
  bytes: fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ minLength: 1000, maxLength: 70_000 })),
  xor: fc.oneof(fc.constant(0), fc.constant(0xffffffff), fc.nat({ max: 0xffffffff })),
  zeros: fc.oneof(fc.constant(0), fc.nat(2000)),
});

const WAYS: { name: string; options: FileSystemStoreOptions; put: PutOptions; throughThread: boolean }[] = [
  { name: "the write thread (io sync, a new file)", options: { fsync: false }, put: NEW_FILE, throughThread: true },
  { name: "the calling thread (io sync, writeThread false)", options: { fsync: false, writeThread: false }, put: NEW_FILE, throughThread: false },
  { name: "the calling thread (io sync, durable)", options: {}, put: { durable: true }, throughThread: false },
  { name: "libuv's pool (io async)", options: { fsync: false, io: "async" }, put: NEW_FILE, throughThread: false },
];

describe("writeAtWithAdler32", () => {
  it.each(WAYS)("writes the bytes, their Adler-32 XOR the value and the zeros, one part after the other, through $name", async ({ options, put, throughThread }) => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 100 }), fc.array(part, { minLength: 1, maxLength: 6 }), async (head, parts) => {
        const store = new FileSystemStore(scratch.freshRoot(), options);
        await store.put("data/__1__.bin", head, put);
        const queuedBefore = scratch.thread.queuedFiles;
        let end = head.length;
        const stored: Promise<number>[] = [];
        const expected: Buffer[] = [Buffer.from(head)];
        const values: number[] = [];
        for (const { bytes, xor, zeros } of parts) {
          // With io "sync" the bytes are taken before the call returns: changed at once, the
          // file must still get them as they were.
          const given = bytes.slice();
          const call = store.writeAtWithAdler32("data/__1__.bin", end, given, xor, zeros, put);
          if (options.io !== "async") given.fill(0x77);
          else await call;
          stored.push(call);
          const { stored: value, file } = expectedBytes(bytes, xor, zeros);
          values.push(value);
          expected.push(file);
          end += file.length;
        }
        expect(await Promise.all(stored)).toEqual(values);
        await store.sync();
        expect(Buffer.compare(await readFile(store.pathOf("data/__1__.bin")), Buffer.concat(expected))).toBe(0);
        expect(scratch.thread.queuedFiles - queuedBefore).toBe(throughThread ? parts.length : 0);
      }),
      { numRuns: 40 },
    );
  });

  it.each(WAYS)("writes its zeros over the bytes a file had there, through $name", async ({ options, put, throughThread }) => {
    // Appended, zeros left out between two writes would still read as zeros (a write past the end
    // leaves a hole); over older bytes, only zeros written read as zeros.
    const store = new FileSystemStore(scratch.freshRoot(), options);
    const old = new Uint8Array(9000).fill(0xee);
    await store.put("f", old, put);
    const before = scratch.thread.queuedFiles;
    const bytes = Uint8Array.from({ length: 1500 }, (_, i) => i % 251);
    const stored = await store.writeAtWithAdler32("f", 100, bytes, 0xabcdef, 6000, put);
    await store.sync();
    const { stored: value, file } = expectedBytes(bytes, 0xabcdef, 6000);
    expect(stored).toBe(value);
    expect(scratch.thread.queuedFiles - before).toBe(throughThread ? 1 : 0);
    const expected = Buffer.from(old);
    expected.set(file, 100);
    expect(Buffer.compare(await readFile(store.pathOf("f")), expected)).toBe(0);
  });

  it("gives 1 XOR the value for no bytes (the Adler-32 of nothing), through the thread and here", async () => {
    for (const [options, queued] of [[{ fsync: false }, 1], [{ fsync: false, writeThread: false }, 0]] as const) {
      const store = new FileSystemStore(scratch.freshRoot(), options);
      await store.put("f", new Uint8Array(3), NEW_FILE);
      const before = scratch.thread.queuedFiles;
      expect(await store.writeAtWithAdler32("f", 3, new Uint8Array(0), 6, 2, NEW_FILE)).toBe(7);
      expect(scratch.thread.queuedFiles - before).toBe(queued);
      expect([...(await readFile(store.pathOf("f")))]).toEqual([0, 0, 0, 7, 0, 0, 0, 0, 0]);
    }
  });

  it("through a slow thread, goes round the ring and the descriptors: 400 summed writes of mixed sizes, then 300 tiny ones, none awaited", async () => {
    const store = new FileSystemStore(scratch.freshRoot(), { fsync: false });
    await store.put("f", new Uint8Array(0), NEW_FILE);
    // Everything made first, so that the writes are queued back to back: ~14 MiB in the first
    // phase (the 8 MiB ring fills and goes round), then more tiny records than the 256
    // descriptors while the thread pauses 1 ms before each.
    const sizes = [...Array.from({ length: 400 }, (_, k) => (k % 7 === 0 ? 200_000 : (k * 7919) % 20_000)), ...Array.from({ length: 300 }, () => 16)];
    const parts = sizes.map((size, k) => {
      const bytes = Uint8Array.from({ length: size }, (_, i) => (i * 31 + k) & 0xff);
      const xor = (k * 2654435761) >>> 0;
      const zeros = k % 5 === 0 ? 0 : k % 40;
      return { bytes, xor, zeros, ...expectedBytes(bytes, xor, zeros) };
    });
    const before = scratch.thread.queuedFiles;
    scratch.thread.delayForTests(1);
    try {
      const stored: Promise<number>[] = [];
      let end = 0;
      for (const { bytes, xor, zeros, file } of parts) {
        stored.push(store.writeAtWithAdler32("f", end, bytes, xor, zeros, NEW_FILE));
        end += file.length;
      }
      expect(await Promise.all(stored)).toEqual(parts.map((p) => p.stored));
      expect(scratch.thread.queuedFiles - before).toBe(parts.length);
      expect(Buffer.compare(await readFile(store.pathOf("f")), Buffer.concat(parts.map((p) => p.file)))).toBe(0);
    } finally {
      scratch.thread.delayForTests(0);
    }
  });

  it.each(WAYS)("fails as writeAt does past the end, without the file and with a directory in its place, through $name", async ({ options, put }) => {
    const store = new FileSystemStore(scratch.freshRoot(), options);
    await store.put("data/f", new Uint8Array(10), put);
    await mkdir(store.pathOf("data/dir"));
    const bytes = new Uint8Array(5000).fill(3);
    const cases: [string, number][] = [["data/f", 11], ["data/missing", 0], ["data/dir", 0]];
    for (const [key, offset] of cases) {
      const summed = await failureOf(store.writeAtWithAdler32(key, offset, bytes, 1, 100, put));
      const plain = await failureOf(store.writeAt(key, offset, bytes, put));
      expect(summed, `${key} at ${offset}`).toEqual(plain);
      expect(summed, `${key} at ${offset}`).toHaveProperty("code");
    }
    // Nothing was written into the file that stays.
    expect(Buffer.compare(await readFile(store.pathOf("data/f")), Buffer.alloc(10))).toBe(0);
  });

  it("refuses a value to XOR that is not an unsigned 32-bit integer, and a count of zeros that is negative or over 2^31", async () => {
    const store = new FileSystemStore(scratch.freshRoot(), { fsync: false });
    await store.put("f", new Uint8Array(4), NEW_FILE);
    for (const xor of [-1, 2 ** 32, 1.5, Number.NaN]) {
      expect(await failureOf(store.writeAtWithAdler32("f", 4, new Uint8Array(8), xor, 0, NEW_FILE))).toMatchObject({ code: "INVALID_ARGUMENT", path: "f", field: "xor" });
    }
    for (const zeros of [-1, 0.5, 2 ** 31 + 1]) {
      expect(await failureOf(store.writeAtWithAdler32("f", 4, new Uint8Array(8), 0, zeros, NEW_FILE))).toMatchObject({ code: "INVALID_ARGUMENT", path: "f", field: "zeros" });
    }
    expect((await readFile(store.pathOf("f"))).length).toBe(4);
  });

  it("fails as writeAt does, writing nothing, for bytes that are not a Uint8Array and for a negative offset", async () => {
    for (const options of [{ fsync: false }, { fsync: false, writeThread: false }, { fsync: false, io: "async" as const }]) {
      const store = new FileSystemStore(scratch.freshRoot(), options);
      await store.put("f", new Uint8Array(10).fill(1), NEW_FILE);
      const cases: [number, unknown][] = [[-4, new Uint8Array(8)], [Number.NaN, new Uint8Array(8)], [2, [1, 2, 3]], [2, null]];
      for (const [offset, bytes] of cases) {
        const summed = await failureOf(store.writeAtWithAdler32("f", offset, bytes as Uint8Array, 0, 16, NEW_FILE));
        const plain = await failureOf(store.writeAt("f", offset, bytes as Uint8Array, NEW_FILE));
        expect(summed, `${String(bytes)} at ${offset}`).toEqual(plain);
        expect(summed, `${String(bytes)} at ${offset}`).toHaveProperty("code");
      }
      expect(Buffer.compare(await readFile(store.pathOf("f")), Buffer.alloc(10, 1))).toBe(0);
    }
  });

  it("goes through a subclass's own writeAt, which then sees the bytes and what follows them", async () => {
    const seen: [number, number][] = [];
    class Watched extends FileSystemStore {
      override writeAt(key: string, offset: number, bytes: Uint8Array, options?: PutOptions): Promise<void> {
        seen.push([offset, bytes.length]);
        return super.writeAt(key, offset, bytes, options);
      }
    }
    const store = new Watched(scratch.freshRoot(), { fsync: false });
    await store.put("f", new Uint8Array(2), NEW_FILE);
    const bytes = Uint8Array.from({ length: 3000 }, (_, i) => i * 7);
    const before = scratch.thread.queuedFiles;
    const stored = await store.writeAtWithAdler32("f", 2, bytes, 0x1234, 10, NEW_FILE);
    // Two plain writes, the sum computed here between them (the subclass's writeAt queues them).
    expect(seen).toEqual([[2, 3000], [3002, 14]]);
    expect(scratch.thread.queuedFiles - before).toBe(2);
    const { stored: value, file } = expectedBytes(bytes, 0x1234, 10);
    expect(stored).toBe(value);
    expect(Buffer.compare(await readFile(store.pathOf("f")), Buffer.concat([Buffer.alloc(2), file]))).toBe(0);
  });

  it("waits for a subclass's writeAt that does not take the bytes at once before it writes what follows them", async () => {
    const calls: number[] = [];
    class Late extends FileSystemStore {
      override async writeAt(key: string, offset: number, bytes: Uint8Array, options?: PutOptions): Promise<void> {
        const copy = bytes.slice();
        calls.push(offset);
        // The first write is the slower: started together, the second would find the file too
        // short for its offset (OUT_OF_RANGE).
        await new Promise((resolve) => setTimeout(resolve, offset === 1 ? 30 : 0));
        return super.writeAt(key, offset, copy, options);
      }
    }
    const store = new Late(scratch.freshRoot(), { fsync: false });
    expect(store.positionalWritesAtOnce).toBe(false);
    await store.put("f", new Uint8Array(1), NEW_FILE);
    const bytes = new Uint8Array(4000).fill(5);
    const stored = await store.writeAtWithAdler32("f", 1, bytes, 3, 6, NEW_FILE);
    expect(calls).toEqual([1, 4001]);
    const { stored: value, file } = expectedBytes(bytes, 3, 6);
    expect(stored).toBe(value);
    expect(Buffer.compare(await readFile(store.pathOf("f")), Buffer.concat([Buffer.alloc(1), file]))).toBe(0);
  });

  it("keeps the order of writes queued before and after it on the thread", async () => {
    const store = new FileSystemStore(scratch.freshRoot(), { fsync: false });
    await store.put("f", new Uint8Array(1), NEW_FILE);
    const a = new Uint8Array(20_000).fill(1);
    const b = new Uint8Array(30_000).fill(2);
    const pending = [store.writeAt("f", 1, a, NEW_FILE), store.writeAtWithAdler32("f", 20_001, b, 5, 7, NEW_FILE), store.writeAt("f", 20_001 + 30_000 + 11, Uint8Array.of(9), NEW_FILE)];
    await Promise.all(pending);
    const { file } = expectedBytes(b, 5, 7);
    expect(Buffer.compare(await readFile(store.pathOf("f")), Buffer.concat([Buffer.alloc(1), Buffer.from(a), file, Buffer.of(9)]))).toBe(0);
  });
});
