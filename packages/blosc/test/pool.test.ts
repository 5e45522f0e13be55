// The worker pool (@fmt/blosc/pool) against the single-threaded functions, on chunks written by
// the real c-blosc 1.21: same bytes, same errors, and workers that end with close().
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BcolzError, FormatError, UsageError } from "@fmt/errors";
import * as api from "../src/index.js";
import { decompress } from "../src/index.js";
import { createBloscPool, packedAt } from "../src/pool-node.js";
import type { BloscPool } from "../src/pool-node.js";
import { runOracle, sampleCases } from "./cblosc.js";
import type { OracleCase } from "./cblosc.js";
import { seedFrom } from "../../../tools/test-seed.js";

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const PKG = fileURLToPath(new URL("..", import.meta.url));
const SEED = seedFrom("BLOSC_POOL_SEED");

// Workers run the built JavaScript (Node cannot execute the .ts sources), so build first.
beforeAll(() => {
  execFileSync("pnpm", ["exec", "tsc", "-b"], { cwd: PKG, stdio: "pipe" });
});

const large: OracleCase[] = (["lz4", "blosclz", "zstd", "zlib", "snappy"] as const).flatMap((cname, i) =>
  ([0, 1, 2] as const).map((shuffle, k) => ({
    id: 0, seed: 100 + 3 * i + k, size: 150_000 + 40_000 * k, typesize: k === 2 ? 4 : 8, data: "walk_f8" as const,
    cname, shuffle, clevel: 5, blocksize: k === 1 ? 16_384 : 0, nthreads: 1,
  })),
);
const cases = [...sampleCases(40, SEED, 300_000), ...large].map((c, id) => ({ ...c, id }));
const { results } = runOracle(cases);
const chunks = results.map((r) => r.chunk);

// A chunk that passes every header check but whose first stream is corrupt.
function corruptLargeChunk(): Uint8Array {
  const r = results.find((x) => x.case.cname === "lz4" && x.data.length >= 100_000 && (x.chunk[2]! & 2) === 0)!;
  for (let at = 200; at < r.chunk.length; at += 97) {
    const bad = r.chunk.slice();
    bad[at] = bad[at]! ^ 0xff;
    bad[at + 1] = bad[at + 1]! ^ 0x5a;
    try {
      decompress(bad, { path: "col/data/__7.blp" });
    } catch (e) {
      if (e instanceof FormatError && e.code === "CORRUPT_STREAM") return bad;
    }
  }
  throw new Error("no corrupting mutation found");
}

