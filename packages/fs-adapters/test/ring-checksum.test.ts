// The write thread's ring as a shared WebAssembly memory, and the Adler-32 it takes of a chunk
// where the chunk lies in that ring (ring-checksum-node.ts, wasm/ring_checksum.c). node:zlib is
// the oracle for every sum. The thread that copies the chunk out of a plain ring first (where no
// shared memory can be made) must store the same sums.
import { deflateSync } from "node:zlib";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { ringAdler32, sharedRingMemory } from "../src/ring-checksum-node.js";
import { RING_CHECKSUM_WASM_BASE64 } from "../src/wasm/ring-checksum.generated.js";
import { WriteThread } from "../src/write-thread-node.js";
import { useWriteThreadScratch } from "./write-thread-scratch.js";

const scratch = useWriteThreadScratch("fmt-ring-checksum-");

/** zlib's Adler-32 of `bytes`: the big-endian trailer of a zlib stream of them. */
function zlibAdler32(bytes: Uint8Array): number {
  const stream = deflateSync(bytes, { level: 0 });
  return new DataView(stream.buffer, stream.byteOffset + stream.length - 4, 4).getUint32(0, false);
}

describe("ringAdler32", () => {
  it("sums bytes where they lie in a shared memory, as zlib does, and changes none of its bytes", () => {
    const memory = sharedRingMemory(4 << 16)!;
    const bytes = new Uint8Array(memory.buffer);
    // Mostly 0xff, where a sum that is not reduced often enough overflows first, with random runs.
    bytes.fill(0xff);
    for (let i = 0; i < bytes.length; i += 3) if (i % 7000 < 3000) bytes[i] = (i * 2654435761) >>> 24;
    const before = bytes.slice();
    const sumAt = ringAdler32(memory)!;
    fc.assert(
      fc.property(fc.nat(bytes.length), fc.nat(bytes.length), (a, b) => {
        const at = Math.min(a, b);
        const length = Math.max(a, b) - at;
        expect(sumAt(at, length)).toBe(zlibAdler32(bytes.subarray(at, at + length)));
      }),
      { numRuns: 300 },
    );
    expect(sumAt(0, bytes.length)).toBe(zlibAdler32(bytes));
    expect(sumAt(bytes.length, 0)).toBe(1);
    expect(Buffer.compare(bytes, before)).toBe(0);
  });

  it("traps rather than reads past the memory's end, in its 32-byte steps and in the bytes after them", () => {
    const memory = sharedRingMemory(1 << 16)!;
    const sumAt = ringAdler32(memory)!;
    expect(() => sumAt((1 << 16) - 10, 11)).toThrow(WebAssembly.RuntimeError);
    expect(() => sumAt((1 << 16) - 40, 64)).toThrow(WebAssembly.RuntimeError);
  });

  it("is a module that cannot write at instantiation: no data, data count or start section", () => {
    const bytes = Buffer.from(RING_CHECKSUM_WASM_BASE64, "base64");
    const sections: number[] = [];
    // After the 8-byte preamble: each section's id, then its size (unsigned LEB128), then its bytes.
    for (let at = 8; at < bytes.length; ) {
      sections.push(bytes[at++]!);
      let size = 0;
      for (let shift = 0; ; shift += 7) {
        const byte = bytes[at++]!;
        size += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) break;
      }
      at += size;
    }
    expect(sections).toContain(10); // the code
    expect(sections.filter((id) => id === 8 || id === 11 || id === 12)).toEqual([]);
  });

  it("declines a memory that is not shared: no module over it", () => {
    expect(ringAdler32(new WebAssembly.Memory({ initial: 1, maximum: 1 }))).toBeUndefined();
  });
});

describe("sharedRingMemory", () => {
  it("makes a shared memory of exactly the bytes asked, and declines a size that is not whole pages", () => {
    const memory = sharedRingMemory(8 << 20)!;
    expect(memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(memory.buffer.byteLength).toBe(8 << 20);
    expect(sharedRingMemory((8 << 20) + 1)).toBeUndefined();
  });

  it("makes none without WebAssembly (Node's --jitless)", () => {
    vi.stubGlobal("WebAssembly", undefined);
    try {
      expect(sharedRingMemory(8 << 20)).toBeUndefined();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("the write thread's sums", () => {
  it("are taken in the ring of the process's thread, and a thread told not to sum there copies the chunks out of the same kind of ring and stores the same sums", async () => {
    expect(scratch.thread.sumsInRing).toBe(true);
    const copying = await WriteThread.start({ sumInRing: false });
    expect(copying.sumsInRing).toBe(false);
    const dir = await mkdtemp(join(tmpdir(), "fmt-ring-checksum-files-"));
    try {
      // Lengths across the 64 KiB pieces the copying way takes, at odd places in the ring.
      const lengths = [0, 1, 31, 32, 33, 5537, 65535, 65536, 65537, 300_001, 1 << 20];
      for (const [name, thread] of [["ring", scratch.thread], ["copy", copying]] as const) {
        const file = join(dir, name);
        await writeFile(file, new Uint8Array(0));
        let end = 0;
        const expected: Buffer[] = [];
        const stored: Promise<number>[] = [];
        const values: number[] = [];
        for (const [k, length] of lengths.entries()) {
          // At every alignment modulo 8 (the ring keeps a value's).
          const bytes = new Uint8Array(length + 8).subarray(k % 8, (k % 8) + length);
          for (let i = 0; i < length; i++) bytes[i] = (i * 31 + k * 7 + (i >> 9)) & 0xff;
          const xor = (k * 0x9e3779b1) >>> 0;
          stored.push(thread.queueSummed(file, name, bytes, end, xor, k)!);
          const sum = (zlibAdler32(bytes) ^ xor) >>> 0;
          values.push(sum);
          const after = Buffer.alloc(4 + k);
          after.writeUInt32LE(sum, 0);
          expected.push(Buffer.from(bytes), after);
          end += length + 4 + k;
        }
        expect(await Promise.all(stored)).toEqual(values);
        expect(Buffer.compare(await readFile(file), Buffer.concat(expected))).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
