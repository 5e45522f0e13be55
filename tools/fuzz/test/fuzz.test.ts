// The fuzzer's own pieces: generator determinism, outcome classes, the minimizer, and the
// watchdog (hang, heap limit, untyped error) on a target that misbehaves on purpose. The watchdog
// runs the compiled worker, so the package is built first.
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FormatError, UsageError } from "@fmt/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { classifyError, inputRng, minimizeInput, mutateBytes, Rng, signature } from "../src/index.js";
import type { fuzzTarget as fuzzTargetType } from "../src/fuzz-node.js";
import type { WatchedWorker as WatchedWorkerType } from "../src/watched-worker-node.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const corpusDir = fileURLToPath(new URL("../../../conformance/corpus", import.meta.url));
const fixture = pathToFileURL(fileURLToPath(new URL("./fixtures/misbehaving-target.mjs", import.meta.url))).href;

describe("inputs are reproducible from (seed, target, index)", () => {
  it("the same triple gives the same bytes, another index other bytes", () => {
    const seedBytes = Uint8Array.from({ length: 64 }, (_, i) => i);
    const make = (index: number) => mutateBytes(inputRng(5, "t", index), seedBytes, { dictionary: [], stack: 4 });
    expect(make(17)).toEqual(make(17));
    const distinct = new Set(Array.from({ length: 50 }, (_, i) => Buffer.from(make(i)).toString("hex")));
    expect(distinct.size).toBeGreaterThan(40);
  });

  it("below(n) stays in range", () => {
    const rng = new Rng(9);
    for (let i = 0; i < 1000; i++) {
      const v = rng.below(7);
      expect(v >= 0 && v < 7 && Number.isInteger(v)).toBe(true);
    }
  });
});

describe("outcome classes", () => {
  it("a BcolzError is typed with its code; other errors are untyped; a failed allocation is memory", () => {
    expect(classifyError(new FormatError("TRUNCATED", "x"))).toEqual({ kind: "typed", code: "TRUNCATED" });
    expect(classifyError(new UsageError("OUT_OF_RANGE", "x")).code).toBe("OUT_OF_RANGE");
    expect(classifyError(new TypeError("x is undefined")).kind).toBe("untyped");
    expect(classifyError("a string").kind).toBe("untyped");
    expect(classifyError(new RangeError("Array buffer allocation failed")).kind).toBe("memory");
    expect(classifyError(new RangeError("Invalid typed array length: -1")).kind).toBe("untyped");
  });

  it("signatures group messages that differ only in numbers", () => {
    expect(signature({ kind: "untyped", message: "TypeError: bad at 12" })).toBe(signature({ kind: "untyped", message: "TypeError: bad at 907" }));
    expect(signature({ kind: "untyped", message: "TypeError: a" })).not.toBe(signature({ kind: "untyped", message: "RangeError: a" }));
  });
});

describe("minimizer", () => {
  it("shrinks to the two bytes the predicate needs, in order", async () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i === 120 ? 0xab : i === 250 ? 0xcd : i % 100));
    const holds = async (input: Map<string, Uint8Array>) => {
      const b = input.get("input")!;
      const a = b.indexOf(0xab);
      return a >= 0 && b.indexOf(0xcd, a) > a;
    };
    const { input } = await minimizeInput(new Map([["input", bytes]]), holds, 5000);
    expect(Array.from(input.get("input")!)).toEqual([0xab, 0xcd]);
  });

  it("drops files the predicate does not need", async () => {
    const input = new Map([["a", Uint8Array.of(1)], ["b", Uint8Array.of(2, 2)], ["c", Uint8Array.of(3)]]);
    const { input: out } = await minimizeInput(input, async (i) => (i.get("b")?.length ?? 0) > 0, 100);
    expect([...out.keys()]).toEqual(["b"]);
    expect(Array.from(out.get("b")!)).toEqual([2]);
  });
});

describe("watchdog", () => {
  let WatchedWorker: typeof WatchedWorkerType;
  let fuzzTarget: typeof fuzzTargetType;
  beforeAll(async () => {
    execFileSync(process.execPath, [fileURLToPath(new URL("../../../node_modules/typescript/bin/tsc", import.meta.url)), "-b", packageDir], { stdio: "inherit" });
    ({ WatchedWorker } = (await import(pathToFileURL(`${packageDir}dist/watched-worker-node.js`).href)) as { WatchedWorker: typeof WatchedWorkerType });
    ({ fuzzTarget } = (await import(pathToFileURL(`${packageDir}dist/fuzz-node.js`).href)) as { fuzzTarget: typeof fuzzTargetType });
  });
  const one = (b: number) => new Map([["input", Uint8Array.of(b)]]);

  it("classifies return, typed error, untyped error, endless loop and heap exhaustion, and recovers after each", async () => {
    const worker = new WatchedWorker("misbehaving", corpusDir, { timeoutMs: 300, memoryMb: 64, rssMb: 8192 }, undefined, fixture);
    try {
      expect((await worker.replay(one(0))).kind).toBe("ok");
      expect(await worker.replay(one(3))).toEqual({ kind: "typed", code: "TRUNCATED" });
      expect((await worker.replay(one(2))).kind).toBe("untyped");
      expect((await worker.replay(one(1))).kind).toBe("hang");
      expect((await worker.replay(one(0))).kind).toBe("ok");
    } finally {
      await worker.stop();
    }
  }, 60_000);

  it("stops a worker whose heap goes over its limit and reports memory", async () => {
    // A long time limit: close to the heap limit the collector runs often and the loop slows down.
    const worker = new WatchedWorker("misbehaving", corpusDir, { timeoutMs: 30_000, memoryMb: 64, rssMb: 8192 }, undefined, fixture);
    try {
      expect((await worker.replay(one(4))).kind).toBe("memory");
      expect((await worker.replay(one(0))).kind).toBe("ok");
    } finally {
      await worker.stop();
    }
  }, 90_000);

  it("counts generated outcomes in shared counters and reports each untyped error with its index", async () => {
    const worker = new WatchedWorker("misbehaving", corpusDir, { timeoutMs: 2000, memoryMb: 64, rssMb: 8192 }, undefined, fixture);
    const found: number[] = [];
    try {
      const end = await worker.run({ type: "range", seed: 3, start: 0, stride: 1, count: 60, deadline: 0 }, (index) => found.push(index));
      expect(end).toEqual({ kind: "done", next: 60, ran: 60 });
    } finally {
      await worker.stop();
    }
    // The fixture throws for inputs whose generator draws 0 from below(3): recompute independently.
    const expected = Array.from({ length: 60 }, (_, i) => i).filter((i) => inputRng(3, "misbehaving", i).below(3) === 0);
    expect(found).toEqual(expected);
    expect(worker.status[3]).toBe(60 - expected.length); // SLOT.ok
  }, 60_000);

  it("a run split over two workers runs the same inputs as one worker (same counts by class and code)", async () => {
    const options = { seed: 11, inputs: 2000, seconds: 0, corpusDir, outDir: "/nonexistent-no-findings-expected", limits: {} };
    const one = await fuzzTarget("dtype", { ...options, jobs: 1 });
    const two = await fuzzTarget("dtype", { ...options, jobs: 2 });
    expect(one.inputs).toBe(2000);
    expect(two.inputs).toBe(2000);
    expect(two.counts).toEqual(one.counts);
    expect(two.typedByCode).toEqual(one.typedByCode);
    expect(one.counts.ok + one.counts.typed).toBe(2000);
  }, 60_000);
});
