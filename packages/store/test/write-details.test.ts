// Writer details checked against independent sources: format-facts / spec examples (chunklen,
// meta/storage text), numpy through /usr/bin/python3 (quantize, float16), and error codes.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@fmt/fs-adapters";
import { createCarray, computeChunklen, halfBits, openCarray, quantizeBits } from "@fmt/store";
import type { CArray } from "@fmt/store";
import { CORPUS } from "./helpers.js";


const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));
async function failure(p: Promise<unknown> | (() => unknown)): Promise<{ code: string; path?: string }> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    return e as { code: string; path?: string };
  }
  throw new Error("expected a failure");
}
function numpy(script: string): string {
  return execFileSync("/usr/bin/python3", ["-c", script], { encoding: "utf8" }).trim();
}

describe("chunklen from expectedlen (format-facts 4.9 examples)", () => {
  it.each([
    [100000, 4, 65536],
    [26214, 4, 32768],
    [26215, 4, 65536],
    [10_000_000, 8, 65536],
    [10, 24, 1365],
    [0, 8, 2048],
    [60000, 8, 32768],
    [10000, 8, 16384],
    [10000, 4, 32768],
  ])("expectedlen %i, atomsize %i -> %i", (n, atom, want) => {
    expect(computeChunklen(n, atom)).toBe(want);
  });
});

describe("meta/storage as bcolz writes it", () => {
  it("equals the corpus file for carray_mode_w_flush_default (all defaults, 20000 f8)", async () => {
    const store = new MemoryStore();
    const a = await createCarray(store, "d", new Float64Array(20000), { dtype: "float64" });
    await a.close();
    expect(text(await store.get("d/meta/storage"))).toBe(readFileSync(join(CORPUS, "carray_mode_w_flush_default/data.bcolz/meta/storage"), "utf8"));
    expect(text(await store.get("d/meta/sizes"))).toBe(readFileSync(join(CORPUS, "carray_mode_w_flush_default/data.bcolz/meta/sizes"), "utf8"));
    expect(text(await store.get("d/__attrs__"))).toBe("{}\n");
  });

  it("writes a NaN dflt as NaN, a uint64 dflt above 2^53 exactly, NaT as null, float32 widened", async () => {
    const store = new MemoryStore();
    const cases: [string, unknown, string][] = [
      ["<f8", NaN, '"dflt": NaN}'],
      ["<f8", -Infinity, '"dflt": -Infinity}'],
      ["<u8", 18446744073709551615n, '"dflt": 18446744073709551615}'],
      ["<M8[ns]", null, '"dflt": null}'],
      ["<f4", 0.1, '"dflt": 0.10000000149011612}'],
      ["|b1", true, '"dflt": true}'],
      ["|S4", "ab", '"dflt": "ab"}'],
    ];
    for (const [i, [dtype, dflt, tail]] of cases.entries()) {
      const a = await createCarray(store, `d${i}`, undefined, { dtype, dflt: dflt as never, chunklen: 4 });
      await a.resize(5);
      await a.close();
      expect(text(await store.get(`d${i}/meta/storage`))!.trimEnd().endsWith(tail), dtype).toBe(true);
      const back = await openCarray(store, `d${i}`);
      const v = await back.get(4);
      if (dtype === "<f8") expect(Object.is(v, dflt)).toBe(true);
      if (dtype === "<u8") expect(v).toBe(18446744073709551615n);
      if (dtype === "<M8[ns]") expect(v).toBe(-(2n ** 63n));
    }
    expect(text(await store.get("d4/meta/storage"))).toBe('{"dtype": "float32", "cparams": {"clevel": 5, "shuffle": 1, "cname": "lz4", "quantize": 0}, "chunklen": 4, "expectedlen": 0, "dflt": 0.10000000149011612}\n');
  });

  it("spells dtypes like bcolz for every storable kind", async () => {
    const store = new MemoryStore();
    const want: Record<string, string> = { "<i2": "int16", "|u1": "uint8", ">i4": ">i4", "<f2": "float16", "|S7": "|S7", "<U3": "<U3", "<M8[D]": "datetime64[D]", "|b1": "bool" };
    for (const [i, [dtype, name]] of Object.entries(want).entries()) {
      const a = await createCarray(store, `s${i}`, undefined, { dtype, chunklen: 8 });
      await a.close();
      expect(text(await store.get(`s${i}/meta/storage`))).toContain(`{"dtype": "${name}", `);
    }
    for (const bad of ["complex128", "timedelta64[s]", "|V8", "datetime64[10s]"]) expect((await failure(createCarray(store, "bad", undefined, { dtype: bad }))).code).toBe("UNSUPPORTED_DTYPE");
  });
});

