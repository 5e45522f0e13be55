// Helper threads (`createReadHelpers` of @fmt/store/node, the `helpers` option): a sum and a
// read into shared memory split between this thread and a helper that opens the
// same dataset itself. The results must be those of one thread to the last bit, on files real
// bcolz 1.2.1 wrote and on format-2 files; a damaged chunk in the helper's part gives the error
// one thread gives; a helper that sees another dataset, or that is gone, leaves the work to this
// thread. Every test checks that the helper did (or did not) take its part, so that none passes
// by running on one thread alone.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FormatError, UsageError } from "@fmt/errors";
import { MemoryStore } from "@fmt/fs-adapters";
import type { ReadableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray, openCtable } from "@fmt/store";
import type { CArray, CTable, HelperAnswer, HelperTask, ReadHelpers } from "@fmt/store";
import { createReadHelpers } from "@fmt/store/node";
import { CORPUS } from "./helpers.js";

const MIXED = join(CORPUS, "ctable_mixed", "data.bcolz");
const expectedOf = (column: string): Buffer => readFileSync(join(CORPUS, "ctable_mixed", "expected", `${column}.bin`));

/** Column `name` of `table`, a carray. */
function carray(table: CTable, name: string): CArray {
  const column = table.column(name);
  if (column.kind !== "carray") throw new Error(`${name} is not a carray`);
  return column;
}

/** Helpers that record each part they are given and each answer (or failure) they give. */
function recorded(inner: ReadHelpers): ReadHelpers & { tasks: HelperTask[]; answers: (HelperAnswer | Error)[] } {
  const tasks: HelperTask[] = [];
  const answers: (HelperAnswer | Error)[] = [];
  return {
    tasks,
    answers,
    threads: inner.threads,
    minChunks: inner.minChunks,
    reaches: (store: ReadableStore) => inner.reaches(store),
    run: async (store, task) => {
      tasks.push(task);
      try {
        const answer = await inner.run(store, task);
        answers.push(answer);
        return answer;
      } catch (error) {
        answers.push(error as Error);
        throw error;
      }
    },
    close: () => inner.close(),
  };
}

let helpers: ReadHelpers;
let dir: string;

beforeAll(() => {
  // Helper threads run the built JavaScript of @fmt/store (Node cannot execute the .ts sources).
  execFileSync("pnpm", ["exec", "tsc", "-b"], { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: "pipe" });
  // minChunks 2: the real bcolz ctable has 4 whole chunks of 1,000 rows (and 321 more).
  helpers = createReadHelpers({ threads: 1, minChunks: 2 });
  dir = mkdtempSync(join(tmpdir(), "read-helpers-"));
});

