// The Web Worker pool (@fmt/blosc/pool-web) through its message protocol: each "worker" here is
// an in-process stand-in that clones every message with its transfer list (as postMessage does,
// detaching what is transferred) and answers with the worker script's own handler, so the pool's
// batching, transfers, result order and error revival are exercised without a browser.
import { describe, expect, it } from "vitest";
import { FormatError, UsageError } from "@fmt/errors";
import { compress, decompress, initCompression } from "../src/index.js";
import type { CompressOptions } from "../src/index.js";
import { answerPoolMessage } from "../src/pool-serve.js";
import type { PoolDecodeRequest, PoolRequest } from "../src/pool-protocol.js";
import { createWebBloscPool } from "../src/pool-web.js";
import type { WorkerLike } from "../src/pool-web.js";

type Listener = (event: MessageEvent | ErrorEvent | Event) => void;

class FakeWorker implements WorkerLike {
  readonly listeners = new Map<string, Listener[]>();
  readonly requests: (PoolRequest | PoolDecodeRequest)[] = [];
  terminated = false;
  /** When set, the next message makes the worker fail instead of answering. */
  failNext = false;

  postMessage(message: unknown, transfer: Transferable[]): void {
    const received = structuredClone(message, { transfer: transfer }) as PoolRequest | PoolDecodeRequest;
    this.requests.push(received);
    setTimeout(() => {
      if (this.terminated) return;
      if (this.failNext) {
        this.failNext = false;
        this.emit("error", Object.assign(new Event("error"), { message: "worker crashed" }));
        return;
      }
      const [reply, replyTransfer] = answerPoolMessage(received);
      this.emit("message", new MessageEvent("message", { data: structuredClone(reply, { transfer: replyTransfer }) }));
    }, 0);
  }

