// ResidentInputs: chunks read into slots of a kernels instance of their own decode where they
// lie (the result lies in that instance's memory, no copy in), give the same bytes and sums as
// any other chunk, never grow that memory (views of the slots stay attached), fall back to the
// shared kernels when a chunk's arena would not fit, and an instance with a slot still lent is
// never handed to another pass.
import { afterEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  compress,
  decompress,
  decompressPlannedInto,
  decompressPlannedTransient,
  planChunk,
  ResidentInputs,
  setDecodeBackend,
  sumTransientFloat64,
} from "../src/index.js";
import { idleResidentInstances } from "../src/resident-inputs.js";

afterEach(() => setDecodeBackend("auto"));

/** Float64 values of a random walk (shuffle-friendly, like the bench's), from a seed. */
function walk(n: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let s = seed >>> 0;
  let v = 0;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    v += (s / 2 ** 32 - 0.5) * 3;
    out[i] = Math.round(v * 100) / 100;
  }
  return out;
}

/** Byte equality without the matcher's element-by-element diff (slow on 300 KB arrays). */
function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function bytesOf(values: Float64Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/** Numpy's order of additions is not needed here: the shared kernels sum the same view. */
function sharedSum(chunk: Uint8Array): number {
  const copy = chunk.slice();
  const view = decompressPlannedTransient(copy, planChunk(copy))!;
  return sumTransientFloat64(view, 0)!;
}

describe("ResidentInputs", () => {
  it("decodes chunks read into its slots in place, to the same bytes and sums (property, seed 20261129)", () => {
    fc.assert(
      fc.property(
        fc.record({
          n: fc.integer({ min: 1, max: 40_000 }),
          seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          cname: fc.constantFrom("lz4" as const, "blosclz" as const, "lz4hc" as const),
          shuffle: fc.constantFrom(0 as const, 1 as const, 2 as const),
          clevel: fc.integer({ min: 0, max: 9 }),
          at: fc.integer({ min: 0, max: 64 }),
          outAt: fc.integer({ min: 0, max: 7 }),
          shared: fc.boolean(),
        }),
        ({ n, seed, cname, shuffle, clevel, at, outAt, shared }) => {
          const values = walk(n, seed);
          const chunk = compress(bytesOf(values), { typesize: 8, clevel, shuffle, cname });
          const inputs = ResidentInputs.acquire({ slotBytes: chunk.length + 128, slots: 2, chunkBytes: values.byteLength, slotOffset: 48, shared })!;
          try {
            const slot = inputs.take(chunk.length + 64)!;
            const before = slot.buffer;
            // Shared memory when asked (format 2's checksum thread reads it), ordinary otherwise.
            expect(before instanceof SharedArrayBuffer).toBe(shared);
            slot.set(chunk, at);
            const inSlot = slot.subarray(at, at + chunk.length);
            const plan = planChunk(inSlot);
            // Into ordinary memory at any alignment (a shared memory copies out in words only
            // when both sides sit alike past an 8-byte boundary; the bytes are the same either way).
            const out = new Uint8Array(values.byteLength + 8).subarray(outAt, outAt + values.byteLength);
            decompressPlannedInto(inSlot, plan, out);
            expect(same(out, bytesOf(values))).toBe(true);
            const transient = decompressPlannedTransient(inSlot, plan)!;
            // Decoded in the slot's own instance (memcpyed chunks are views of the slot itself).
            expect(transient.buffer).toBe(before);
            expect(same(transient, bytesOf(values))).toBe(true);
            // (A memcpyed chunk's view is the slot itself, which the shared kernels do not sum.)
            if (!plan.header.memcpyed) expect(sumTransientFloat64(transient, 0)).toBe(sharedSum(chunk));
            // The input was read where it lies, not overwritten, and the memory did not grow.
            expect(same(inSlot, chunk)).toBe(true);
            expect(slot.buffer).toBe(before);
            expect(slot.length).toBe(chunk.length + 128);
            expect(same(decompress(inSlot), bytesOf(values))).toBe(true);
          } finally {
            inputs.release();
          }
        },
      ),
      { seed: 20261129, numRuns: 160 },
    );
  });

  it("shared instances are pooled apart from ordinary ones", () => {
    const shared = ResidentInputs.acquire({ slotBytes: 4096, slots: 1, chunkBytes: 4096, shared: true })!;
    const slot = shared.take(4096)!;
    expect(slot.buffer instanceof SharedArrayBuffer).toBe(true);
    shared.giveBack(slot);
    const sharedBefore = idleResidentInstances(true);
    const plainBefore = idleResidentInstances();
    shared.release();
    expect(idleResidentInstances(true)).toBe(Math.min(2, sharedBefore + 1));
    expect(idleResidentInstances()).toBe(plainBefore);
    // The next ordinary pass does not get the shared instance, nor the next shared pass an ordinary one.
    const plain = ResidentInputs.acquire({ slotBytes: 4096, slots: 1, chunkBytes: 4096 })!;
    expect(plain.take(4096)!.buffer instanceof SharedArrayBuffer).toBe(false);
    plain.release(false);
    const again = ResidentInputs.acquire({ slotBytes: 4096, slots: 1, chunkBytes: 4096, shared: true })!;
    expect(again.take(4096)!.buffer instanceof SharedArrayBuffer).toBe(true);
    again.release(false);
  });

  it("a chunk whose arena does not fit decodes on the shared kernels, and the slots stay attached", () => {
    const values = walk(100_000, 3);
    const chunk = compress(bytesOf(values), { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
    // Sized for chunks of 1,000 bytes: this chunk's output and scratch would grow the memory.
    const inputs = ResidentInputs.acquire({ slotBytes: chunk.length, slots: 2, chunkBytes: 1000 })!;
    try {
      const slot = inputs.take(chunk.length)!;
      const other = inputs.take(chunk.length)!;
      other.fill(7);
      slot.set(chunk);
      const plan = planChunk(slot);
      const transient = decompressPlannedTransient(slot, plan)!;
      expect(transient.buffer).not.toBe(slot.buffer);
      expect(same(transient, bytesOf(values))).toBe(true);
      const out = new Uint8Array(values.byteLength);
      decompressPlannedInto(slot, plan, out);
      expect(same(out, bytesOf(values))).toBe(true);
      expect(slot.length).toBe(chunk.length);
      expect(other.every((b) => b === 7)).toBe(true);
    } finally {
      inputs.release();
    }
  });

  it("decodes slots with the TypeScript backend too", () => {
    const values = walk(5000, 11);
    const chunk = compress(bytesOf(values), { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" });
    const inputs = ResidentInputs.acquire({ slotBytes: chunk.length, slots: 1, chunkBytes: values.byteLength })!;
    try {
      const slot = inputs.take(chunk.length)!;
      slot.set(chunk);
      setDecodeBackend("js");
      const out = new Uint8Array(values.byteLength);
      decompressPlannedInto(slot, planChunk(slot), out);
      expect(same(out, bytesOf(values))).toBe(true);
    } finally {
      inputs.release();
    }
  });

  it("lends each slot once, takes back only its own, and refuses what does not fit", () => {
    const inputs = ResidentInputs.acquire({ slotBytes: 10_000, slots: 2, chunkBytes: 8192, slotOffset: 48 })!;
    const a = inputs.take(10_000)!;
    const b = inputs.take(5)!;
    expect(a.buffer).toBe(b.buffer);
    expect(a.byteOffset % 4096).toBe(48);
    expect(b.byteOffset - a.byteOffset).toBe(12_288);
    expect(inputs.take(1)).toBeUndefined(); // both lent
    expect(inputs.giveBack(new Uint8Array(10))).toBe(false);
    expect(inputs.giveBack(b.subarray(16))).toBe(true);
    expect(inputs.take(10_001)).toBeUndefined(); // larger than a slot
    expect(inputs.take(100)?.byteOffset).toBe(b.byteOffset);
    inputs.release();
    expect(inputs.take(1)).toBeUndefined();
  });

  it("goes back to its thread once released with every slot given back; until then it serves no other pass", () => {
    const drain = [ResidentInputs.acquire({ slotBytes: 100, slots: 1, chunkBytes: 100 }), ResidentInputs.acquire({ slotBytes: 100, slots: 1, chunkBytes: 100 })];
    drain.forEach((d) => d?.release());
    const start = idleResidentInstances();
    expect(start).toBe(2);
    const used = ResidentInputs.acquire({ slotBytes: 100, slots: 2, chunkBytes: 100 })!;
    expect(idleResidentInstances()).toBe(start - 1);
    const held = used.take(100)!;
    used.release(); // a read may still write into `held`
    expect(idleResidentInstances()).toBe(start - 1);
    const next = ResidentInputs.acquire({ slotBytes: 100, slots: 2, chunkBytes: 100 })!;
    expect(idleResidentInstances()).toBe(start - 2);
    expect(next.take(100)!.buffer).not.toBe(held.buffer);
    next.release(); // its slot is still lent: not pooled either
    expect(idleResidentInstances()).toBe(start - 2);
    // The read settled: the slot comes back, and with it the instance.
    expect(used.giveBack(held)).toBe(true);
    expect(idleResidentInstances()).toBe(start - 1);
    expect(used.take(1)).toBeUndefined();
    // Released with pool false (its bytes still in use): never pooled, even once its slots are back.
    const kept = ResidentInputs.acquire({ slotBytes: 100, slots: 1, chunkBytes: 100 })!;
    const slot = kept.take(100)!;
    const idleBefore = idleResidentInstances();
    kept.release(false);
    kept.giveBack(slot);
    expect(idleResidentInstances()).toBe(idleBefore);
    // Without the WebAssembly decoder, none.
    setDecodeBackend("js");
    expect(ResidentInputs.acquire({ slotBytes: 100, slots: 1, chunkBytes: 100 })).toBeUndefined();
    setDecodeBackend("auto");
    // More than 32 MiB for one pass: no instance.
    expect(ResidentInputs.acquire({ slotBytes: 8 * 1024 * 1024, slots: 5, chunkBytes: 1024 })).toBeUndefined();
    expect(ResidentInputs.acquire({ slotBytes: 100, slots: 0, chunkBytes: 100 })).toBeUndefined();
  });
});
