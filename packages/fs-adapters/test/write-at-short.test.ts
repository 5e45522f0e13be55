// writeAtSync (the write thread's positional write, src/in-place-file-node.ts) when the system
// writes less than it was asked to: a value and the zeros after it must still land whole, in
// order, at their offsets. `writevSync` and `writeSync` are made to come up short in turn.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

/** How many bytes each next write may take at most (`Infinity`: all); empty = all. */
const caps: number[] = [];
vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const cap = (asked: number): number => Math.min(asked, caps.shift() ?? Infinity);
  const writevSync = (fd: number, buffers: readonly NodeJS.ArrayBufferView[], position?: number): number => {
    const joined = Buffer.concat(buffers.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)));
    return actual.writeSync(fd, joined, 0, cap(joined.length), position);
  };
  const writeSync = (fd: number, buffer: NodeJS.ArrayBufferView, offset: number, length: number, position: number): number =>
    actual.writeSync(fd, buffer, offset, cap(length), position);
  const patched = { ...actual, writevSync, writeSync };
  return { ...patched, default: patched };
});
const { writeAtSync } = await import("../src/in-place-file-node.js");

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "fmt-write-at-short-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("writeAtSync with short writes", () => {
  it("writes the whole value and its zeros over older bytes, however the writes fall short", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.nat(300),
        fc.nat(50),
        // Each write takes at least one byte (the real calls never return 0 for a regular file).
        fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 8 }),
        async (value, zeros, offset, shortCaps) => {
          const file = join(scratch, `f${n++}`);
          const old = new Uint8Array(offset + value.length + zeros + 20).fill(0xee);
          await writeFile(file, old);
          caps.length = 0;
          caps.push(...shortCaps);
          writeAtSync(file, offset, value, false, zeros);
          const expected = Buffer.from(old);
          expected.set(value, offset);
          expected.fill(0, offset + value.length, offset + value.length + zeros);
          expect(Buffer.compare(await readFile(file), expected)).toBe(0);
        },
      ),
      { numRuns: 200, seed: 20261202 },
    );
  });
});
