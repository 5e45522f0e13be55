// Format-2 reads with the CRC-32s of each run of slots computed on a worker thread (@fmt/header's
// Crc32Offload): the values are the written ones, the offload's answers are what the stored
// checksums are compared with (a lying offload is caught, a flipped byte too), a failing offload
// leaves the checks to the reading thread, and other checksum kinds never go to it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { useCrc32, useCrc32Offload } from "@fmt/header";
import type { Crc32Answer, Crc32Offload } from "@fmt/header";
import { Crc32Worker, nativeCrc32, useNativeCrc32 } from "@fmt/header/node";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray } from "@fmt/store";

const dir = mkdtempSync(join(tmpdir(), "bcolz-crc32-offload-"));
const worker = new Crc32Worker();
afterEach(async () => {
  await useCrc32Offload(undefined);
});
afterAll(async () => {
  await worker.close();
  rmSync(dir, { recursive: true, force: true });
});

const CHUNKLEN = 2048;
const values = new Float64Array(CHUNKLEN * 30 + 99);
let seed = 11;
for (let i = 0; i < values.length; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  values[i] = i % 3 === 0 ? i : seed / 5;
}
const CHUNKS = Math.ceil(values.length / CHUNKLEN);

async function dataset(name: string, checksum: "crc32" | "adler32"): Promise<string> {
  const path = join(dir, name);
  const created = await createCarray(new FileSystemStore(path), "", values, { dtype: "<f8", chunklen: CHUNKLEN, formatVersion: 2, checksum, superchunksize: 8, spare: 0 });
  await created.close();
  return path;
}

/** The worker, counting what it is asked; `after` changes the answers from request `from + 1` on. */
function counting(after?: { from: number; answer: (answer: Crc32Answer) => Promise<Crc32Answer> }) {
  const seen = { requests: 0, spans: 0 };
  const offload: Crc32Offload = {
    crc32: async (buffer, spans) => {
      seen.requests++;
      seen.spans += spans.length;
      const answer = await worker.crc32(buffer, spans);
      return after !== undefined && seen.requests > after.from ? after.answer(answer) : answer;
    },
  };
  return { offload, seen };
}

describe("format-2 reads with CRC-32s on a worker thread", () => {
  it("read, sum and iterBlocks give the written values; every chunk's checksum went to the worker", async () => {
    const path = await dataset("a.bcolz", "crc32");
    const { offload, seen } = counting();
    expect(await useCrc32Offload(offload)).toBe(true);
    const probe = seen.requests;
    const a = await openCarray(new FileSystemStore(path), "", { cacheBytes: 0 });
    expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
    expect(seen.spans - 3).toBe(CHUNKS); // the probe asked for 3
    expect(seen.requests - probe).toBe(Math.ceil(CHUNKS / 8)); // one per run of slots
    let expected = 0;
    for (const v of values) expected += v;
    expect(Math.abs(Number(await a.sum()) - expected) / Math.abs(expected)).toBeLessThan(1e-12);
    let rows = 0;
    for await (const block of a.iterBlocks({ blockLen: CHUNKLEN })) {
      const got = new Float64Array(block.bytes.buffer, block.bytes.byteOffset, block.bytes.length / 8);
      expect(Array.from(got)).toEqual(Array.from(values.subarray(block.start, block.start + got.length)));
      rows += got.length;
    }
    expect(rows).toBe(values.length);
  });

  it("the worker's answers replace the reading thread's CRC-32s; a wrong answer makes the reader check those chunks itself", async () => {
    const path = await dataset("b.bcolz", "crc32");
    // CRC-32s computed on this thread, counted (the chunks' are at least 2 KiB; the probe's are not).
    let here = 0;
    expect(useCrc32((bytes, previous) => {
      if (bytes.length >= 2048) here++;
      return nativeCrc32!(bytes, previous);
    })).toBe(true);
    try {
      const { offload } = counting();
      expect(await useCrc32Offload(offload)).toBe(true);
      const a = await openCarray(new FileSystemStore(path), "", { cacheBytes: 0 });
      const opening = here;
      expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
      expect(here - opening).toBe(0);
      const lying = counting({ from: 1, answer: async ({ buffer, sums }) => ({ buffer, sums: sums.map((s, k) => (k === 2 ? (s ^ 1) >>> 0 : s)) }) });
      expect(await useCrc32Offload(lying.offload)).toBe(true);
      const before = here;
      expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
      // Each run (whose third answer was wrong) is read again chunk by chunk and checked here.
      expect(here - before).toBeGreaterThan(0);
      expect(here - before).toBeLessThanOrEqual(CHUNKS);
    } finally {
      useNativeCrc32();
    }
  });

  it("a flipped byte is caught with the worker computing", async () => {
    const path = await dataset("c.bcolz", "crc32");
    const file = join(path, "data", "__2__.bin");
    const bytes = readFileSync(file);
    bytes[bytes.length - 200]! ^= 0x08;
    writeFileSync(file, bytes);
    const { offload, seen } = counting();
    expect(await useCrc32Offload(offload)).toBe(true);
    const a = await openCarray(new FileSystemStore(path), "", { cacheBytes: 0 });
    await expect(a.read()).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH", path: "data/__2__.bin" });
    expect(seen.requests).toBeGreaterThan(1);
  });

  it("a worker that fails, with the run's buffer gone, leaves the reading and the checks to the reading thread", async () => {
    const path = await dataset("d.bcolz", "crc32");
    const { offload } = counting({ from: 1, answer: () => Promise.reject(new Error("gone")) });
    expect(await useCrc32Offload(offload)).toBe(true);
    const a = await openCarray(new FileSystemStore(path), "", { cacheBytes: 0 });
    expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
    const file = join(path, "data", "__1__.bin");
    const bytes = readFileSync(file);
    bytes[bytes.length - 300]! ^= 0x10;
    writeFileSync(file, bytes);
    await expect((await openCarray(new FileSystemStore(path), "", { cacheBytes: 0 })).read()).rejects.toMatchObject({ code: "CHECKSUM_MISMATCH" });
  });

  it("Adler-32 files never go to the CRC-32 worker", async () => {
    const path = await dataset("e.bcolz", "adler32");
    const { offload, seen } = counting();
    expect(await useCrc32Offload(offload)).toBe(true);
    const before = seen.requests;
    const a = await openCarray(new FileSystemStore(path), "", { cacheBytes: 0 });
    expect(Array.from((await a.read()) as Float64Array)).toEqual(Array.from(values));
    expect(seen.requests).toBe(before);
  });
});
