// withSharedMemory: the kernels module rewritten so that its memory is shared, and nothing else
// changed; modules it cannot rewrite (a memory imported, none, a malformed section) give
// `undefined`, never a broken module.
import { describe, expect, it, vi } from "vitest";
import { decodeBase64, withSharedMemory } from "../src/wasm/index.js";
import { KERNELS_WASM_BASE64 } from "../src/wasm/kernels.generated.js";

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** An export section exporting memory 0 as "m". */
const EXPORT_MEMORY = [7, 5, 1, 1, 0x6d, 2, 0];

function memoryOf(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Memory {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
  return instance.exports.m as WebAssembly.Memory;
}

describe("withSharedMemory", () => {
  it("makes the kernels' memory shared and keeps every export", () => {
    const plain = decodeBase64(KERNELS_WASM_BASE64);
    const shared = withSharedMemory(plain)!;
    expect(WebAssembly.validate(shared)).toBe(true);
    const a = new WebAssembly.Instance(new WebAssembly.Module(plain), {});
    const b = new WebAssembly.Instance(new WebAssembly.Module(shared), {});
    expect(Object.keys(b.exports)).toEqual(Object.keys(a.exports));
    const memory = b.exports.memory as WebAssembly.Memory;
    expect(memory.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(memory.buffer.byteLength).toBe((a.exports.memory as WebAssembly.Memory).buffer.byteLength);
    // Only the memory section changed: 3 bytes longer (the shared flag's maximum).
    expect(shared.length).toBe(plain.length + 3);
  });

  it("keeps a declared maximum and the minimum", () => {
    // One memory: min 2 pages, max 300 pages (LEB128 ac 02).
    const module = Uint8Array.from([...HEADER, 5, 5, 1, 1, 2, 0xac, 0x02, ...EXPORT_MEMORY]);
    const memory = memoryOf(withSharedMemory(module)!);
    expect(memory.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(memory.buffer.byteLength).toBe(2 * 65536);
    memory.grow(298);
    expect(() => memory.grow(1)).toThrow();
  });

  it("gives undefined for what it cannot rewrite", () => {
    // A memory imported from the host ("e" "m", memory limits 0 1).
    const imports = Uint8Array.from([...HEADER, 2, 8, 1, 1, 0x65, 1, 0x6d, 2, 0, 1]);
    expect(WebAssembly.validate(imports)).toBe(true);
    expect(withSharedMemory(imports)).toBeUndefined();
    // A memory imported beside one defined (multi-memory): the defined one is not rewritten alone.
    expect(withSharedMemory(Uint8Array.from([...HEADER, 2, 8, 1, 1, 0x65, 1, 0x6d, 2, 0, 1, 5, 3, 1, 0, 1]))).toBeUndefined();
    // The same defined memory without the import is rewritten.
    expect(withSharedMemory(Uint8Array.from([...HEADER, 5, 3, 1, 0, 1]))).toBeDefined();
    // No memory at all, a memory already shared, a section running past the end, two memories.
    expect(withSharedMemory(Uint8Array.from(HEADER))).toBeUndefined();
    expect(withSharedMemory(Uint8Array.from([...HEADER, 5, 4, 1, 3, 1, 2]))).toBeUndefined();
    expect(withSharedMemory(Uint8Array.from([...HEADER, 5, 9, 1, 0, 1]))).toBeUndefined();
    expect(withSharedMemory(Uint8Array.from([...HEADER, 5, 5, 2, 0, 1, 0, 1]))).toBeUndefined();
    // A plain memory without a maximum gets one (the 4 GiB of wasm32).
    const memory = memoryOf(withSharedMemory(Uint8Array.from([...HEADER, 5, 3, 1, 0, 1, ...EXPORT_MEMORY]))!);
    expect(memory.buffer instanceof SharedArrayBuffer).toBe(true);
  });

  it("a refused compile of the shared module is remembered, not tried again every pass", async () => {
    // A fresh copy of the loader (its cache empty), with compilation refused as a browser's main
    // thread refuses synchronous compiles of modules this size.
    vi.resetModules();
    const { loadSharedWasmKernels } = await import("../src/wasm/load.js");
    const Real = WebAssembly.Module;
    let compiles = 0;
    const refusing = function (): never {
      compiles++;
      throw new RangeError("synchronous compilation refused");
    } as unknown as typeof WebAssembly.Module;
    WebAssembly.Module = refusing;
    try {
      expect(loadSharedWasmKernels()).toBeUndefined();
      expect(loadSharedWasmKernels()).toBeUndefined();
      expect(compiles).toBe(1);
    } finally {
      WebAssembly.Module = Real;
    }
    expect(loadSharedWasmKernels()).toBeUndefined();
    expect(compiles).toBe(1);
  });
});
