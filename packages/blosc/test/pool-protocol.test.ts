// Options that travel to a pool worker must survive structured cloning; a worker's answer to a
// compressInto task hands its output buffer back.
import { describe, expect, it } from "vitest";
import { checkPoolSizing, plainOptions } from "../src/pool-protocol.js";
import type { PoolReply, PoolTask } from "../src/pool-protocol.js";
import { answerPoolMessage } from "../src/pool-serve.js";
import { compress } from "../src/index.js";
import { nodeZlib } from "../src/node.js";

describe("plainOptions", () => {
  it("keeps data fields and leaves codec objects and functions behind, so postMessage can clone it", () => {
    const options = { path: "data/__0.blp", maxBytes: 1024, zlib: nodeZlib, loader: () => undefined, skipped: undefined };
    const plain = plainOptions(options);
    expect(plain).toEqual({ path: "data/__0.blp", maxBytes: 1024 });
    expect(() => structuredClone(plain)).not.toThrow();
    expect(() => structuredClone(options)).toThrow();
  });
});

describe("checkPoolSizing", () => {
  it("refuses thread counts outside 1..256 and negative minWorkerBytes", () => {
    expect(checkPoolSizing(2)).toEqual({ threads: 2, minWorkerBytes: 64 * 1024 });
    for (const threads of [0, 257, 1.5]) expect(() => checkPoolSizing(threads)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", field: "threads" }));
    expect(() => checkPoolSizing(1, -1)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", field: "minWorkerBytes" }));
  });
});

describe("a compressInto task, as a worker answers it", () => {
  const data = new Uint8Array(new Float64Array(8192).map((_, i) => Math.sin(i)).buffer);
  const options = { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" };

  it("compresses after the headroom into the task's own output buffer and transfers it back", () => {
    const output = new ArrayBuffer(16 + data.length + 16);
    const [reply, transfer] = answerPoolMessage({ batch: 1, tasks: [{ op: "compressInto", input: data.slice().buffer, offset: 0, length: data.length, options, output, headroom: 16 }] });
    const result = (reply as PoolReply).results[0]!;
    expect(result.ok).toBe(true);
    const chunk = (result as { ok: true; value: Uint8Array }).value;
    expect(chunk.buffer).toBe(output);
    expect(chunk.byteOffset).toBe(16);
    expect(Array.from(chunk)).toEqual(Array.from(compress(data, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" })));
    expect(transfer).toContain(output);
  });

  it("answers a task without an output buffer, or with a headroom outside it, with a UsageError", () => {
    const tasks: PoolTask[] = [
      { op: "compressInto", input: data.slice().buffer, offset: 0, length: data.length, options },
      { op: "compressInto", input: data.slice().buffer, offset: 0, length: data.length, options, output: new ArrayBuffer(64), headroom: 65 },
    ];
    const [reply] = answerPoolMessage({ batch: 2, tasks });
    expect((reply as PoolReply).results.map((r) => (r.ok ? "ok" : r.error.field))).toEqual(["task.output", "task.headroom"]);
  });
});