afterAll(async () => {
  await helpers.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("read helpers on files real bcolz 1.2.1 wrote (ctable_mixed)", () => {
  it("sum every numeric column as one thread does, bit for bit, and exactly for integers", async () => {
    const spy = recorded(helpers);
    const alone = await openCtable(new FileSystemStore(MIXED));
    const helped = await openCtable(new FileSystemStore(MIXED), { helpers: spy });
    for (const name of ["id", "price", "qty", "flag", "ratio", "code"]) {
      const before = spy.tasks.length;
      const one = await carray(alone, name).sum();
      const two = await carray(helped, name).sum();
      expect(Object.is(two, one), `${name}: ${String(two)} vs ${String(one)}`).toBe(true);
      expect(spy.tasks.length, name).toBe(before + 1);
      expect(spy.tasks.at(-1)).toMatchObject({ op: "sum", dataset: { path: name, length: 4321, chunklen: 1000 } });
    }
    // The integer sums against the values bcolz wrote (an oracle outside the library).
    const id = expectedOf("id");
    let idSum = 0n;
    for (let i = 0; i < id.length; i += 8) idSum += id.readBigInt64LE(i);
    expect(await carray(helped, "id").sum()).toBe(idSum);
    const qty = expectedOf("qty");
    let qtySum = 0;
    for (let i = 0; i < qty.length; i += 4) qtySum += qty.readInt32LE(i);
    expect(await carray(helped, "qty").sum()).toBe(qtySum);
    for (const answer of spy.answers) expect(answer).not.toBeInstanceOf(Error);
    expect(spy.answers.some((a) => "unlike" in a)).toBe(false);
  });

  it("leave a where count to this thread (a helper measured no gain there)", async () => {
    const spy = recorded(helpers);
    const table = await openCtable(new FileSystemStore(MIXED), { helpers: spy });
    const price = expectedOf("price");
    let want = 0;
    for (let r = 0; r < 4321; r++) if (price.readDoubleLE(8 * r) > 50) want++;
    expect(await table.where("price > 50", { as: "count" })).toBe(want);
    expect(spy.tasks).toHaveLength(0);
  });

  it("read a column into shared memory with the helper writing its part there", async () => {
    const spy = recorded(helpers);
    const table = await openCtable(new FileSystemStore(MIXED), { helpers: spy });
    const price = carray(table, "price");
    const out = new Float64Array(new SharedArrayBuffer(4321 * 8));
    await price.readInto(out);
    expect(Buffer.from(out.buffer).equals(expectedOf("price"))).toBe(true);
    // Rows from the middle of a chunk, at an offset into the shared buffer.
    // Rows from the middle of a chunk to the middle of another (the helper's part ends mid-chunk),
    // at an offset into the shared buffer, whose other bytes stay as they were.
    const part = new Float64Array(new SharedArrayBuffer(8 * 4000), 8 * 500, 2800);
    await price.readInto(part, 700, 3500);
    expect(Buffer.from(part.buffer, part.byteOffset, part.byteLength).equals(expectedOf("price").subarray(8 * 700, 8 * 3500))).toBe(true);
    expect(new Float64Array(part.buffer, 0, 500).every((v) => v === 0)).toBe(true);
    expect(new Float64Array(part.buffer, 8 * 3300).every((v) => v === 0)).toBe(true);
    expect(spy.tasks[1]).toMatchObject({ op: "read", start: 2000, stop: 3500, byteOffset: 8 * (500 + 1300) });
    expect(spy.tasks.map((t) => t.op)).toEqual(["read", "read"]);
    expect(spy.answers.every((a) => !(a instanceof Error) && "rows" in a)).toBe(true);
    // An ordinary array is read on this thread alone.
    await price.readInto(new Float64Array(4321));
    expect(spy.tasks.length).toBe(2);
  });
});

describe("read helpers on format-2 files", () => {
  let path: string;
  let values: Float64Array;

  beforeAll(async () => {
    path = join(dir, "v2.bcolz");
    // Chunk sums of very different sizes (1e16 beside small ones): their sum depends on the order
    // of additions, so a helper's sums must be added one by one after this thread's, as bcolz adds them.
    const leading = [1e16, 3, -1e16, 5.5, 7.25, -3e16, 1e-3];
    values = Float64Array.from({ length: 25_000 }, (_, i) => (i % 1000 === 0 ? leading[(i / 1000) % leading.length]! : Math.sin(i) / 8));
    const a = await createCarray(new FileSystemStore(path, { fsync: false }), "", values, { dtype: "float64", chunklen: 1000, formatVersion: 2, checksum: "adler32", superchunksize: 5 });
    await a.close();
  });

  /** The helped sum equals one thread's to the last bit, and a helped read gives `values`. */
  async function asOneThread(with_: ReadHelpers): Promise<void> {
    const alone = await openCarray(new FileSystemStore(path));
    const helped = await openCarray(new FileSystemStore(path), { helpers: with_ });
    expect(Object.is(await helped.sum(), await alone.sum())).toBe(true);
    const out = new Float64Array(new SharedArrayBuffer(values.byteLength));
    await helped.readInto(out);
    expect(out).toEqual(values);
  }

  it("sum and read as one thread does", async () => {
    const spy = recorded(helpers);
    await asOneThread(spy);
    expect(spy.tasks.map((t) => [t.op, t.dataset.formatVersion])).toEqual([["sum", 2], ["read", 2]]);
    expect(spy.answers.every((a) => !(a instanceof Error) && !("unlike" in a))).toBe(true);
  });

  it("three parts on two helper threads; a dataset rewritten at the same length, opened anew", async () => {
    const two = recorded(createReadHelpers({ threads: 2, minChunks: 3 }));
    try {
      await asOneThread(two);
      const out = new Float64Array(new SharedArrayBuffer(values.byteLength));
      expect(two.tasks.map((t) => [t.op, t.start, t.stop])).toEqual([["sum", 8000, 17000], ["sum", 17000, 25000], ["read", 8000, 17000], ["read", 17000, 25000]]);
      // Rewritten with other superchunks and other values (the same length): a handle opened
      // after it sees the new dataset, on the helpers' side too.
      const rewritten = Float64Array.from(values, (v, i) => v * 2 + (i % 3));
      rmSync(path, { recursive: true });
      await (await createCarray(new FileSystemStore(path, { fsync: false }), "", rewritten, { dtype: "float64", chunklen: 1000, formatVersion: 2, checksum: "adler32", superchunksize: 7 })).close();
      const again = await openCarray(new FileSystemStore(path), { helpers: two });
      expect(Object.is(await again.sum(), await (await openCarray(new FileSystemStore(path))).sum())).toBe(true);
      await again.readInto(out);
      expect(out).toEqual(rewritten);
      expect(two.answers.every((a) => !(a instanceof Error) && !("unlike" in a))).toBe(true);
      values = rewritten;
    } finally {
      await two.close();
    }
  });

  it("a damaged chunk in the helper's part gives one thread's error, with its path and field", async () => {
    const damaged = join(dir, "v2-damaged.bcolz");
    cpSync(path, damaged, { recursive: true });
    // Superchunks of seven chunks: the fourth holds chunks 21–24, all in the helper's part (from 13 on).
    const file = join(damaged, "data", "__4__.bin");
    const bytes = readFileSync(file);
    for (let at = bytes.length >> 2; at < (bytes.length * 3) >> 2; at += 997) bytes[at]! ^= 0xff;
    writeFileSync(file, bytes);
    const alone = await openCarray(new FileSystemStore(damaged));
    const spy = recorded(helpers);
    const helped = await openCarray(new FileSystemStore(damaged), { helpers: spy });
    const oneError = await alone.sum().then(() => undefined, (error: unknown) => error);
    const twoError = await helped.sum().then(() => undefined, (error: unknown) => error);
    expect(oneError).toBeInstanceOf(FormatError);
    expect(twoError).toBeInstanceOf(FormatError);
    expect(twoError).toMatchObject({ code: (oneError as FormatError).code, path: (oneError as FormatError).path, field: (oneError as FormatError).field });
    expect(spy.answers[0]).toBeInstanceOf(FormatError);
    // A read into shared memory fails the same way, once the helper has stopped writing.
    const out = new Float64Array(new SharedArrayBuffer(values.byteLength));
    await expect(helped.readInto(out)).rejects.toMatchObject({ code: (oneError as FormatError).code, path: (oneError as FormatError).path });
  });
});

describe("when the helper cannot take its part", () => {
  it("a dataset that grew after the caller opened it: the caller's rows, summed here", async () => {
    const path = join(dir, "grows.bcolz");
    const first = Float64Array.from({ length: 12_000 }, (_, i) => i * 0.5);
    const writer = await createCarray(new FileSystemStore(path, { fsync: false }), "", first, { dtype: "float64", chunklen: 1000 });
    await writer.close();
    const spy = recorded(helpers);
    const reader = await openCarray(new FileSystemStore(path), { helpers: spy });
    const want = await (await openCarray(new FileSystemStore(path))).sum();
    const more = await openCarray(new FileSystemStore(path, { fsync: false }), { mode: "a" });
    await more.append(Float64Array.from({ length: 3000 }, () => 1e6));
    await more.close();
    expect(reader.length).toBe(12_000);
    expect(await reader.sum()).toBe(want);
    const out = new Float64Array(new SharedArrayBuffer(12_000 * 8));
    await reader.readInto(out);
    expect(out).toEqual(first);
    expect(spy.answers).toHaveLength(2);
    for (const answer of spy.answers) expect(answer).toMatchObject({ unlike: expect.stringContaining("length") as unknown });
  });

  it("answers that do not fit their part are not used: the part is done here", async () => {
    const path = join(dir, "answers.bcolz");
    const values = Float64Array.from({ length: 16_500 }, (_, i) => (i % 1000 === 0 ? [1e16, 3, -1e16][(i / 1000) % 3]! : Math.cos(i)));
    await (await createCarray(new FileSystemStore(path, { fsync: false }), "", values, { dtype: "float64", chunklen: 1000 })).close();
    const want = await (await openCarray(new FileSystemStore(path))).sum();
    const wrong: ((answer: HelperAnswer) => HelperAnswer)[] = [
      (a) => ("chunkSums" in a ? { chunkSums: a.chunkSums.subarray(1) } : a), // one chunk sum too few
      () => ({ total: 5n }), // an integer's answer for a float64 array
      (a) => ("rows" in a ? { rows: a.rows - 1 } : a), // a row short
      () => ({ chunkSums: new Float64Array(0) }), // a sum's answer for a read
    ];
    for (const bend of wrong) {
      const spy = recorded(helpers);
      const bent: ReadHelpers = { ...spy, run: async (store, task) => bend(await spy.run(store, task)) };
      const array = await openCarray(new FileSystemStore(path), { helpers: bent, maxChunksPerCall: 100_000 });
      expect(Object.is(await array.sum(), want)).toBe(true);
      const out = new Float64Array(new SharedArrayBuffer(values.byteLength));
      await array.readInto(out);
      expect(out).toEqual(values);
      expect(spy.tasks.map((t) => t.op)).toEqual(["sum", "read"]);
      // The caller's handle and limits go with every part.
      expect(spy.tasks[0]!.dataset).toMatchObject({ opening: expect.any(String) as unknown, maxChunksPerCall: 100_000, verifyChecksums: true });
      expect(spy.tasks[1]!.dataset.opening).toBe(spy.tasks[0]!.dataset.opening);
    }
    // Helpers that do nothing and claim a row too few: the rows are read here.
    const idle: ReadHelpers = {
      threads: 1,
      minChunks: 2,
      reaches: () => true,
      run: (_store, task) => Promise.resolve(task.op === "read" ? { rows: task.stop - task.start - 1 } : { chunkSums: new Float64Array(0) }),
      close: () => Promise.resolve(),
    };
    const array = await openCarray(new FileSystemStore(path), { helpers: idle });
    const out = new Float64Array(new SharedArrayBuffer(values.byteLength));
    await array.readInto(out);
    expect(out).toEqual(values);
  });

  it("a dataset the helper cannot open: it answers unlike", async () => {
    const dataset = { path: "nowhere", opening: "test-1", length: 10, chunklen: 1, dtype: "<f8", atomSize: 8, formatVersion: 1 as const, verifyChecksums: true, maxReadBytes: 1 << 20, maxChunksPerCall: 100 };
    const answer = await helpers.run(new FileSystemStore(dir), { op: "sum", dataset, start: 5, stop: 10 });
    expect(answer).toMatchObject({ unlike: expect.stringContaining("cannot open it here") as unknown });
  });

  it("closed helpers: the work is done here", async () => {
    const closing = recorded(createReadHelpers({ threads: 1, minChunks: 2 }));
    const table = await openCtable(new FileSystemStore(MIXED), { helpers: closing });
    await closing.close();
    const want = await carray(await openCtable(new FileSystemStore(MIXED)), "price").sum();
    expect(await carray(table, "price").sum()).toBe(want);
    const out = new Float64Array(new SharedArrayBuffer(4321 * 8));
    await carray(table, "price").readInto(out);
    expect(Buffer.from(out.buffer).equals(expectedOf("price"))).toBe(true);
    expect(spy(closing)).toEqual(["sum", "read"]);
    expect(closing.answers.every((a) => a instanceof Error && !(a instanceof FormatError))).toBe(true);
  });

  it("no part is sent for a store the helpers do not reach, a writable array, or too few chunks", async () => {
    const spy = recorded(helpers);
    const memory = new MemoryStore();
    await createCarray(memory, "", Float64Array.from({ length: 10_000 }, (_, i) => i), { dtype: "float64", chunklen: 1000 });
    expect(await (await openCarray(memory, { helpers: spy })).sum()).toBe(49_995_000);
    const path = join(dir, "writable.bcolz");
    await (await createCarray(new FileSystemStore(path, { fsync: false }), "", Float64Array.from({ length: 10_000 }, (_, i) => i), { dtype: "float64", chunklen: 1000 })).close();
    const a = await openCarray(new FileSystemStore(path, { fsync: false }), { mode: "a", helpers: spy });
    expect(await a.sum()).toBe(49_995_000);
    await a.close();
    const few = recorded(createReadHelpers({ threads: 1 })); // minChunks 8; the column has 4 whole chunks
    try {
      await carray(await openCtable(new FileSystemStore(MIXED), { helpers: few }), "price").sum();
      expect(few.tasks).toHaveLength(0);
    } finally {
      await few.close();
    }
    expect(spy.tasks).toHaveLength(0);
  });

  it("refuses helpers that are not helpers, and bad options", () => {
    expect(() => createReadHelpers({ threads: 0 })).toThrow(UsageError);
    expect(() => createReadHelpers({ minChunks: 0 })).toThrow(UsageError);
    return expect(openCarray(new FileSystemStore(MIXED), "price", { helpers: { threads: 1 } as unknown as ReadHelpers })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "helpers" });
  });
});

function spy(helpers: { tasks: HelperTask[] }): string[] {
  return helpers.tasks.map((t) => t.op);
}
