// The sinks the socket transport reads bodies into (`http1-body-sinks-node.ts`) and the abort of
// a failed attempt (`withRetries`), on their own: a body read straight into its place is not
// copied again, a body read early keeps its outcome for whoever asks later, and an attempt that
// failed stops whatever it still has under way (a body still coming into a lent buffer).
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { RetryableFailure, resolveRetryOptions, withRetries } from "@fmt/fs-adapters/remote";
import { RemoteStats } from "@fmt/fs-adapters/remote";
import { collectedBody, earlyBody } from "../src/http1-body-sinks-node.js";
import { PREALLOCATE_LIMIT, bodyTarget } from "../src/http-socket-node.js";

const tooLong = (n: number): Error => new Error(`too long: ${n}`);

describe("collectedBody", () => {
  it("gives places that follow what came, and copies only bytes that are not already in theirs", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.array(fc.tuple(fc.integer({ min: 1, max: 700 }), fc.boolean()), { maxLength: 12 }), (length, reads) => {
        const value = new Uint8Array(length);
        const set = vi.spyOn(value, "set");
        let result: Uint8Array | undefined;
        const sink = collectedBody(value, length, tooLong, (bytes) => (result = bytes), (error) => {
          throw error;
        });
        const expected = new Uint8Array(length).map((_, i) => (i * 7 + 3) % 256);
        let at = 0;
        let copies = 0;
        for (const [size, inPlace] of reads) {
          const n = Math.min(size, length - at);
          if (n === 0) break;
          const place = sink.place!(n)!;
          expect([place.buffer === value.buffer, place.byteOffset, place.length]).toEqual([true, at, n]);
          if (inPlace) {
            // What a read straight into the place leaves there.
            place.set(expected.subarray(at, at + n));
            sink.take(place);
          } else {
            sink.take(expected.slice(at, at + n));
            copies += 1;
          }
          at += n;
        }
        if (at < length) {
          sink.take(expected.slice(at));
          copies += 1;
        }
        sink.end();
        expect(result).toBe(value);
        expect(value).toEqual(expected);
        expect(set).toHaveBeenCalledTimes(copies);
      }),
      { numRuns: 100 },
    );
  });

  it("has no place for a body collected in parts, nor after it failed", () => {
    const parts = collectedBody(undefined, 100, tooLong, () => undefined, () => undefined);
    expect(parts.place!(10)).toBeUndefined();
    const failed = collectedBody(new Uint8Array(10), 10, tooLong, () => undefined, () => undefined);
    failed.fail(new Error("gone"));
    expect(failed.place!(5)).toBeUndefined();
  });
});

describe("bodyTarget", () => {
  it("is the caller's buffer when the body fits it and the cap, else new memory within PREALLOCATE_LIMIT, else nothing", () => {
    // Views of one buffer stand for the callers' buffers (no allocation per run).
    const lent = new Uint8Array(PREALLOCATE_LIMIT + 2);
    const sizes = fc.oneof(fc.integer({ min: 0, max: 4096 }), fc.integer({ min: PREALLOCATE_LIMIT - 2, max: PREALLOCATE_LIMIT + 2 }));
    fc.assert(
      fc.property(fc.option(sizes, { nil: undefined }), sizes, fc.option(sizes, { nil: undefined }), (announced, cap, intoLength) => {
        const into = intoLength === undefined ? undefined : lent.subarray(0, intoLength);
        const target = bodyTarget(announced, cap, into);
        if (announced === undefined || announced > cap) {
          expect(target).toBeUndefined();
        } else if (into !== undefined && announced <= into.length) {
          expect([target?.buffer === lent.buffer, target?.byteOffset, target?.length]).toEqual([true, 0, announced]);
        } else if (announced <= PREALLOCATE_LIMIT) {
          expect([target?.buffer === lent.buffer, target?.length]).toEqual([false, announced]);
        } else {
          expect(target).toBeUndefined();
        }
      }),
      { seed: 20261202, numRuns: 200 },
    );
  });
});

describe("earlyBody", () => {
  it("hands its body to whoever attaches, before or after it came", () => {
    for (const attachFirst of [true, false]) {
      const target = new Uint8Array(4);
      const sink = earlyBody(target);
      const resolve = vi.fn();
      const reject = vi.fn();
      if (attachFirst) sink.attach(resolve, reject);
      sink.take(Uint8Array.of(1, 2));
      sink.take(Uint8Array.of(3, 4));
      sink.end();
      // A failure after the end (the connection closing) changes nothing.
      sink.fail(new Error("closed afterwards"));
      if (!attachFirst) sink.attach(resolve, reject);
      expect(resolve).toHaveBeenCalledTimes(1);
      expect(resolve).toHaveBeenCalledWith(target);
      expect(reject).not.toHaveBeenCalled();
      expect([...target]).toEqual([1, 2, 3, 4]);
    }
  });

  it("hands a failure to whoever attaches, before or after it came", () => {
    for (const attachFirst of [true, false]) {
      const sink = earlyBody(new Uint8Array(4));
      const resolve = vi.fn();
      const reject = vi.fn();
      if (attachFirst) sink.attach(resolve, reject);
      sink.take(Uint8Array.of(1));
      const failure = new Error("connection reset");
      sink.fail(failure);
      sink.end();
      if (!attachFirst) sink.attach(resolve, reject);
      expect(reject).toHaveBeenCalledTimes(1);
      expect(reject).toHaveBeenCalledWith(failure);
      expect(resolve).not.toHaveBeenCalled();
    }
  });
});

describe("withRetries", () => {
  it("aborts the signal of an attempt that failed, and leaves that of the one that succeeded", async () => {
    const signals: AbortSignal[] = [];
    const settings = resolveRetryOptions({ maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 });
    const value = await withRetries(settings, new RemoteStats(), async (signal) => {
      signals.push(signal);
      if (signals.length < 3) throw new RetryableFailure(`attempt ${signals.length}`);
      return "done";
    }, () => false);
    expect(value).toBe("done");
    expect(signals.map((s) => s.aborted)).toEqual([true, true, false]);
    expect((signals[0]!.reason as Error).message).toBe("attempt 1");
  });

  it("aborts the signal of an attempt whose error ends the retries", async () => {
    let seen: AbortSignal | undefined;
    const error = new Error("not retried");
    await expect(withRetries(resolveRetryOptions({ maxAttempts: 3 }), new RemoteStats(), async (signal) => {
      seen = signal;
      throw error;
    }, () => false)).rejects.toBe(error);
    expect(seen!.aborted).toBe(true);
  });
});
