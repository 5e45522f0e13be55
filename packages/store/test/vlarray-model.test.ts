// Model-based property test of vlarrays (spec/v2.md §12): random sequences of append, set (same
// length), trim, resize, reopen and element/range/take reads on a real VLArray, compared after
// every step with a plain array of elements, for each vtype, on MemoryStore and FileSystemStore.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import type { WritableStore } from "@fmt/fs-adapters";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createVLArray, openCarray, openVLArray } from "@fmt/store";
import type { VLArray, VLElementInput, VLType } from "@fmt/store";

type Elem = string | number[];

interface Kind {
  vtype: VLType;
  dtype?: string;
  elem: fc.Arbitrary<Elem>;
  /** Same-length replacement of an element. */
  sameLength: (e: Elem, seed: number) => Elem;
  input: (e: Elem) => VLElementInput;
  plain: (e: unknown) => Elem;
}

const bytesOf = (e: Elem): Uint8Array => Uint8Array.from(e as number[]);
const KINDS: Kind[] = [
  {
    vtype: "utf8",
    elem: fc.string({ unit: "grapheme", maxLength: 12 }),
    // Same UTF-8 length: replace every ASCII letter by another one, keep the rest.
    sameLength: (e, seed) => (e as string).replace(/[a-zA-Z]/g, (c) => String.fromCharCode(97 + ((c.charCodeAt(0) + seed) % 26))),
    input: (e) => e,
    plain: (e) => e as string,
  },
  {
    vtype: "bytes",
    elem: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 20 }),
    sameLength: (e, seed) => (e as number[]).map((b) => (b + seed) & 255),
    input: bytesOf,
    plain: (e) => Array.from(e as Uint8Array),
  },
  {
    vtype: "ragged",
    dtype: ">i4",
    elem: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 9 }),
    sameLength: (e, seed) => (e as number[]).map((x) => (x ^ seed) | 0),
    input: (e) => Int32Array.from(e as number[]),
    plain: (e) => Array.from(e as Int32Array),
  },
];

interface Model {
  elems: Elem[];
}
interface Real {
  store: WritableStore;
  array: VLArray;
  kind: Kind;
}

async function check(m: Model, r: Real): Promise<void> {
  const a = r.array;
  expect(a.length).toBe(m.elems.length);
  expect((await a.read()).map(r.kind.plain)).toEqual(m.elems);
  if (m.elems.length > 0) {
    const k = m.elems.length - 1;
    expect(r.kind.plain(await a.get(k))).toEqual(m.elems[k]);
    expect(r.kind.plain(await a.get(-m.elems.length))).toEqual(m.elems[0]);
  }
}

