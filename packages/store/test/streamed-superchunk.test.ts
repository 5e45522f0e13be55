// Format 2 on a store that takes written bytes at once and writes in place (FileSystemStore with
// io: "sync"): new superchunks are streamed, slot by slot, and their first bytes written last
// (StreamedSuperchunk). Elsewhere (io: "async") they are built in memory and put whole
// (PendingSuperchunk). Random sequences of writes must leave the same bytes in every file either
// way, and a create must really stream.
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import type { PutOptions } from "@fmt/fs-adapters";
import { FileSystemStore, startWriteThread } from "@fmt/fs-adapters/node";
import { adler32 } from "@fmt/header";
import { createCarray, openCarray } from "@fmt/store";
import type { CArray } from "@fmt/store";

const scratch = mkdtempSync(join(tmpdir(), "fmt-streamed-"));
// The datasets here stay under the 16 MiB after which the stores start the write thread: started
// here, so that the streamed slots go through it as a large create's do.
beforeAll(startWriteThread);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});
let counter = 0;

/** Every file of the dataset but the lock, by relative path. */
function files(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name !== ".lock") out.set(relative(root, path), readFileSync(path));
    }
  };
  walk(root);
  return out;
}

type Step = { op: "append"; rows: number; seed: number } | { op: "trim" | "resize"; n: number } | { op: "set"; at: number; value: number } | { op: "flush" | "reopen" | "compact" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("append" as const), rows: fc.oneof(fc.nat(6), fc.nat(60)), seed: fc.nat() }) },
  fc.record({ op: fc.constantFrom("trim" as const, "resize" as const), n: fc.nat(25) }),
  fc.record({ op: fc.constant("set" as const), at: fc.nat(), value: fc.double({ noNaN: true }) }),
  fc.record({ op: fc.constantFrom("flush" as const, "reopen" as const, "compact" as const) }),
);

/** Rows that compress unevenly (runs and noise), so that chunks differ in size. */
function rows(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let s = seed | 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = (s & 3) === 0 ? s : Math.floor(i / 4);
  }
  return out;
}

async function apply(array: CArray, store: FileSystemStore, step: Step): Promise<CArray> {
  switch (step.op) {
    case "append":
      await array.append(rows(step.rows, step.seed));
      return array;
    case "trim":
      await array.trim(Math.min(step.n, array.length));
      return array;
    case "resize":
      await array.resize(step.n);
      return array;
    case "set":
      if (array.length > 0) await array.set(step.at % array.length, step.value);
      return array;
    case "flush":
      await array.flush();
      return array;
    case "compact":
      await array.compact();
      return array;
    case "reopen":
      await array.close();
      return openCarray(store, "", { mode: "a" });
  }
}

/**
 * A MemoryStore that fails chosen positional writes into `data/`: the `failAt`-th from now (1:
 * the next), or the next one at offset 0 (a file's first bytes) with `failFirstBytes`. It takes
 * the bytes at once, as MemoryStore does; with `late`, it answers a few milliseconds later, as
 * the write thread does.
 */
class FailingStore extends MemoryStore {
  failAt = 0;
  failFirstBytes = false;
  constructor(readonly late = false) {
    super();
  }
  override get positionalWritesAtOnce(): boolean {
    return true;
  }
  override writeAt(key: string, offset: number, bytes: Uint8Array, options?: PutOptions): Promise<void> {
    let answer: Promise<void>;
    if (key.startsWith("data/") && ((this.failAt > 0 && --this.failAt === 0) || (this.failFirstBytes && offset === 0))) {
      if (offset === 0) this.failFirstBytes = false;
      answer = Promise.reject(new Error("injected write failure"));
    } else {
      answer = super.writeAt(key, offset, bytes, options);
    }
    if (!this.late) return answer;
    return new Promise((resolve, reject) => {
      answer.then(() => setTimeout(resolve, 2), (error: unknown) => setTimeout(() => reject(error), 2));
    });
  }
}

/** Writes `bytes` into the file at `path` at `offset`, below any store. */
function writeFileAt(path: string, offset: number, bytes: Uint8Array): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

/**
 * A {@link FailingStore} that stores each new chunk with `writeAtWithAdler32`, as a file store
 * does: two positional writes (the chunk; its sum and the zeros), failing and answering late as
 * the writes do, the sum known once both are done.
 */
class SummingFailingStore extends FailingStore {
  writeAtWithAdler32(key: string, offset: number, bytes: Uint8Array, xor: number, zeros: number, options?: PutOptions): Promise<number> {
    const stored = (adler32(bytes) ^ xor) >>> 0;
    const after = new Uint8Array(4 + zeros);
    new DataView(after.buffer).setUint32(0, stored, true);
    return Promise.all([this.writeAt(key, offset, bytes, options), this.writeAt(key, offset + bytes.length, after, options)]).then(() => stored);
  }
}

/** The memory stores the failure tests run on: the writer computes the sums, or the store does. */
const FAILING_STORES = [
  ["the writer sums", FailingStore],
  ["the store sums", SummingFailingStore],
] as const;

