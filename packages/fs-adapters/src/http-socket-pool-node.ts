/**
 * The pool of {@link nodeHttpTransport}'s `http:` connections (`http-socket-node.ts`): at most
 * `maxSockets` per origin, idle ones kept for the next request, requests beyond the limit queued
 * until a connection comes free or closes.
 *
 * @module
 */
import type { HttpAnswer, HttpRequest } from "./http.js";
import { requestHead } from "./http1-message-node.js";
import { Connection } from "./http-socket-node.js";

/**
 * The `http:` connections of one {@link nodeHttpTransport}: at most `maxSockets` per origin,
 * idle ones kept for the next request, requests beyond the limit queued. @internal
 *
 * @example
 * ```ts
 * const pool = new SocketPool(16);
 * const answer = await pool.send(request);
 * ```
 */
export class SocketPool {
  readonly #maxSockets: number;
  readonly #idle = new Map<string, Connection[]>();
  readonly #open = new Map<string, Set<Connection>>();
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(maxSockets: number) {
    this.#maxSockets = maxSockets;
  }

  /** Sends an `http:` request; resolves with its answer once its head is in. */
  send(request: HttpRequest, url: URL): Promise<HttpAnswer> {
    const { signal } = request;
    if (signal.aborted) return Promise.reject(signal.reason);
    let head: string;
    try {
      head = requestHead(request, url);
    } catch (error) {
      return Promise.reject(error);
    }
    const port = url.port === "" ? 80 : Number(url.port);
    const origin = `${url.hostname}:${port}`;
    return new Promise<HttpAnswer>((resolve, reject) => {
      // Tried at once, and again each time a connection of the origin comes free or closes.
      const attempt = (): void => {
        let open = this.#open.get(origin);
        if (open === undefined) this.#open.set(origin, (open = new Set()));
        const idle = this.#idle.get(origin) ?? [];
        let connection: Connection | undefined;
        // An idle connection the server has closed meanwhile is dropped, not used.
        while (connection === undefined && idle.length > 0) {
          const candidate = idle.pop()!;
          if (candidate.usable) connection = candidate;
          else candidate.destroy();
        }
        if (connection === undefined && open.size < this.#maxSockets) connection = new Connection(this, origin, url.hostname.replace(/^\[|\]$/g, ""), port);
        if (connection !== undefined) {
          open.add(connection);
          connection.send(request, head, resolve, reject);
          return;
        }
        // Every connection is busy: the request waits for one to come free (or to close).
        let queue = this.#waiting.get(origin);
        if (queue === undefined) this.#waiting.set(origin, (queue = []));
        const waiter = (): void => {
          signal.removeEventListener("abort", onAbort);
          attempt();
        };
        const onAbort = (): void => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
      };
      attempt();
    });
  }

  /** A connection whose answer is complete takes the next queued request or waits idle. */
  release(connection: Connection): void {
    const origin = connection.origin;
    if (connection.closed) return;
    let idle = this.#idle.get(origin);
    if (idle === undefined) this.#idle.set(origin, (idle = []));
    idle.push(connection);
    connection.idle();
    this.#wake(origin);
  }

  /** A closed connection leaves the pool, making room for a queued request. */
  forget(connection: Connection): void {
    const origin = connection.origin;
    const idle = this.#idle.get(origin);
    const at = idle?.indexOf(connection) ?? -1;
    if (at >= 0) idle!.splice(at, 1);
    if (this.#open.get(origin)?.delete(connection) === true) this.#wake(origin);
  }

  /** Closes every connection. */
  close(): void {
    for (const open of this.#open.values()) for (const connection of open) connection.destroy();
  }

  /** The oldest waiting request of `origin` tries again (a connection came free or closed). */
  #wake(origin: string): void {
    const next = this.#waiting.get(origin)?.shift();
    if (next !== undefined) next();
  }
}
