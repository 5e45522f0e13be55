// Model-based command sequences (fast-check) on a carray: append / set / resize / trim / flush /
// reopen / attrs, compared after every step with a plain array. The same sequences run on
// MemoryStore and on S3Store against s3rver on loopback, so the S3 store must behave like memory.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import type { WritableStore } from "@fmt/fs-adapters";
import { S3Store } from "@fmt/fs-adapters/s3";
import { createCarray, openCarray } from "@fmt/store";
import type { CArray } from "@fmt/store";
import { TEST_BUCKET, makeClient, startS3Server } from "../src/s3-server.js";
import type { S3Server } from "../src/s3-server.js";

interface Model {
  rows: number[];
  attrs: Map<string, number>;
}
interface Real {
  store: WritableStore;
  array: CArray;
}
const DFLT = 7;

async function check(m: Model, r: Real): Promise<void> {
  expect(r.array.length).toBe(m.rows.length);
  expect(Array.from((await r.array.read()) as Int32Array)).toEqual(m.rows);
  expect(r.array.attrs.keys()).toEqual([...m.attrs.keys()]);
  for (const [k, v] of m.attrs) expect(r.array.attrs.get(k)).toBe(v);
}

type Command = fc.AsyncCommand<Model, Real>;
const command = (name: string, ok: (m: Readonly<Model>) => boolean, run: (m: Model, r: Real) => Promise<void>): Command => ({
  check: ok,
  run: async (m, r) => {
    await run(m, r);
    await check(m, r);
  },
  toString: () => name,
});

const int = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const commands = fc.commands(
  [
    fc.array(int, { maxLength: 12 }).map((rows) => command(`append(${rows.length})`, () => true, async (m, r) => {
      await r.array.append(rows);
      m.rows.push(...rows);
    })),
    fc.tuple(fc.nat(), int).map(([pick, value]) => command(`set(${pick})`, (m) => m.rows.length > 0, async (m, r) => {
      const i = pick % m.rows.length;
      await r.array.set(i, value);
      m.rows[i] = value;
    })),
    fc.nat({ max: 30 }).map((n) => command(`resize(${n})`, () => true, async (m, r) => {
      await r.array.resize(n);
      while (m.rows.length < n) m.rows.push(DFLT);
      m.rows.length = n;
    })),
    fc.nat({ max: 6 }).map((n) => command(`trim(${n})`, (m) => n <= m.rows.length, async (m, r) => {
      await r.array.trim(n);
      m.rows.length -= n;
    })),
    fc.constant(command("flush", () => true, async (_m, r) => r.array.flush())),
    fc.constant(command("reopen", () => true, async (m, r) => {
      await r.array.close();
      await check(m, { ...r, array: await openCarray(r.store, "ds") });
      r.array = await openCarray(r.store, "ds", { mode: "a" });
    })),
    fc.tuple(fc.constantFrom("a", "b"), fc.option(fc.integer(), { nil: undefined })).map(([key, value]) => command(`attr(${key}=${value})`, () => true, async (m, r) => {
      if (value === undefined) {
        await r.array.attrs.delete(key);
        m.attrs.delete(key);
      } else {
        await r.array.attrs.set(key, value);
        m.attrs.set(key, value);
      }
    })),
  ],
  { maxCommands: 12 },
);

async function runModel(makeStore: () => WritableStore, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.array(int, { maxLength: 9 }), commands, async (chunklen, initial, cmds) => {
      const store = makeStore();
      const array = await createCarray(store, "ds", initial, { dtype: "<i4", chunklen, dflt: DFLT });
      const real: Real = { store, array };
      const model: Model = { rows: [...initial], attrs: new Map() };
      await check(model, real);
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      await real.array.close();
      await check(model, { store, array: await openCarray(store, "ds") });
      expect(await store.get("ds/.lock")).toBeUndefined();
    }),
    { numRuns },
  );
}

let server: S3Server;
beforeAll(async () => {
  server = await startS3Server();
});
afterAll(async () => {
  await server?.stop();
});

describe("carray command sequences behave alike on MemoryStore and S3Store", () => {
  it("MemoryStore", async () => {
    await runModel(() => new MemoryStore(), 40);
  });
  it("S3Store on s3rver", async () => {
    const client = makeClient(server.endpoint);
    let run = 0;
    await runModel(() => new S3Store({ client, bucket: TEST_BUCKET, prefix: `model-${++run}/` }), 20);
    client.destroy();
  });
});