/** The values of `n` rows from `from`: row r holds r. */
function counting(n: number, from = 0): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => from + i);
}

/** Opens the dataset afresh: it must read whole, give rows 0 … length − 1, and take an append. */
async function checkReopens(store: MemoryStore, lengths: number[]): Promise<number> {
  const reader = await openCarray(store, "");
  expect(lengths).toContain(reader.length);
  expect(await reader.read()).toEqual(counting(reader.length));
  const writer = await openCarray(store, "", { mode: "a" });
  await writer.append(counting(5, writer.length));
  await writer.close();
  const after = await openCarray(store, "");
  expect(await after.read()).toEqual(counting(reader.length + 5));
  return reader.length;
}

describe("format-2 superchunks streamed as their chunks come", () => {
  it("leave the same bytes in every file as superchunks built whole, for random sequences of writes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(0, 10, 100),
        fc.constantFrom("adler32", "crc32", "none", "sha256") as fc.Arbitrary<"adler32">,
        fc.nat(40),
        fc.array(stepArb, { maxLength: 10 }),
        async (chunklen, superchunksize, spare, checksum, initial, steps) => {
          const streamedRoot = join(scratch, `case-${counter++}`);
          const wholeRoot = join(scratch, `case-${counter++}`);
          const streamedStore = new FileSystemStore(streamedRoot, { fsync: false });
          const wholeStore = new FileSystemStore(wholeRoot, { fsync: false, io: "async" });
          expect(streamedStore.positionalWritesAtOnce && !wholeStore.positionalWritesAtOnce).toBe(true);
          const options = { dtype: "<f8", chunklen, formatVersion: 2 as const, superchunksize, spare, checksum };
          let streamed = await createCarray(streamedStore, "", rows(initial, 7), options);
          let whole = await createCarray(wholeStore, "", rows(initial, 7), options);
          expect(files(streamedRoot)).toEqual(files(wholeRoot));
          for (const [i, step] of steps.entries()) {
            streamed = await apply(streamed, streamedStore, step);
            whole = await apply(whole, wholeStore, step);
            expect(await streamed.read()).toEqual(await whole.read());
            // Once both committed what they hold, the files agree byte for byte (before, a
            // streamed file may be on the store already, beyond the committed length).
            if (step.op === "flush" || step.op === "reopen" || step.op === "compact") expect(files(streamedRoot), `after step ${i}: ${JSON.stringify(step)}`).toEqual(files(wholeRoot));
          }
          await streamed.close();
          await whole.close();
          expect(files(streamedRoot)).toEqual(files(wholeRoot));
          rmSync(streamedRoot, { recursive: true });
          rmSync(wholeRoot, { recursive: true });
        },
      ),
      { numRuns: 100 },
    );
  });

  it.each(FAILING_STORES.flatMap(([name, kind]) => [false, true].map((late) => [name, kind, late] as const)))("a failed write of a file's first bytes is not committed: the next flush rebuilds the file (%s, answers late: %s)", async (_, kind, late) => {
    const store = new kind(late);
    const array = await createCarray(store, "", counting(0), { dtype: "<f8", chunklen: 10, formatVersion: 2, superchunksize: 4 });
    await array.append(counting(30));
    store.failFirstBytes = true;
    await expect(array.flush()).rejects.toThrow("injected write failure");
    // An append, a flush and a close after it: the file is written whole, never committed with
    // its first bytes missing.
    await array.append(counting(5, array.length));
    await array.flush();
    await array.close();
    expect(await checkReopens(store, [35])).toBe(35);
  });

  it.each(FAILING_STORES.flatMap(([name, kind]) => [false, true].map((late) => [name, kind, late] as const)))("a full file whose first bytes fail while the next chunks go on: the append fails, then appends and flushes work (%s, answers late: %s)", async (_, kind, late) => {
    const store = new kind(late);
    // Two chunks of two rows per file: an append of 3 rows to 9 (none committed yet) fills the
    // file of chunks 4 and 5, whose first bytes then fail; the append is rolled back to 9 rows,
    // whose last chunk (row 8) the flush writes as a partial chunk 4: chunk 5 must go.
    const array = await createCarray(store, "", counting(0), { dtype: "<f8", chunklen: 2, formatVersion: 2, superchunksize: 2 });
    await array.append(counting(9));
    store.failFirstBytes = true;
    await expect(array.append(counting(3, 9))).rejects.toThrow("injected write failure");
    const kept = array.length;
    expect(kept).toBe(9);
    await array.flush();
    expect(await (await openCarray(store, "")).read()).toEqual(counting(9));
    await array.append(counting(20 - kept, kept));
    await array.flush();
    expect(await array.read()).toEqual(counting(20));
    await array.close();
    expect(await checkReopens(store, [20])).toBe(20);
  });

  it.each(FAILING_STORES.flatMap(([name, kind]) => [false, true].map((late) => [name, kind, late] as const)))("a failed slot write fails its append, and a retried append and flush store the rows (%s, answers late: %s)", async (_, kind, late) => {
    for (const failAt of [1, 2, 3, 5]) {
      const store = new kind(late);
      const array = await createCarray(store, "", counting(0), { dtype: "<f8", chunklen: 10, formatVersion: 2, superchunksize: 8 });
      await array.append(counting(20));
      store.failAt = failAt;
      await expect(array.append(counting(30, 20)), `write ${failAt}`).rejects.toThrow("injected write failure");
      const kept = array.length;
      await array.append(counting(50 - kept, kept));
      await array.flush();
      expect(await array.read()).toEqual(counting(50));
      await array.close();
      expect(await checkReopens(store, [50]), `write ${failAt}`).toBe(50);
    }
  });

  it("a create writes each new superchunk in place, slot by slot, and never puts it whole", async () => {
    const puts = vi.spyOn(FileSystemStore.prototype, "put");
    const writes = vi.spyOn(FileSystemStore.prototype, "writeAt");
    const summed = vi.spyOn(FileSystemStore.prototype, "writeAtWithAdler32");
    const root = join(scratch, `case-${counter++}`);
    const store = new FileSystemStore(root, { fsync: false });
    expect(store.positionalWritesAtOnce).toBe(true);
    const values = rows(10_000, 3);
    const array = await createCarray(store, "", values, { dtype: "<f8", chunklen: 1000, formatVersion: 2, superchunksize: 4 });
    await array.close();
    const superchunkPuts = puts.mock.calls.filter(([key]) => /^data\/__\d+__\.bin$/.test(key));
    // Three files (10 chunks, 4 per file): each created with room for its first bytes only, the
    // 32-byte header, the metadata `{"capacity": 4, "first_chunk": 0}` (34 bytes, padded with
    // spaces to 40: spec/v2.md §5) and 4 offsets entries.
    expect(superchunkPuts.map(([key, value]) => [key, value.length])).toEqual([1, 2, 3].map((s) => [`data/__${s}__.bin`, 32 + 40 + 8 * 4]));
    // One write per chunk, which the store follows with its Adler-32 (the default checksum) bound
    // to the chunk's index and with the spare room, then the first bytes of each file.
    expect(summed.mock.calls.map(([key, , , xor]) => [key, xor])).toEqual(Array.from({ length: 10 }, (_, g) => [`data/__${Math.floor(g / 4) + 1}__.bin`, g]));
    expect(writes.mock.calls.filter(([key]) => key.startsWith("data/")).map(([, offset]) => offset)).toEqual([0, 0, 0]);
    expect(await (await openCarray(new FileSystemStore(root), "")).read()).toEqual(values);
  });

  it.each([
    ["read while writing", "memory"],
    ["rebuilt whole", "memory"],
    ["read while writing", "summing memory"],
    ["rebuilt whole", "summing memory"],
    ["read while writing", "file"],
    ["rebuilt whole", "file"],
  ] as const)("a chunk read back from its slot is checked against the checksum computed when it was written (%s, %s store)", async (path, kind) => {
    // The file store computes the Adler-32 on its write thread (writeAtWithAdler32), as the
    // summing memory store does on this one; the memory store leaves it to the writer.
    const fileStore = kind === "file" ? new FileSystemStore(join(scratch, `case-${counter++}`), { fsync: false }) : undefined;
    const store = fileStore ?? (kind === "summing memory" ? new SummingFailingStore() : new FailingStore());
    const array = await createCarray(store, "", counting(0), { dtype: "<f8", chunklen: 10, formatVersion: 2, superchunksize: 4 });
    await array.append(counting(25)); // chunks 0 and 1 streamed into data/__1__.bin, 5 rows pending
    // Unchanged, chunk 0 reads back from its slot: its checksum is the right one (chunk 1 is
    // left unread, so that no cache holds it below).
    expect(await array.get(3)).toBe(3);
    // Below the carray, one byte of chunk 1's compressed bytes changes (a store that answers
    // other bytes than it was given, a disk that lost them): chunk 1 is the second Blosc header
    // of 80 bytes in the file.
    const file = (await store.get("data/__1__.bin"))!;
    const starts: number[] = [];
    for (let at = 0; at + 16 <= file.length; at++) {
      if (file[at] === 2 && file[at + 3] === 8 && new DataView(file.buffer, file.byteOffset + at + 4, 4).getUint32(0, true) === 80) starts.push(at);
    }
    expect(starts.length).toBeGreaterThanOrEqual(2);
    const cbytes = new DataView(file.buffer, file.byteOffset + starts[1]! + 12, 4).getUint32(0, true);
    const changed = Uint8Array.of(file[starts[1]! + cbytes - 1]! ^ 0x5a);
    if (fileStore !== undefined) writeFileAt(fileStore.pathOf("data/__1__.bin"), starts[1]! + cbytes - 1, changed);
    else await MemoryStore.prototype.writeAt.call(store, "data/__1__.bin", starts[1]! + cbytes - 1, changed);
    // Reading chunk 1 while it is being written, or rebuilding the file from its slots (a new
    // image of chunk 0 turns the streamed file into one built whole): both refuse the bytes.
    const refused = path === "read while writing" ? array.get(12) : array.set(3, -1);
    await expect(refused).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH", path: "data/__1__.bin", field: "chunk[1].checksum" });
  });
});