describe("createBloscPool (Node worker threads)", () => {
  let pool: BloscPool;
  beforeAll(() => {
    pool = createBloscPool({ threads: 2 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it("has chunks large enough to go to the workers", () => {
    expect(results.filter((r) => r.data.length >= 64 * 1024).length).toBeGreaterThanOrEqual(large.length);
    expect(pool.threads).toBe(2);
  });

  it("decompressMany returns exactly what decompress returns, for every chunk", async () => {
    const many = await pool.decompressMany(chunks);
    expect(many.length).toBe(chunks.length);
    many.forEach((bytes, i) => {
      if (!sameBytes(bytes, results[i]!.data) || !sameBytes(bytes, decompress(chunks[i]!))) expect.fail(`chunk ${i} differs, case ${JSON.stringify(results[i]!.case)}`);
    });
  });

  it("decompress and decompressInto agree with the original bytes; inputs are not detached", async () => {
    const got = await Promise.all(chunks.map((c) => pool.decompress(c)));
    got.forEach((bytes, i) => {
      if (!sameBytes(bytes, results[i]!.data)) expect.fail(`decompress: chunk ${i} differs`);
    });
    for (const [i, c] of chunks.entries()) {
      const out = new Uint8Array(results[i]!.data.length + 3).fill(0xee);
      const n = await pool.decompressInto(c, out);
      expect(n).toBe(results[i]!.data.length);
      if (!sameBytes(out.subarray(0, n), results[i]!.data)) expect.fail(`decompressInto: chunk ${i} differs`);
      expect([...out.subarray(n)]).toEqual([0xee, 0xee, 0xee]);
    }
    expect(chunks.every((c, i) => c.byteLength === results[i]!.chunk.byteLength && c.byteLength > 0)).toBe(true);
  });

  it.each([["SharedArrayBuffer", true], ["ArrayBuffer", false]] as const)("decompressManyInto lays the chunks out back to back in out (%s)", async (_name, shared) => {
    const total = results.reduce((sum, r) => sum + r.data.length, 0);
    const memory = shared ? new SharedArrayBuffer(total + 5) : new ArrayBuffer(total + 5);
    const out = new Uint8Array(memory, 2, total + 3).fill(0xee);
    for (let round = 0; round < 3; round++) {
      const views = await pool.decompressManyInto(chunks, out);
      expect(views.length).toBe(chunks.length);
      let at = 0;
      views.forEach((view, i) => {
        expect(view.buffer).toBe(memory);
        expect(view.byteOffset).toBe(2 + at);
        if (!sameBytes(view, results[i]!.data)) expect.fail(`round ${round}: chunk ${i} differs`);
        at += results[i]!.data.length;
      });
      expect([...out.subarray(total)]).toEqual([0xee, 0xee, 0xee]);
    }
    await expect(pool.decompressManyInto(chunks, out.subarray(0, total - 1))).rejects.toBeInstanceOf(UsageError);
  });

  it("chunks read from shared memory at every offset modulo 8 decode the same, on both threads", async () => {
    // Chunks and outputs in shared memory at odd offsets decode right on both threads (the
    // placement itself, which only speed depends on, is pinned by the packedAt test below).
    let size = 0;
    for (const c of chunks) size += c.length + 8;
    const memory = new SharedArrayBuffer(size);
    let at = 0;
    const shared = chunks.map((c, i) => {
      at += (i * 3) % 8;
      const view = new Uint8Array(memory, at, c.length);
      view.set(c);
      at += c.length;
      return view;
    });
    const total = results.reduce((sum, r) => sum + r.data.length, 0);
    const out = new Uint8Array(new SharedArrayBuffer(total + 8), 5, total);
    for (let round = 0; round < 3; round++) {
      const views = await pool.decompressManyInto(shared, out);
      views.forEach((view, i) => {
        if (!sameBytes(view, results[i]!.data)) expect.fail(`round ${round}: chunk ${i} (at +${shared[i]!.byteOffset % 8}) differs`);
      });
    }
    const each = await Promise.all(shared.map((c) => pool.decompress(c)));
    each.forEach((bytes, i) => {
      if (!sameBytes(bytes, results[i]!.data)) expect.fail(`decompress of chunk ${i} differs`);
    });
  });

  it("packedAt stages each chunk at its own offset modulo 8, at or after the given offset", () => {
    const memory = new ArrayBuffer(64);
    for (let at = 0; at < 40; at++) {
      for (let offset = 0; offset < 16; offset++) {
        const placed = packedAt(at, new Uint8Array(memory, offset));
        expect(placed % 8).toBe(offset % 8);
        expect(placed - at).toBeGreaterThanOrEqual(0);
        expect(placed - at).toBeLessThan(8);
      }
    }
  });

  it("decompressManyInto reports a corrupt chunk among many as the same FormatError", async () => {
    const bad = corruptLargeChunk();
    const big = chunks.filter((c, i) => results[i]!.data.length >= 64 * 1024);
    for (const where of [0, Math.floor(big.length / 2), big.length]) {
      const list = [...big.slice(0, where), bad, ...big.slice(where)];
      const total = list.reduce((sum, c) => sum + new DataView(c.buffer, c.byteOffset).getUint32(4, true), 0);
      const out = new Uint8Array(new SharedArrayBuffer(total));
      await expect(pool.decompressManyInto(list, out, { path: "col/data/__7.blp" })).rejects.toMatchObject({
        name: "FormatError", code: "CORRUPT_STREAM", path: "col/data/__7.blp",
      });
    }
    expect(sameBytes((await pool.decompressManyInto([chunks[0]!], new Uint8Array(results[0]!.data.length)))[0]!, results[0]!.data)).toBe(true);
  });

  it("a worker's FormatError comes back as the same FormatError (code, path, field)", async () => {
    const bad = corruptLargeChunk();
    let direct: unknown;
    try {
      decompress(bad, { path: "col/data/__7.blp" });
    } catch (e) {
      direct = e;
    }
    const viaPool = await pool.decompress(bad, { path: "col/data/__7.blp" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(direct).toBeInstanceOf(FormatError);
    expect(viaPool).toBeInstanceOf(FormatError);
    const a = direct as BcolzError;
    const b = viaPool as BcolzError;
    expect({ code: b.code, path: b.path, field: b.field, reason: b.reason, message: b.message }).toEqual({
      code: a.code, path: a.path, field: a.field, reason: a.reason, message: a.message,
    });
    // the pool keeps working after a failed task
    expect(sameBytes(await pool.decompress(chunks[0]!), results[0]!.data)).toBe(true);
  });

  it("bad calls are UsageErrors, and header errors are the same FormatErrors as decompress throws", async () => {
    await expect(pool.decompress(new Uint8Array(5), { path: "p" })).rejects.toMatchObject({ name: "FormatError", code: "TRUNCATED", path: "p" });
    await expect(pool.decompressInto(chunks[0]!, new Uint8Array(0))).rejects.toBeInstanceOf(UsageError);
    expect(() => createBloscPool({ threads: 0 })).toThrow(UsageError);
  });

  it("compresses in the workers exactly as on the calling thread, for every codec (zstd included)", async () => {
    await api.initCompression();
    const data = results.find((r) => r.data.length >= 100_000)!.data;
    for (const cname of ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"] as const) {
      const options = { typesize: 8, clevel: 5, shuffle: 1 as const, cname };
      const viaPool = await pool.compress!(data, options);
      expect(sameBytes(viaPool, api.compress(data, options)), cname).toBe(true);
      expect(sameBytes(decompress(viaPool), data), cname).toBe(true);
    }
  });

  it("compressMany gives, in order, the very chunks compress gives here, for many chunks at once", async () => {
    await api.initCompression();
    const inputs = results.filter((r) => r.data.length >= 100_000).map((r) => r.data);
    expect(inputs.length).toBeGreaterThan(4);
    for (const options of [{ typesize: 8, clevel: 5, shuffle: 1 as const, cname: "lz4" as const }, { typesize: 4, clevel: 9, shuffle: 2 as const, cname: "zstd" as const }]) {
      const viaPool = await pool.compressMany(inputs, options);
      expect(viaPool).toHaveLength(inputs.length);
      inputs.forEach((data, i) => {
        if (!sameBytes(viaPool[i]!, api.compress(data, options))) expect.fail(`chunk ${i} differs (${options.cname})`);
      });
    }
    await expect(pool.compressMany(inputs, { typesize: 8, clevel: 11, shuffle: 1, cname: "lz4" })).rejects.toMatchObject({ name: "UsageError", code: "INVALID_ARGUMENT", field: "cparams.clevel" });
  });

  it("compressLent gives the chunk compress gives, behind the asked headroom, on a worker and here", async () => {
    await api.initCompression();
    const inputs = [...results.filter((r) => r.data.length >= 100_000).map((r) => r.data), results.find((r) => r.data.length < 64 * 1024 && r.data.length > 0)!.data];
    for (const options of [{ typesize: 8, clevel: 5, shuffle: 1 as const, cname: "lz4" as const }, { typesize: 4, clevel: 9, shuffle: 2 as const, cname: "zstd" as const }]) {
      for (const headroom of [0, 16, 29]) {
        const lent = await Promise.all(inputs.map((data) => pool.compressLent(data, options, headroom)));
        lent.forEach(({ chunk }, i) => {
          if (!sameBytes(chunk, api.compress(inputs[i]!, options))) expect.fail(`chunk ${i} differs (${options.cname}, headroom ${headroom})`);
          expect(chunk.byteOffset).toBe(headroom);
        });
        // Every chunk has memory of its own while lent.
        expect(new Set(lent.map(({ chunk }) => chunk.buffer)).size).toBe(lent.length);
        for (const l of lent) l.release();
      }
    }
  });

  it("compressLent reuses a released buffer once, however often it is released", async () => {
    const data = results.find((r) => r.data.length >= 100_000)!.data;
    const options = { typesize: 8, clevel: 5, shuffle: 1 as const, cname: "lz4" as const };
    const p = createBloscPool({ threads: 1 });
    try {
      const first = await p.compressLent(data, options, 16);
      const kept = first.chunk.buffer;
      first.release();
      first.release();
      // Taken again by the next call, it travels to the worker: detached here.
      const [a, b] = await Promise.all([p.compressLent(data, options, 16), p.compressLent(data, options, 16)]);
      expect(kept.byteLength).toBe(0);
      expect(a.chunk.buffer).not.toBe(b.chunk.buffer);
      expect(sameBytes(a.chunk, api.compress(data, options))).toBe(true);
      expect(sameBytes(b.chunk, api.compress(data, options))).toBe(true);
    } finally {
      await p.close();
    }
  });

  it("compressLent refuses bad arguments and reports the worker's option errors as compress does", async () => {
    const data = results.find((r) => r.data.length >= 100_000)!.data;
    await expect(pool.compressLent(data, { typesize: 8, clevel: 11, shuffle: 1, cname: "lz4" }, 16)).rejects.toMatchObject({ name: "UsageError", code: "INVALID_ARGUMENT", field: "cparams.clevel" });
    await expect(pool.compressLent(data, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, -1)).rejects.toMatchObject({ name: "UsageError", field: "headroom" });
    await expect(pool.compressLent(data, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, 1.5)).rejects.toMatchObject({ name: "UsageError", field: "headroom" });
    await expect(pool.compressLent([1, 2] as unknown as Uint8Array, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, 0)).rejects.toMatchObject({ name: "UsageError", field: "input" });
    // Rejections, never throws: a headroom beyond 65536 (even one no memory could hold) and options that are not an object.
    for (const headroom of [65537, 2 ** 40]) {
      await expect(pool.compressLent(data, { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" }, headroom)).rejects.toMatchObject({ name: "UsageError", field: "headroom" });
    }
    for (const small of [false, true]) {
      const input = small ? data.subarray(0, 1000) : data;
      const nullOptions = (() => {
        try {
          return pool.compressLent(input, null as unknown as api.CompressOptions, 0);
        } catch (error) {
          return error;
        }
      })();
      expect(nullOptions).toBeInstanceOf(Promise);
      await expect(nullOptions).rejects.toMatchObject({ name: "UsageError", code: "INVALID_ARGUMENT", field: "cparams" });
    }
    // compressMany too: a rejection, not a throw.
    const many = (() => {
      try {
        return pool.compressMany([data], null as unknown as api.CompressOptions);
      } catch (error) {
        return error;
      }
    })();
    expect(many).toBeInstanceOf(Promise);
    await expect(many).rejects.toBeDefined();
  });

  it("compressLent after close() compresses on the calling thread, the same bytes", async () => {
    const data = results.find((r) => r.data.length >= 100_000)!.data;
    const options = { typesize: 8, clevel: 5, shuffle: 1 as const, cname: "lz4" as const };
    const p = createBloscPool({ threads: 1 });
    await p.close();
    const lent = await p.compressLent(data, options, 16);
    expect(sameBytes(lent.chunk, api.compress(data, options))).toBe(true);
    expect(lent.chunk.byteOffset).toBe(16);
    lent.release();
  });

  it("after close(), calls still work, on the calling thread", async () => {
    const p = createBloscPool({ threads: 1 });
    expect(sameBytes(await p.decompress(chunks[0]!), results[0]!.data)).toBe(true);
    await p.close();
    const big = chunks.find((c, i) => results[i]!.data.length >= 64 * 1024)!;
    expect(sameBytes(await p.decompress(big), decompress(big))).toBe(true);
  });
});

describe("pool lifetime", () => {
  const script = (closeIt: boolean): string => `
    import { createBloscPool } from ${JSON.stringify(new URL("../dist/pool-node.js", import.meta.url).href)};
    const pool = createBloscPool({ threads: 2 });
    const { readFileSync } = await import("node:fs");
    const chunk = new Uint8Array(readFileSync(process.argv[2]));
    const out = await Promise.all([pool.decompress(chunk), pool.decompress(chunk), pool.decompress(chunk)]);
    console.log(out.map((o) => o.length).join(","));
    ${closeIt ? "await pool.close();" : ""}
  `;
  const big = results.find((r) => r.data.length >= 64 * 1024)!;

  it.each([true, false])("the process exits once the work is done (close() called: %s)", (closeIt) => {
    const dir = mkdtempSync(join(tmpdir(), "blosc-pool-"));
    writeFileSync(join(dir, "chunk.bin"), big.chunk);
    writeFileSync(join(dir, "main.mjs"), script(closeIt));
    const r = spawnSync(process.execPath, [join(dir, "main.mjs"), join(dir, "chunk.bin")], {
      encoding: "utf8", timeout: 20_000,
    });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(Array(3).fill(big.data.length).join(","));
  });
});
