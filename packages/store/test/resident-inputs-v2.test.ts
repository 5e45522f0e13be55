// Format-2 passes read runs of slots straight into the decoder's WebAssembly memory too: its own
// memory when the checksums are computed on the reading thread, a shared memory when a CRC-32
// thread that reads shared memory where it lies computes them (no transfer, no copy in), and
// ordinary buffers only for a thread that takes transfers. The values are the written ones, and
// a flipped byte or a wrong answer from the thread is still caught.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { useCrc32, useCrc32Offload } from "@fmt/header";
import type { Crc32Answer, Crc32Offload } from "@fmt/header";
import { Crc32Worker, nativeCrc32, useNativeCrc32 } from "@fmt/header/node";
import { isResidentView } from "@fmt/blosc";
import type { ReadableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";
import { recording } from "./recording-store.js";
import { randomWalk, sameValues } from "./walk-values.js";

const dir = mkdtempSync(join(tmpdir(), "bcolz-resident-v2-"));
const worker = new Crc32Worker();
afterEach(async () => {
  await useCrc32Offload(undefined);
  useNativeCrc32();
});
afterAll(async () => {
  await worker.close();
  rmSync(dir, { recursive: true, force: true });
});

const CHUNKLEN = 4096;
const CHUNKS = 40;
const SUPERCHUNK = 8;
const values = randomWalk(CHUNKLEN * CHUNKS + 77, 5);
const expectedSum = values.reduce((x, y) => x + y, 0);

async function dataset(name: string): Promise<string> {
  const path = join(dir, name);
  const options = { dtype: "<f8", chunklen: CHUNKLEN, formatVersion: 2, checksum: "crc32", superchunksize: SUPERCHUNK } as const;
  await (await createCarray(new FileSystemStore(path), "", values, options)).close();
  return path;
}

/** The worker behind an offload that says `sharesMemory` or not, recording the buffers it is given. */
function offloadTo(sharesMemory: boolean, answer?: (answer: Crc32Answer, request: number) => Promise<Crc32Answer>) {
  const buffers: ArrayBufferLike[] = [];
  const spansPerRequest: number[] = [];
  const offload: Crc32Offload = {
    sharesMemory,
    crc32: async (buffer, asked) => {
      buffers.push(buffer);
      spansPerRequest.push(asked.length);
      const got = await worker.crc32(buffer, asked);
      return answer === undefined ? got : answer(got, buffers.length);
    },
  };
  return { offload, buffers, spansPerRequest, spans: () => spansPerRequest.reduce((n, k) => n + k, 0) };
}

/** A FileSystemStore counting every read (whole, range, into a buffer). */
function counted(path: string): { store: ReadableStore; reads: () => number } {
  const inner = new FileSystemStore(path);
  let reads = 0;
  const store: ReadableStore = {
    get: (key) => (reads++, inner.get(key)),
    getRange: (key, range) => (reads++, inner.getRange(key, range)),
    list: (prefix) => inner.list(prefix),
    getInto: (key, buffer, range) => (reads++, inner.getInto(key, buffer, range)),
  };
  return { store, reads: () => reads };
}

/** Flips one bit in the payload of chunk `i` of superchunk `s` (past its 16-byte Blosc header). */
function flipInChunk(path: string, s: number, i: number): () => void {
  const file = join(path, "data", `__${s}__.bin`);
  const good = readFileSync(file);
  const bad = Buffer.from(good);
  // The offsets table follows the 32-byte header and the metadata section (`meta-size`, byte 24).
  const metaSize = bad.readUInt32LE(24);
  const offset = Number(bad.readBigInt64LE(32 + metaSize + 8 * i));
  bad[offset + 16 + 100]! ^= 0x04;
  writeFileSync(file, bad);
  return () => writeFileSync(file, good);
}

describe("format-2 passes read runs of slots into the decoder's memory", () => {
  it("checked on the reading thread: one memory of the decoder's own for every run; values, sums, blocks", async () => {
    await useCrc32Offload(undefined);
    const path = await dataset("plain.bcolz");
    const { store, lent } = recording(new FileSystemStore(path));
    const a = await openCarray(store, "");
    expect(sameValues((await a.read()) as Float64Array, values)).toBe(true);
    const memory = lent[0]!.buffer;
    expect(memory instanceof SharedArrayBuffer).toBe(false);
    expect(lent.length).toBeGreaterThanOrEqual(CHUNKS / SUPERCHUNK);
    expect(lent.every((b) => b.buffer === memory)).toBe(true);
    expect(Math.abs(Number(await a.sum()) - expectedSum)).toBeLessThan(1e-6 * Math.abs(expectedSum) + 1e-6);
    const got = new Float64Array(values.length);
    for await (const block of a.iterBlocks({ blockLen: 3000, reuse: true })) got.set(new Float64Array(block.bytes.slice().buffer), block.start);
    expect(sameValues(got, values)).toBe(true);
    expect(lent.every((b) => b.buffer === memory)).toBe(true);
    const restore = flipInChunk(path, 2, 3);
    await expect((await openCarray(new FileSystemStore(path), "")).read()).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH", path: "data/__2__.bin", field: "chunk[3].checksum" });
    restore();
    expect(sameValues((await (await openCarray(new FileSystemStore(path), "")).read()) as Float64Array, values)).toBe(true);
  });

  it("with a CRC-32 thread that reads shared memory: runs are read into shared memory, which the thread reads in place", async () => {
    const path = await dataset("shared.bcolz");
    const { offload, buffers, spans } = offloadTo(true);
    expect(await useCrc32Offload(offload)).toBe(true);
    buffers.length = 0;
    const before = spans();
    const { store, lent } = recording(new FileSystemStore(path));
    const a = await openCarray(store, "");
    expect(sameValues((await a.read()) as Float64Array, values)).toBe(true);
    const memory = lent[0]!.buffer;
    expect(memory instanceof SharedArrayBuffer).toBe(true);
    expect(lent.every((b) => b.buffer === memory)).toBe(true);
    // Every chunk's CRC-32 was computed by the thread, from the memory the runs were read into.
    expect(spans() - before).toBe(Math.ceil(values.length / CHUNKLEN));
    expect(buffers.length).toBeGreaterThan(0);
    expect(buffers.every((b) => b === memory)).toBe(true);
    expect(Math.abs(Number(await a.sum()) - expectedSum)).toBeLessThan(1e-6 * Math.abs(expectedSum) + 1e-6);
    const rows = [0, 5, CHUNKLEN * 9 + 1, values.length - 1, CHUNKLEN * 31 + 7];
    expect(sameValues((await a.take(rows)) as Float64Array, rows.map((r) => values[r]!))).toBe(true);
    expect(lent.every((b) => b.buffer === memory)).toBe(true);

    const tablePath = join(dir, "shared-table.bcolz");
    const columnOptions = { dtype: "<f8", chunklen: CHUNKLEN, formatVersion: 2, checksum: "crc32", superchunksize: SUPERCHUNK } as const;
    await (await createCtable(new FileSystemStore(tablePath), "", [{ name: "x", data: values, options: columnOptions }], { formatVersion: 2 })).close();
    const t = await openCtable(new FileSystemStore(tablePath), "");
    const threshold = values[999]!;
    let count = 0;
    for (const v of values) if (v > threshold) count++;
    expect(await t.where(`x > ${threshold}`, { as: "count" })).toBe(count);
    expect(sameValues((await t.readColumn("x")) as Float64Array, values)).toBe(true);
  });

  it("with a shared-memory thread, a flipped byte and a wrong answer are still caught", async () => {
    const path = await dataset("caught.bcolz");
    // The third answer of every request after the probe is wrong: those chunks are read again and
    // checked on this thread (counted), and the values are still right.
    let here = 0;
    expect(useCrc32((bytes, previous) => {
      if (bytes.length >= 2048) here++;
      return nativeCrc32!(bytes, previous);
    })).toBe(true);
    const lying = offloadTo(true, async ({ buffer, sums }, request) => ({ buffer, sums: request > 2 ? sums.map((s, k) => (k === 2 ? (s ^ 1) >>> 0 : s)) : sums }));
    expect(await useCrc32Offload(lying.offload)).toBe(true);
    const a = await openCarray(new FileSystemStore(path), "");
    const opening = here;
    expect(sameValues((await a.read()) as Float64Array, values)).toBe(true);
    expect(lying.buffers.slice(2).every((b) => b instanceof SharedArrayBuffer)).toBe(true);
    // Exactly the chunks of the runs with a wrong answer (three chunks or more) were checked here,
    // one by one: the other answers were used as they came.
    const rechecked = lying.spansPerRequest.slice(2).filter((n) => n >= 3).reduce((n, k) => n + k, 0);
    expect(rechecked).toBeGreaterThan(0);
    expect(here - opening).toBe(rechecked);

    const honest = offloadTo(true);
    expect(await useCrc32Offload(honest.offload)).toBe(true);
    const restore = flipInChunk(path, 3, 5);
    await expect((await openCarray(new FileSystemStore(path), "")).read()).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH", path: "data/__3__.bin", field: "chunk[5].checksum" });
    await expect((await openCarray(new FileSystemStore(path), "")).sum()).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH" });
    restore();
    // The next passes (the memory the failed ones gave back) read right.
    expect(sameValues((await (await openCarray(new FileSystemStore(path), "")).read()) as Float64Array, values)).toBe(true);
  });

  it("a shared-memory thread that fails leaves the checks to the reading thread, with the run still in place", async () => {
    const path = await dataset("failing.bcolz");
    const honest = offloadTo(true);
    expect(await useCrc32Offload(honest.offload)).toBe(true);
    const answered = counted(path);
    expect(sameValues((await (await openCarray(answered.store, "")).read()) as Float64Array, values)).toBe(true);
    const failing = offloadTo(true, async (answer, request) => (request > 2 ? Promise.reject(new Error("gone")) : answer));
    expect(await useCrc32Offload(failing.offload)).toBe(true);
    const unanswered = counted(path);
    expect(sameValues((await (await openCarray(unanswered.store, "")).read()) as Float64Array, values)).toBe(true);
    expect(failing.buffers.length).toBeGreaterThan(2);
    // Nothing was read again: shared memory stays with the reader when the thread fails.
    expect(unanswered.reads()).toBe(answered.reads());
    const restore = flipInChunk(path, 1, 0);
    await expect((await openCarray(new FileSystemStore(path), "")).read()).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH", path: "data/__1__.bin" });
    restore();
  });

  it("a CRC-32 thread installed during a pass into the decoder's own memory is given none of it", async () => {
    const path = await dataset("installed-late.bcolz");
    const moved = offloadTo(false);
    const inner = new FileSystemStore(path);
    let asked = false;
    let installed = false;
    const store: ReadableStore = {
      get: (key) => inner.get(key),
      getRange: (key, range) => inner.getRange(key, range),
      list: (prefix) => inner.list(prefix),
      getInto: async (key, buffer, range) => {
        // Installed at the pass's first read into the decoder's memory (the precheck before it
        // reads into memory of its own).
        if (!asked && isResidentView(buffer)) {
          asked = true; // once: reads in flight side by side would each install it
          installed = await useCrc32Offload(moved.offload);
        }
        return inner.getInto(key, buffer, range);
      },
    };
    const a = await openCarray(store, "");
    // The pass began without a thread: its runs lie in the decoder's own memory, which cannot be
    // transferred; their checksums are computed here.
    expect(sameValues((await a.read()) as Float64Array, values)).toBe(true);
    expect(installed).toBe(true);
    expect(moved.buffers.length).toBe(1); // the probe's
  });

  it("chunks stored raw come out of iterBlocks({ reuse }) 8-aligned (format-2 slots are 4-aligned after their checksums)", async () => {
    const path = join(dir, "raw.bcolz");
    const options = { dtype: "<f8", chunklen: CHUNKLEN, formatVersion: 2, checksum: "crc32", superchunksize: SUPERCHUNK, cparams: { clevel: 0 }, spare: 0 } as const;
    await (await createCarray(new FileSystemStore(path), "", values, options)).close();
    for (const shared of [false, true]) {
      if (shared) expect(await useCrc32Offload(offloadTo(true).offload)).toBe(true);
      const a = await openCarray(new FileSystemStore(path), "");
      const got = new Float64Array(values.length);
      for await (const block of a.iterBlocks({ blockLen: CHUNKLEN, reuse: true })) {
        expect(block.bytes.byteOffset % 8).toBe(0);
        got.set(new Float64Array(block.bytes.buffer, block.bytes.byteOffset, block.bytes.length / 8), block.start);
      }
      expect(sameValues(got, values)).toBe(true);
    }
  });

  it("a CRC-32 thread that takes only transfers gets ordinary buffers, never the decoder's memory", async () => {
    const path = await dataset("moved.bcolz");
    const moved = offloadTo(false);
    expect(await useCrc32Offload(moved.offload)).toBe(true);
    moved.buffers.length = 0;
    const { store, lent } = recording(new FileSystemStore(path));
    const a = await openCarray(store, "");
    expect(sameValues((await a.read()) as Float64Array, values)).toBe(true);
    expect(moved.buffers.length).toBeGreaterThan(0);
    expect(moved.buffers.every((b) => b instanceof ArrayBuffer)).toBe(true);
    // Each lent buffer is an ArrayBuffer of its own (a WebAssembly memory's cannot be transferred).
    expect(lent.every((b) => b.buffer instanceof ArrayBuffer)).toBe(true);
    expect(Math.abs(Number(await a.sum()) - expectedSum)).toBeLessThan(1e-6 * Math.abs(expectedSum) + 1e-6);
  });
});
