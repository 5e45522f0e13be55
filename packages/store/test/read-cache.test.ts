// The chunk cache of CArray against a plain model: random sequences of writes (append, set by
// index / slice / list / mask, resize, trim, flush, close + reopen) interleaved with cached
// reads (get, take, chunkBytes), each compared with the model right away. A cache that a write
// path forgets to invalidate serves old values here.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, createCtable, openCarray } from "@fmt/store";
import type { CArray } from "@fmt/store";
import { asCArray } from "./helpers.js";

interface Model {
  values: number[];
}
interface Real {
  store: MemoryStore;
  array: CArray;
  cacheBytes: number;
}

// 160-byte chunks: above Blosc's 128-byte minimum, so they are compressed, not stored (memcpyed).
const CHUNKLEN = 40;
const value = fc.integer({ min: -1000, max: 1000 });

async function readBack(m: Model, r: Real, probes: number[]): Promise<void> {
  expect(r.array.length).toBe(m.values.length);
  if (m.values.length === 0) return;
  const rows = probes.map((p) => p % m.values.length);
  for (const row of rows) expect(await r.array.get(row)).toBe(m.values[row]);
  expect(Array.from((await r.array.take(rows)) as Int32Array)).toEqual(rows.map((row) => m.values[row]));
  const chunk = Math.floor(rows[0]! / CHUNKLEN);
  const fromChunk = Array.from(new Int32Array((await r.array.chunkBytes(chunk)).slice().buffer));
  expect(fromChunk).toEqual(m.values.slice(chunk * CHUNKLEN, (chunk + 1) * CHUNKLEN));
}

// Rows in every chunk of arrays up to 240 rows: read before and after each write, so that each
// write meets cached chunks, blocks and plans of every chunk it may change.
const SPREAD = [0, 39, 40, 79, 80, 119, 120, 159, 160, 199, 200, 239];

async function around(m: Model, r: Real, write: () => Promise<void>): Promise<void> {
  await readBack(m, r, SPREAD);
  await write();
  await readBack(m, r, SPREAD);
}

class Probe implements fc.AsyncCommand<Model, Real> {
  constructor(readonly probes: number[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await readBack(m, r, this.probes);
  }
  toString = () => `probe(${this.probes.join(",")})`;
}

class Append implements fc.AsyncCommand<Model, Real> {
  constructor(readonly values: number[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await around(m, r, async () => {
      await r.array.append(new Int32Array(this.values));
      m.values.push(...this.values);
    });
  }
  toString = () => `append(${this.values.length})`;
}

class SetIndex implements fc.AsyncCommand<Model, Real> {
  constructor(readonly at: number, readonly value: number) {}
  check = (m: Readonly<Model>) => m.values.length > 0;
  async run(m: Model, r: Real) {
    await around(m, r, async () => {
      const row = this.at % m.values.length;
      await r.array.set(row, this.value);
      m.values[row] = this.value;
    });
  }
  toString = () => `set(${this.at}, ${this.value})`;
}

class SetSlice implements fc.AsyncCommand<Model, Real> {
  constructor(readonly start: number, readonly step: number, readonly value: number) {}
  check = (m: Readonly<Model>) => m.values.length > 0;
  async run(m: Model, r: Real) {
    await around(m, r, async () => {
      const start = this.start % m.values.length;
      await r.array.set({ start, step: this.step }, this.value);
      for (let i = start; i < m.values.length; i += this.step) m.values[i] = this.value;
    });
  }
  toString = () => `set({start: ${this.start}, step: ${this.step}}, ${this.value})`;
}

class SetList implements fc.AsyncCommand<Model, Real> {
  constructor(readonly at: number[], readonly value: number) {}
  check = (m: Readonly<Model>) => m.values.length > 0;
  async run(m: Model, r: Real) {
    await around(m, r, async () => {
      const rows = this.at.map((a) => a % m.values.length);
      await r.array.set(rows, this.value);
      for (const row of rows) m.values[row] = this.value;
    });
  }
  toString = () => `set([${this.at.join(",")}], ${this.value})`;
}

class SetMask implements fc.AsyncCommand<Model, Real> {
  constructor(readonly every: number, readonly value: number) {}
  check = (m: Readonly<Model>) => m.values.length > 0;
  async run(m: Model, r: Real) {
    await around(m, r, async () => {
      const mask = m.values.map((_, i) => i % this.every === 0);
      await r.array.set(mask, this.value);
      mask.forEach((on, i) => {
        if (on) m.values[i] = this.value;
      });
    });
  }
  toString = () => `setMask(every ${this.every}, ${this.value})`;
}

class Resize implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await around(m, r, async () => {
      await r.array.resize(this.n);
      // dflt of the array is 0 (created below)
      while (m.values.length < this.n) m.values.push(0);
      m.values.length = this.n;
    });
  }
  toString = () => `resize(${this.n})`;
}