  addEventListener(type: "message" | "error", listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  terminate(): void {
    this.terminated = true;
  }

  emit(type: string, event: Event): void {
    for (const l of this.listeners.get(type) ?? []) l(event);
  }
}

// toEqual walks typed arrays element by element through its generic matcher: far too slow here.
function same(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function walk(n: number, seed: number): Uint8Array {
  const values = new Float64Array(n);
  let x = 0;
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    x += s / 2 ** 32 - 0.5;
    values[i] = x;
  }
  return new Uint8Array(values.buffer);
}

function poolWith(threads: number, minWorkerBytes?: number) {
  const workers: FakeWorker[] = [];
  const pool = createWebBloscPool({
    threads,
    ...(minWorkerBytes === undefined ? {} : { minWorkerBytes }),
    createWorker: () => {
      const w = new FakeWorker();
      workers.push(w);
      return w;
    },
  });
  return { pool, workers };
}

const LZ4: CompressOptions = { typesize: 8, clevel: 5, shuffle: 1, cname: "lz4" };
const inputs = Array.from({ length: 12 }, (_, i) => walk(20_000 + 1000 * i, i + 1));

describe("Web Worker pool", () => {
  it("compressMany gives the chunks compress gives here, in order, spread over the workers in batches", async () => {
    const { pool, workers } = poolWith(2);
    const chunks = await pool.compressMany(inputs, LZ4);
    inputs.forEach((data, i) => expect(same(chunks[i], compress(data, LZ4)), `chunk ${i}`).toBe(true));
    // Both workers got work, and no message carried more than one batch's worth of tasks.
    expect(workers.every((w) => w.requests.length > 0)).toBe(true);
    const tasks = workers.flatMap((w) => w.requests).map((r) => (r.kind === "decodeRun" ? 0 : r.tasks.length));
    expect(tasks.reduce((a, b) => a + b, 0)).toBe(inputs.length);
    expect(Math.max(...tasks)).toBeLessThanOrEqual(8);
    // The caller's arrays are copied, never transferred away.
    expect(inputs.every((d) => d.byteLength > 0)).toBe(true);
    await pool.close();
  });

  it("compressLent gives the chunks compress gives, behind the headroom, from the workers (and here below minWorkerBytes)", async () => {
    const { pool, workers } = poolWith(2, 200_000);
    const lent = await Promise.all(inputs.map((data) => pool.compressLent(data, LZ4, 16)));
    inputs.forEach((data, i) => {
      expect(same(lent[i]!.chunk, compress(data, LZ4)), `chunk ${i}`).toBe(true);
      expect(lent[i]!.chunk.byteOffset).toBe(16);
    });
    // Inputs of 200,000 bytes and more went to the workers as compressInto tasks, the others not.
    const tasks = workers.flatMap((w) => w.requests).flatMap((r) => (r.kind === "decodeRun" ? [] : r.tasks));
    expect(tasks.map((t) => t.op)).toEqual(inputs.filter((d) => d.length >= 200_000).map(() => "compressInto"));
    expect(tasks.length).toBeGreaterThan(0);
    expect(tasks.length).toBeLessThan(inputs.length);
    expect(inputs.every((d) => d.byteLength > 0)).toBe(true);
    for (const l of lent) l.release();
    await expect(pool.compressLent(inputs[0]!, LZ4, -3)).rejects.toMatchObject({ name: "UsageError", field: "headroom" });
    await expect(pool.compressLent(inputs[11]!, { ...LZ4, clevel: 11 }, 0)).rejects.toMatchObject({ name: "UsageError", field: "cparams.clevel" });
    await expect(pool.compressLent(inputs[11]!, LZ4, 2 ** 40)).rejects.toMatchObject({ name: "UsageError", field: "headroom" });
    await expect(pool.compressLent(inputs[11]!, null as unknown as CompressOptions, 0)).rejects.toMatchObject({ name: "UsageError", field: "cparams" });
    const requests = workers.reduce((n, w) => n + w.requests.length, 0);
    await pool.close();
    // After close(): on the calling thread, the same bytes, nothing sent.
    const after = await pool.compressLent(inputs[11]!, LZ4, 16);
    expect(same(after.chunk, compress(inputs[11]!, LZ4))).toBe(true);
    expect(workers.reduce((n, w) => n + w.requests.length, 0)).toBe(requests);
  });

  it("zstd works in the worker once the encoder is loaded, byte-identical too", async () => {
    await initCompression();
    const { pool } = poolWith(2);
    const options: CompressOptions = { typesize: 8, clevel: 5, shuffle: 2, cname: "zstd" };
    const chunks = await pool.compressMany(inputs.slice(0, 3), options);
    chunks.forEach((c, i) => expect(same(c, compress(inputs[i]!, options)), `chunk ${i}`).toBe(true));
    await pool.close();
  });

  it("decompressManyInto lays chunks out back to back and equals decompress", async () => {
    const { pool, workers } = poolWith(2);
    const chunks = inputs.map((d) => compress(d, LZ4));
    const total = inputs.reduce((n, d) => n + d.length, 0);
    const out = new Uint8Array(total + 5);
    const views = await pool.decompressManyInto(chunks, out);
    let at = 0;
    views.forEach((v, i) => {
      expect(v.byteOffset - out.byteOffset).toBe(at);
      expect(same(v, decompress(chunks[i]!))).toBe(true);
      at += v.length;
    });
    expect(workers.flatMap((w) => w.requests).length).toBeGreaterThan(0);
    await expect(pool.decompressManyInto(chunks, new Uint8Array(total - 1))).rejects.toBeInstanceOf(UsageError);
    await pool.close();
  });

  it("a worker's FormatError comes back as the same FormatError (code, path, field)", async () => {
    const { pool } = poolWith(1);
    const chunk = compress(inputs[0]!, LZ4);
    const bad = chunk.slice();
    for (let i = 16 + 4 * 4; i < bad.length; i += 13) bad[i] = (bad[i]! ^ 0x5a) & 0xff;
    let direct: unknown;
    try {
      decompress(bad, { path: "col/data/__7.blp" });
    } catch (error) {
      direct = error;
    }
    expect(direct).toBeInstanceOf(FormatError);
    const viaPool = await pool.decompress(bad, { path: "col/data/__7.blp" }).then(() => undefined, (error: unknown) => error);
    expect(viaPool).toBeInstanceOf(FormatError);
    expect(viaPool).toMatchObject({ code: (direct as FormatError).code, path: "col/data/__7.blp", field: (direct as FormatError).field });
    const badOptions = await pool.compressMany([inputs[0]!], { ...LZ4, clevel: 12 }).then(() => undefined, (error: unknown) => error);
    expect(badOptions).toMatchObject({ name: "UsageError", code: "INVALID_ARGUMENT", field: "cparams.clevel" });
    await pool.close();
  });

  it("small inputs stay on the calling thread", async () => {
    const { pool, workers } = poolWith(1, 1 << 30);
    const [chunk] = await pool.compressMany([inputs[0]!], LZ4);
    expect(same(chunk, compress(inputs[0]!, LZ4))).toBe(true);
    expect(workers[0]!.requests).toHaveLength(0);
    await pool.close();
  });

  it("a failing worker rejects its tasks, the others carry on; with none left, calls reject", async () => {
    const { pool, workers } = poolWith(2);
    workers[0]!.failNext = true;
    const outcome = await Promise.allSettled(inputs.map((d) => pool.compress(d, LZ4)));
    const failed = outcome.filter((o) => o.status === "rejected");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(inputs.length);
    for (const f of failed) expect(f.reason).toMatchObject({ name: "UsageError", field: "pool.worker" });
    expect(workers[0]!.terminated).toBe(true);
    // The surviving worker still answers.
    expect(same(await pool.compress(inputs[1]!, LZ4), compress(inputs[1]!, LZ4))).toBe(true);
    workers[1]!.failNext = true;
    await expect(pool.compress(inputs[2]!, LZ4)).rejects.toMatchObject({ field: "pool.worker" });
    await expect(pool.compress(inputs[3]!, LZ4)).rejects.toMatchObject({ field: "pool.worker" });
    await pool.close();
  });

  it("close() rejects queued work and terminates the workers; bad options are UsageErrors", async () => {
    const { pool, workers } = poolWith(1);
    const pending = pool.compressMany(inputs, LZ4);
    await pool.close();
    await expect(pending).rejects.toMatchObject({ name: "UsageError", field: "pool" });
    expect(workers.every((w) => w.terminated)).toBe(true);
    expect(() => createWebBloscPool({ threads: 0, createWorker: () => new FakeWorker() })).toThrow(UsageError);
    expect(() => createWebBloscPool({ minWorkerBytes: -1, createWorker: () => new FakeWorker() })).toThrow(UsageError);
  });
});