describe("values against numpy", () => {
  it("quantize rounds like bcolz/numpy (q = 1, 2, 3; f8 and f4)", async () => {
    const xs = [0.123456, -3.14159, 1e-7, 2.5 / 16, 123456.789, -0.0625 / 2, 7.777];
    const store = new MemoryStore();
    for (const q of [1, 2, 3]) {
      for (const dtype of ["float64", "float32"]) {
        const want = JSON.parse(
          numpy(
            `import numpy as np, math, json\nd=np.array(${JSON.stringify(xs)}, dtype='${dtype}')\nbits=math.ceil(math.log(10.**${q},2))\ns=2.**bits\nprint(json.dumps([float(v) for v in np.around(s*d)/s]))`,
          ),
        ) as number[];
        const a = await createCarray(store, `q${q}${dtype}`, xs, { dtype, chunklen: 4, cparams: { quantize: q } });
        expect(Array.from((await a.read()) as Float64Array)).toEqual(want);
        await a.close();
        expect(text(await store.get(`q${q}${dtype}/meta/storage`))).toContain(`"quantize": ${q}}`);
      }
      expect(quantizeBits(q)).toBe([4, 7, 10][q - 1]);
    }
  });

  it("float16 encoding equals numpy's astype(float16)", () => {
    const xs = [0, -0, 1, 1 / 3, 65504, 65519.99, 65520, 1e-8, 2 ** -24, 3 * 2 ** -26, 5.960464477539063e-8, 0.1, -2.5, 1e5, NaN, Infinity, 2049, 2051, 4097];
    const want = JSON.parse(numpy(`import numpy as np, json\nprint(json.dumps([int(v) for v in np.array([${xs.map((x) => (Number.isNaN(x) ? "float('nan')" : x === Infinity ? "float('inf')" : Object.is(x, -0) ? "-0.0" : String(x))).join(",")}], dtype='float64').astype('float16').view('uint16')]))`)) as number[];
    expect(xs.map(halfBits)).toEqual(want);
  });
});

