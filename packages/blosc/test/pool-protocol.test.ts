// Options that travel to a pool worker must survive structured cloning.
import { describe, expect, it } from "vitest";
import { checkPoolSizing, plainOptions } from "../src/pool-protocol.js";
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
