/**
 * Where the socket transport puts an answer's body (`http-socket-node.ts`): nowhere yet while
 * nobody asked for it (reading pauses), into the value `body` resolves to, or, for a request
 * that offered a buffer, into that buffer before `body` is asked for. @internal
 *
 * @module
 */
import { joinParts } from "./remote.js";

/** Where an answer's body goes: not asked for yet (kept), into a value, or dropped. */
export interface BodySink {
  /**
   * Takes bytes of the body: a view of the connection's read buffer, valid during the call only,
   * or of the value itself when they were read into the place {@link BodySink.place} gave.
   */
  take(bytes: Uint8Array): void;
  /** The body ended. */
  end(): void;
  /** The exchange failed. */
  fail(error: unknown): void;
  /**
   * Where the body's next `length` bytes go, when they can be read there straight from the
   * socket (a view of the value, so `take` then has nothing to copy); `undefined` otherwise.
   */
  place?(length: number): Uint8Array | undefined;
}

/**
 * A copy of `bytes` in an array of its own. (`slice` would not do: on a `Buffer`, such as a view
 * of the read buffer, it makes a view, not a copy.)
 */
function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/**
 * The sink of an answer whose body is not asked for yet. No body bytes reach it (reading pauses
 * until `body` or `discard`); it keeps the end of the body (a body framed by the connection's end)
 * or the failure, for the sink that takes over.
 */
export interface UnclaimedBody extends BodySink {
  failure: unknown;
  /** Hands the end or the failure, if seen, to the sink that takes over. */
  replay(sink: BodySink): void;
}

/**
 * A new {@link UnclaimedBody}.
 *
 * @example
 * ```ts
 * exchange.sink = unclaimedBody();
 * ```
 */
export function unclaimedBody(): UnclaimedBody {
  let ended = false;
  const body: UnclaimedBody = {
    failure: undefined,
    take() {
      // Thrown inside the read, which fails the exchange and closes the connection.
      throw new Error("internal: body bytes before the body was asked for");
    },
    end() {
      ended = true;
    },
    fail(error) {
      body.failure = error;
    },
    replay(sink) {
      if (body.failure !== undefined) sink.fail(body.failure);
      else if (ended) sink.end();
    },
  };
  return body;
}

/**
 * The sink of `body`: bytes go into `target` (the caller's buffer or one allocated for the
 * announced length), else are collected and copied once at the end; past `cap` it fails.
 *
 * @example
 * ```ts
 * exchange.sink = collectedBody(target, cap, tooLong, resolve, reject);
 * ```
 */
export function collectedBody(
  target: Uint8Array | undefined, cap: number, tooLong: (received: number) => Error,
  resolve: (bytes: Uint8Array) => void, reject: (error: unknown) => void,
): BodySink {
  const parts: Uint8Array[] = [];
  let total = 0;
  let over = false;
  return {
    take(bytes) {
      if (over) return;
      const next = total + bytes.length;
      if (next > cap) {
        over = true;
        let error: unknown;
        try {
          error = tooLong(next);
        } catch (thrown) {
          error = thrown;
        }
        reject(error);
        return;
      }
      if (target === undefined) parts.push(copyOf(bytes));
      // Bytes read straight into their place (see `place`) are there already.
      else if (bytes.buffer !== target.buffer || bytes.byteOffset !== target.byteOffset + total) target.set(bytes, total);
      total = next;
    },
    end() {
      if (over) return;
      // A target is only given for an announced length, and length framing ends the body after
      // exactly that many bytes.
      if (target !== undefined) {
        resolve(target);
        return;
      }
      resolve(joinParts(parts, total));
    },
    fail(error) {
      if (over) return;
      over = true;
      reject(error);
    },
    place(length) {
      return over || target === undefined ? undefined : target.subarray(total, total + length);
    },
  };
}

/**
 * The sink of a body read before `body` was asked for, straight into the buffer its request
 * offered (`HttpRequest.into`): it keeps the body's outcome until {@link EarlyBody.attach}.
 */
export interface EarlyBody extends BodySink {
  /** Hands the body, or the failure, to `resolve` or `reject`: at once if it came, else when it comes. */
  attach(resolve: (bytes: Uint8Array) => void, reject: (error: unknown) => void): void;
}

/**
 * A new {@link EarlyBody} whose bytes go into `target`, exactly as long as the announced body.
 *
 * @example
 * ```ts
 * exchange.sink = earlyBody(request.into.subarray(0, announced));
 * ```
 */
export function earlyBody(target: Uint8Array): EarlyBody {
  let outcome: { bytes: Uint8Array } | { error: unknown } | undefined;
  let waiting: { resolve: (bytes: Uint8Array) => void; reject: (error: unknown) => void } | undefined;
  const settle = (): void => {
    if (outcome === undefined || waiting === undefined) return;
    const { resolve, reject } = waiting;
    waiting = undefined;
    if ("bytes" in outcome) resolve(outcome.bytes);
    else reject(outcome.error);
  };
  // Length framing ends the body after exactly target.length bytes, so the cap is never passed.
  const value = collectedBody(target, target.length, (received) => new Error(`internal: ${received} body bytes, ${target.length} announced`), (bytes) => {
    outcome ??= { bytes };
    settle();
  }, (error) => {
    outcome ??= { error };
    settle();
  });
  return Object.assign(value, {
    attach(resolve: (bytes: Uint8Array) => void, reject: (error: unknown) => void): void {
      waiting = { resolve, reject };
      settle();
    },
  });
}