class Append implements fc.AsyncCommand<Model, Real> {
  constructor(readonly elems: Elem[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await r.array.append(this.elems.map(r.kind.input));
    m.elems.push(...this.elems);
    await check(m, r);
  }
  toString = () => `append(${JSON.stringify(this.elems)})`;
}
class SetSame implements fc.AsyncCommand<Model, Real> {
  constructor(readonly at: number, readonly seed: number) {}
  check = (m: Readonly<Model>) => m.elems.length > 0;
  async run(m: Model, r: Real) {
    const k = this.at % m.elems.length;
    const next = r.kind.sameLength(m.elems[k]!, this.seed);
    await r.array.set(k, r.kind.input(next));
    m.elems[k] = next;
    await check(m, r);
  }
  toString = () => `set(${this.at}, seed ${this.seed})`;
}
class SetOtherLength implements fc.AsyncCommand<Model, Real> {
  constructor(readonly at: number) {}
  check = (m: Readonly<Model>) => m.elems.length > 0;
  async run(m: Model, r: Real) {
    const k = this.at % m.elems.length;
    const e = m.elems[k]!;
    const longer: Elem = typeof e === "string" ? `${e}x` : [...e, 1];
    await expect(r.array.set(k, r.kind.input(longer))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await check(m, r);
  }
  toString = () => `setOtherLength(${this.at})`;
}
class Trim implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const n = Math.min(this.n, m.elems.length);
    await r.array.trim(n);
    m.elems.length -= n;
    await check(m, r);
  }
  toString = () => `trim(${this.n})`;
}
class Grow implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    await r.array.resize(m.elems.length + this.n);
    for (let i = 0; i < this.n; i++) m.elems.push(r.kind.vtype === "utf8" ? "" : []);
    await check(m, r);
  }
  toString = () => `grow(${this.n})`;
}
class Reopen implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.array.close();
    const reader = await openVLArray(r.store, "v");
    expect((await reader.read()).map(r.kind.plain)).toEqual(m.elems);
    r.array = await openVLArray(r.store, "v", { mode: "a" });
    await check(m, r);
  }
  toString = () => "reopen";
}
class ReadSome implements fc.AsyncCommand<Model, Real> {
  constructor(readonly a: number, readonly b: number, readonly step: number, readonly picks: number[]) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const n = m.elems.length;
    const start = n === 0 ? 0 : this.a % (n + 1);
    const stop = n === 0 ? 0 : this.b % (n + 1);
    const expected: Elem[] = [];
    for (let k = start; k < stop; k += this.step) expected.push(m.elems[k]!);
    expect((await r.array.read(start, stop, this.step)).map(r.kind.plain)).toEqual(expected);
    const picks = n === 0 ? [] : this.picks.map((p) => p % n);
    expect((await r.array.take(picks)).map(r.kind.plain)).toEqual(picks.map((p) => m.elems[p]));
    const blocks: Elem[] = [];
    for await (const block of r.array.iterBlocks(3, start, Math.max(start, stop))) blocks.push(...block.elements.map(r.kind.plain));
    expect(blocks).toEqual(m.elems.slice(start, Math.max(start, stop)));
  }
  toString = () => `read(${this.a}, ${this.b}, ${this.step}; take ${JSON.stringify(this.picks)})`;
}

function commands(kind: Kind) {
  return fc.commands([
    fc.array(kind.elem, { maxLength: 12 }).map((e) => new Append(e)),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 25 })).map(([at, seed]) => new SetSame(at, seed)),
    fc.nat().map((at) => new SetOtherLength(at)),
    fc.integer({ min: 0, max: 6 }).map((n) => new Trim(n)),
    fc.integer({ min: 1, max: 3 }).map((n) => new Grow(n)),
    fc.constant(new Reopen()),
    fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 3 }), fc.array(fc.nat(), { maxLength: 5 })).map(([a, b, s, p]) => new ReadSome(a, b, s, p)),
  ], { maxCommands: 25 });
}

const stores: [string, () => { store: WritableStore; cleanup: () => void }][] = [
  ["MemoryStore", () => ({ store: new MemoryStore(), cleanup: () => undefined })],
  ["FileSystemStore", () => {
    const dir = mkdtempSync(join(tmpdir(), "vl-model-"));
    return { store: new FileSystemStore(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }],
];

describe("vlarray model", () => {
  for (const kind of KINDS) {
    for (const [storeName, makeStore] of stores) {
      it(`${kind.vtype} on ${storeName}`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(kind.elem, { maxLength: 8 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 4 }), commands(kind), async (initial, chunklen, superchunksize, cmds) => {
            const { store, cleanup } = makeStore();
            try {
              const array = await createVLArray(store, "v", initial.map(kind.input), { vtype: kind.vtype, ...(kind.dtype === undefined ? {} : { dtype: kind.dtype }), chunklen, superchunksize, formatVersion: 2 } as never);
              const real: Real = { store, array, kind };
              await fc.asyncModelRun(() => ({ model: { elems: [...initial] }, real }), cmds);
              await real.array.close();
              // What remains on the store reads back as the model, and values end at offsets[n].
              const reader = await openVLArray(store, "v");
              const values = await openCarray(store, "v/values");
              const offsets = await openCarray(store, "v/offsets");
              expect(values.length).toBe(Number((await offsets.read()).at(-1)));
              expect(reader.length).toBe(offsets.length - 1);
            } finally {
              cleanup();
            }
          }),
          { numRuns: storeName === "MemoryStore" ? 40 : 12 },
        );
      }, 120_000);
    }
  }
});
