// CRC-32s on a worker thread (@fmt/header/node's Crc32Worker): the same values as zlib's crc32 on
// the reading thread for any spans, the buffer back unchanged after its trip, refusals for spans
// outside it, a thread that is gone, and the registry's probe.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { crc32, crc32Offload, useCrc32Offload } from "@fmt/header";
import type { Crc32Offload } from "@fmt/header";
import { Crc32Worker, stopCrc32Worker, useCrc32Worker, useNativeCrc32 } from "@fmt/header/node";

const worker = new Crc32Worker();
afterAll(async () => {
  await worker.close();
  await stopCrc32Worker();
});

describe("Crc32Worker", () => {
  it("gives crc32's value for every span and the buffer back with the same bytes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 5000 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 8 }), async (data, cuts) => {
        const run = new Uint8Array(data.length);
        run.set(data);
        const spans = cuts.map(([a, b]) => {
          const offset = a % (data.length + 1);
          return { offset, length: b % (data.length - offset + 1) };
        });
        const { buffer, sums } = await worker.crc32(run.buffer, spans);
        expect(run.buffer.byteLength).toBe(0); // transferred, not copied
        expect(sums).toEqual(spans.map((s) => crc32(data.subarray(s.offset, s.offset + s.length))));
        expect(new Uint8Array(buffer)).toEqual(data);
      }),
      { seed: 20261125, numRuns: 200 },
    );
  });

  it("reads shared memory where it lies: the same values, nothing moved, the memory still usable here (property)", async () => {
    expect(worker.sharesMemory).toBe(true);
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 5000 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 8 }), async (data, cuts) => {
        // A shared WebAssembly memory, as format-2 readers read runs into.
        const memory = new WebAssembly.Memory({ initial: 1, maximum: 4, shared: true });
        const run = new Uint8Array(memory.buffer, 100, data.length);
        run.set(data);
        const spans = cuts.map(([a, b]) => {
          const offset = a % (data.length + 1);
          return { offset: 100 + offset, length: b % (data.length - offset + 1) };
        });
        const { buffer, sums } = await worker.crc32(memory.buffer, spans);
        expect(buffer).toBe(memory.buffer);
        expect(run.byteLength).toBe(data.length); // shared, not transferred
        expect(sums).toEqual(spans.map((s) => crc32(data.subarray(s.offset - 100, s.offset - 100 + s.length))));
        expect([...run]).toEqual([...data]);
      }),
      { seed: 20261129, numRuns: 100 },
    );
  });

  it("refuses an ArrayBuffer it cannot transfer (an ordinary WebAssembly memory's), and answers the next request", async () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    new Uint8Array(memory.buffer).fill(7, 0, 100);
    await expect(worker.crc32(memory.buffer, [{ offset: 0, length: 100 }])).rejects.toThrow(/cannot be transferred/);
    expect(memory.buffer.byteLength).toBe(65536);
    const run = new Uint8Array(100).fill(7);
    expect((await worker.crc32(run.buffer, [{ offset: 0, length: 100 }])).sums).toEqual([crc32(new Uint8Array(100).fill(7))]);
  });

  it("refuses spans outside the buffer, which then stays here", async () => {
    const run = new Uint8Array(16);
    await expect(worker.crc32(run.buffer, [{ offset: 8, length: 9 }])).rejects.toThrow(/outside 16 bytes/);
    await expect(worker.crc32(run.buffer, [{ offset: -1, length: 1 }])).rejects.toThrow(/outside/);
    expect(run.buffer.byteLength).toBe(16);
  });

  it("rejects everything once the thread is gone", async () => {
    const doomed = new Crc32Worker();
    await doomed.close();
    await expect(doomed.crc32(new ArrayBuffer(64), [{ offset: 0, length: 10 }])).rejects.toThrow(/exited/);
  });
});

describe("the offload registry", () => {
  it("useCrc32Worker installs a worker that passes the probe; stopCrc32Worker removes it", async () => {
    useNativeCrc32();
    expect(await useCrc32Worker()).toBe(true);
    expect(crc32Offload()).toBeInstanceOf(Crc32Worker);
    await stopCrc32Worker();
    expect(crc32Offload()).toBeUndefined();
  });

  it("an offload whose sums or bytes differ, or that fails, is not used", async () => {
    const lying: Crc32Offload = { crc32: async (buffer, spans) => ({ buffer, sums: spans.map(() => 1) }) };
    expect(await useCrc32Offload(lying)).toBe(false);
    const scribbling: Crc32Offload = {
      crc32: async (buffer, spans) => {
        const sums = spans.map((s) => crc32(new Uint8Array(buffer, s.offset, s.length)));
        const bytes = new Uint8Array(buffer);
        bytes[3] = bytes[3]! ^ 1;
        return { buffer, sums };
      },
    };
    expect(await useCrc32Offload(scribbling)).toBe(false);
    // An offload that says it reads shared memory is probed with shared memory too.
    const sharedBlind: Crc32Offload = {
      sharesMemory: true,
      crc32: async (buffer, spans) => ({ buffer, sums: spans.map((s) => (buffer instanceof ArrayBuffer ? crc32(new Uint8Array(buffer, s.offset, s.length)) : 0)) }),
    };
    expect(await useCrc32Offload(sharedBlind)).toBe(false);
    // Right sums, but it writes into the shared memory it reads.
    const sharedScribbling: Crc32Offload = {
      sharesMemory: true,
      crc32: async (buffer, spans) => {
        const sums = spans.map((s) => crc32(new Uint8Array(buffer, s.offset, s.length)));
        if (!(buffer instanceof ArrayBuffer)) new Uint8Array(buffer)[3]! ^= 1;
        return { buffer, sums };
      },
    };
    expect(await useCrc32Offload(sharedScribbling)).toBe(false);
    const failing: Crc32Offload = { crc32: () => Promise.reject(new Error("down")) };
    expect(await useCrc32Offload(failing)).toBe(false);
    expect(crc32Offload()).toBeUndefined();
  });
});