class Trim implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = (m: Readonly<Model>) => m.values.length > 0;
  async run(m: Model, r: Real) {
    await around(m, r, async () => {
      const n = this.n % (m.values.length + 1);
      await r.array.trim(n);
      m.values.length -= n;
    });
  }
  toString = () => `trim(${this.n})`;
}

class Flush implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    await r.array.flush();
  }
  toString = () => "flush";
}

class Reopen implements fc.AsyncCommand<Model, Real> {
  constructor(readonly probes: number[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    // Read through the closed (now read-only) handle first: its cache must not hold rows that
    // came from the writer's memory.
    await r.array.close();
    await readBack(m, r, this.probes);
    r.array = await openCarray(r.store, "a", { mode: "a", cacheBytes: r.cacheBytes });
  }
  toString = () => "reopen";
}

const probes = fc.array(fc.nat(10_000), { minLength: 1, maxLength: 6 });
const commands = [
  probes.map((p) => new Probe(p)),
  fc.array(value, { minLength: 1, maxLength: 90 }).map((v) => new Append(v)),
  fc.tuple(fc.nat(1000), value).map(([a, v]) => new SetIndex(a, v)),
  fc.tuple(fc.nat(1000), fc.integer({ min: 1, max: 9 }), value).map(([a, s, v]) => new SetSlice(a, s, v)),
  fc.tuple(fc.array(fc.nat(1000), { minLength: 1, maxLength: 5 }), value).map(([a, v]) => new SetList(a, v)),
  fc.tuple(fc.integer({ min: 1, max: 7 }), value).map(([e, v]) => new SetMask(e, v)),
  fc.nat(240).map((n) => new Resize(n)),
  fc.nat(40).map((n) => new Trim(n)),
  fc.constant(new Flush()),
  probes.map((p) => new Reopen(p)),
];

describe("CArray chunk cache against a model", () => {
  for (const cacheBytes of [1 << 20, 3 * CHUNKLEN * 4 + 300]) {
    it(`every write path invalidates what it changes (cacheBytes ${cacheBytes})`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(value, { maxLength: 240 }), fc.commands(commands, { maxCommands: 30 }), async (initial, cmds) => {
          const store = new MemoryStore();
          const created = await createCarray(store, "a", new Int32Array(initial), { dtype: "<i4", chunklen: CHUNKLEN, dflt: 0 });
          await created.close();
          const array = await openCarray(store, "a", { mode: "a", cacheBytes });
          const real: Real = { store, array, cacheBytes };
          await fc.asyncModelRun(() => ({ model: { values: [...initial] }, real }), cmds);
          await real.array.close();
        }),
        { numRuns: 60 },
      );
    });
  }

  it("a ctable's append and addColumn are seen by cached column reads", async () => {
    const store = new MemoryStore();
    const table = await createCtable(store, "t", [{ name: "x", data: new Int32Array(40).map((_, i) => i), options: { dtype: "<i4", chunklen: 8 } }]);
    const x = asCArray(table.column("x"));
    expect(await x.get(39)).toBe(39);
    expect(await x.get(35)).toBe(35);
    await table.append({ x: new Int32Array([100, 101, 102]) });
    expect(await x.get(40)).toBe(100);
    expect(Array.from((await x.take([39, 42, 0])) as Int32Array)).toEqual([39, 102, 0]);
    const y = await table.addColumn("y", new Float64Array(43).fill(2.5));
    expect(await y.get(42)).toBe(2.5);
    await x.set(39, -1);
    expect(await x.get(39)).toBe(-1);
    await table.close();
  });
});