describe("modes, locks, names", () => {
  async function filled(store: MemoryStore): Promise<CArray> {
    return createCarray(store, "x", new Int32Array([5, 1, 9, 3, 7, 2, 8]), { dtype: "<i4", chunklen: 3 });
  }
  it("a second writer gets LOCKED with the lock path; breakLock and close release it", async () => {
    const store = new MemoryStore();
    const a = await filled(store);
    const err = await failure(openCarray(store, "x", { mode: "a" }));
    expect([err.code, err.path]).toEqual(["LOCKED", "x/.lock"]);
    expect(text(await store.get("x/.lock"))).toMatch(/^\{"owner": "[0-9a-f]{32}", "created": "/);
    const reader = await openCarray(store, "x");
    expect(reader.length).toBe(7);
    await a.close();
    expect(await store.get("x/.lock")).toBeUndefined();
    await store.put("x/.lock", new TextEncoder().encode('{"owner": "dead"}\n'));
    expect((await failure(openCarray(store, "x", { mode: "a" }))).code).toBe("LOCKED");
    const b = await openCarray(store, "x", { mode: "a", breakLock: true });
    await b.close();
    expect(await store.get("x/.lock")).toBeUndefined();
  });
  it("create refuses an existing dataset unless mode w; w-open truncates keeping attrs", async () => {
    const store = new MemoryStore();
    const a = await filled(store);
    await a.attrs.set("k", 1);
    await a.close();
    const err = await failure(createCarray(store, "x", [1], { dtype: "<i4" }));
    expect([err.code]).toEqual(["ALREADY_EXISTS"]);
    const w = await openCarray(store, "x", { mode: "w" });
    expect(w.length).toBe(0);
    await w.close();
    expect(await store.list("x/")).toEqual(["x/__attrs__", "x/meta/sizes", "x/meta/storage"]);
    expect((await openCarray(store, "x")).attrs.get("k")).toBe(1);
    const r = await createCarray(store, "x", new Float64Array([1.5]), { dtype: "<f8", mode: "w" });
    await r.close();
    expect(Array.from((await (await openCarray(store, "x")).read()) as Float64Array)).toEqual([1.5]);
  });
  it("rejects unsafe dataset paths with UNSAFE_NAME", async () => {
    const store = new MemoryStore();
    for (const p of ["..", "../x", "/abs", "a//b", "a/\0", "a\\b"]) {
      expect((await failure(createCarray(store, p, [1], { dtype: "<i4" }))).code, p).toBe("UNSAFE_NAME");
      expect((await failure(openCarray(store, p, { mode: "a" }))).code, p).toBe("UNSAFE_NAME");
    }
  });
  it("read-only arrays refuse writes with READ_ONLY", async () => {
    const store = new MemoryStore();
    await (await filled(store)).close();
    const r = await openCarray(store, "x");
    for (const f of [() => r.append([1]), () => r.set(0, 1), () => r.resize(1), () => r.trim(1), () => r.attrs.set("a", 1)]) expect((await failure(f)).code).toBe("READ_ONLY");
  });
  it("sum/min/max work block by block; iterBlocks with a step", async () => {
    const store = new MemoryStore();
    const a = await filled(store);
    expect([await a.sum(), await a.min(), await a.max()]).toEqual([35, 1, 9]);
    const blocks = [];
    for await (const b of a.iterBlocks({ blockLen: 2, start: 1, stop: 7, step: 2 })) blocks.push([b.start, b.stop, b.step, Array.from(new Int32Array(b.bytes.slice().buffer))]);
    expect(blocks).toEqual([[1, 4, 2, [1, 3]], [5, 6, 2, [2]]]);
    const big = await createCarray(store, "b", [2n ** 62n, 2n ** 62n, -1n], { dtype: "<i8", chunklen: 2 });
    expect(await big.sum()).toBe(2n ** 63n - 1n);
    expect((await failure(createCarray(store, "s", ["toolong"], { dtype: "|S3" }))).code).toBe("OUT_OF_RANGE");
    expect((await failure(a.set(7, 1))).code).toBe("OUT_OF_RANGE");
    await a.close();
    await big.close();
  });
  it("writes N-d rows, async iterables and leaves data/ and bcolz file names", async () => {
    const store = new MemoryStore();
    async function* gen() {
      for (let i = 0; i < 5; i++) yield new Float64Array([i, i + 0.5, -i]);
    }
    const a = await createCarray(store, "n", gen(), { dtype: "<f8", shape: [3], chunklen: 2 });
    expect(a.shape).toEqual([5, 3]);
    await a.set(1, [9, 9, 9]);
    await a.close();
    expect(await store.list("n/data/")).toEqual(["n/data/__0.blp", "n/data/__1.blp", "n/data/__2.blp"]);
    expect(text(await store.get("n/meta/sizes"))!.startsWith('{"shape": [5, 3], "nbytes": 120, "cbytes": ')).toBe(true);
    const head = (await store.get("n/data/__2.blp"))!.subarray(0, 16);
    expect(Array.from(head)).toEqual([0x62, 0x6c, 0x70, 0x6b, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
    expect(Array.from((await (await openCarray(store, "n")).read(1, 2)) as Float64Array)).toEqual([9, 9, 9]);
  });
});

describe("chunks written in place (PutOptions.unreferenced)", () => {
  /** A memory store that records each put's options and can fail a put after storing it. */
  class RecordingStore extends MemoryStore {
    puts: { key: string; unreferenced: boolean }[] = [];
    // put calls MemoryStore's put first, before any await: it takes the bytes at once.
    override get putsAtOnce(): boolean {
      return true;
    }
    failAfterStoring: string | undefined;
    override async put(key: string, value: Uint8Array, options?: { durable?: boolean; unreferenced?: boolean }): Promise<void> {
      await super.put(key, value, options);
      this.puts.push({ key, unreferenced: options?.unreferenced === true });
      if (key === this.failAfterStoring) {
        this.failAfterStoring = undefined;
        throw new Error("the directory flush failed after the rename");
      }
    }
  }

  it("only for chunks past the committed length, and not for those below a length whose commit failed after storing", async () => {
    const store = new RecordingStore();
    const a = await createCarray(store, "a", new Int32Array(20).map((_, i) => i), { dtype: "<i4", chunklen: 10 });
    const chunkPuts = (): { key: string; unreferenced: boolean }[] => store.puts.filter((p) => p.key.startsWith("a/data/"));
    // Created: both chunks lie past the committed length 0 until the commit.
    expect(chunkPuts()).toEqual([{ key: "a/data/__0.blp", unreferenced: true }, { key: "a/data/__1.blp", unreferenced: true }]);
    store.puts = [];
    await a.set(5, 99); // a committed chunk: atomic
    await a.flush();
    expect(chunkPuts()).toEqual([{ key: "a/data/__0.blp", unreferenced: false }]);

    store.puts = [];
    await a.append(new Int32Array(20).fill(7));
    store.failAfterStoring = "a/meta/sizes";
    await expect(a.flush()).rejects.toThrow(/directory flush failed/);
    // meta/sizes on disk says 40 rows now: chunks 2 and 3 are read by readers of it.
    expect((await openCarray(store, "a", { mode: "r" })).length).toBe(40);
    store.puts = [];
    await a.set(25, 1);
    await a.flush();
    expect(chunkPuts()).toEqual([{ key: "a/data/__2.blp", unreferenced: false }]);
    await a.close();
    expect(Array.from((await (await openCarray(store, "a", { mode: "r" })).read(20, 30)) as Int32Array)).toEqual([7, 7, 7, 7, 7, 1, 7, 7, 7, 7]);
  });
});
