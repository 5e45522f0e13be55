/**
 * HTTP/1.1 over `node:net` sockets for {@link nodeHttpTransport}'s `http:` requests (their pool is
 * `http-socket-pool-node.ts`): each connection reads into a small buffer of its own, reused
 * (`onread`), and a body framed by its length is read from the socket straight into its value
 * (the buffer the request offers when the body fits there, else one of the announced length up to
 * {@link PREALLOCATE_LIMIT}; a longer body is collected), so a read of many chunk files
 * allocates no socket buffers, copies little and runs no stream machinery. On loopback, a
 * prototype fetched the 153 chunk files (60 MB) of the store benchmark's carray in 25–58 ms this
 * way, where `node:http` took 70–110 ms and left four full garbage collections per read behind it
 * (tools/bench/README.md).
 *
 * What it speaks: requests without a body (`GET`, `HEAD`); answers framed by `Content-Length`, by
 * `Transfer-Encoding: chunked`, or by the end of the connection; interim 1xx answers skipped.
 * Anything else a server sends (a malformed status line or header, conflicting lengths, another
 * transfer coding, bytes after an answer) fails the exchange with an `HPE_*` code, as Node's own
 * parser does, and closes the connection; the store retries those as connection errors.
 *
 * @module
 */
import { connect } from "node:net";
import type { Socket } from "node:net";
import type { HttpAnswer, HttpRequest } from "./http.js";
import { collectedBody, earlyBody, unclaimedBody } from "./http1-body-sinks-node.js";
import type { BodySink, EarlyBody, UnclaimedBody } from "./http1-body-sinks-node.js";
import { CHUNK_LINE_LIMIT, HEAD_END, HEAD_LIMIT, INTERIM_LIMIT, TRAILER_LIMIT, framingOf, parseError, parseHead, prematureClose } from "./http1-message-node.js";
import type { Framing, Head } from "./http1-message-node.js";
import type { SocketPool } from "./http-socket-pool-node.js";

/**
 * An idle kept-alive connection is closed after this long: a little under the 5 s after which
 * Node's own HTTP server (and many others) closes it, so that a request is seldom sent on a
 * connection the server is closing at that moment (that request would fail and be retried).
 */
export const IDLE_SOCKET_MS = 4000;

/**
 * A body left unread that announces at most this many bytes is read to its end so the connection
 * can serve the next request; a longer one, or one of unknown length, closes the connection.
 */
export const DRAIN_LIMIT = 64 * 1024;

/**
 * Most bytes allocated for a body on the strength of its `Content-Length` alone, before they
 * arrive: 16 requests in flight may then hold at most 256 MiB that a server announced but never
 * sent. A longer body goes into the caller's buffer when it fits there, else is collected as
 * it comes (chunk files are far smaller). Bodies are read early (before `body` is asked for)
 * only within this limit, so that no more is read for a body the caller may still discard.
 */
export const PREALLOCATE_LIMIT = 16 * 1024 * 1024;

/**
 * Where a body of `announced` bytes (its `Content-Length`) is read when it is asked for, by both
 * ways {@link nodeHttpTransport} sends: the caller's buffer when the body fits there (nothing is
 * allocated), else one of the announced length within {@link PREALLOCATE_LIMIT}; `undefined`
 * when the body is to be collected as it comes (no length, past the cap, or past the limit
 * without a buffer that holds it). @internal
 *
 * @example
 * ```ts
 * bodyTarget(1000, 1 << 20, new Uint8Array(4096)); // a view of the buffer's first 1000 bytes
 * ```
 */
export function bodyTarget(announced: number | undefined, cap: number, into: Uint8Array | undefined): Uint8Array | undefined {
  if (announced === undefined || announced > cap) return undefined;
  if (into !== undefined && announced <= into.length) return into.subarray(0, announced);
  return announced <= PREALLOCATE_LIMIT ? new Uint8Array(announced) : undefined;
}

/**
 * Bytes a connection reads at once into its own buffer: heads, and bodies without a place of
 * their own (a body past {@link PREALLOCATE_LIMIT} that the caller's buffer does not hold). A
 * body with one (the caller's buffer, or one allocated for its announced length) is read
 * straight into it, as much at a time as the socket has.
 */
const READ_BYTES = 16 * 1024;

/**
 * The last bytes of a body read straight into its value are read into the connection's own
 * buffer instead, so that whatever the server sends after the body comes in the same read and
 * retires the connection (bytes after an answer), as when the whole body comes that way.
 */
const BODY_TAIL = 1024;

/** One exchange on a connection: its request, its answer's state, and its promises. */
interface Exchange {
  request: HttpRequest;
  resolveAnswer: (answer: HttpAnswer) => void;
  rejectAnswer: (error: unknown) => void;
  /** Status line and headers as they come (latin1). */
  headText: string;
  head: Head | undefined;
  framing: Framing | undefined;
  /** Body bytes still to come (length framing), or of the current chunk (chunked). */
  remaining: number;
  /** Chunked framing: what is expected next. */
  chunkState: "size" | "data" | "data-end" | "trailers";
  chunkLine: string;
  sink: BodySink;
  /** The sink the exchange starts with, until `body`, `discard` or an early read replaces it. */
  unclaimed: UnclaimedBody;
  complete: boolean;
  settled: boolean;
  /**
   * `body` or `discard` was called, or the body is read early: body bytes go to their sink
   * (until then reading pauses).
   */
  claimed: boolean;
  /** The body is read before `body` is called, into the buffer the request offered. */
  early: EarlyBody | undefined;
  /** Interim answers and trailer lines seen so far. */
  interim: number;
  trailers: number;
  /** Removes the request signal's abort listener. */
  removeAbort: () => void;
}

/**
 * One kept-alive connection to an origin: sends a request, parses its answer from the reused read
 * buffer, and hands itself back to its pool when the answer is complete and was read or dropped.
 * @internal
 *
 * @example
 * ```ts
 * const connection = new Connection(pool, "127.0.0.1:8080", "127.0.0.1", 8080);
 * connection.send(request, requestHead(request, url), resolve, reject);
 * ```
 */
export class Connection {
  readonly socket: Socket;
  /** `host:port`, the pool's key. */
  readonly origin: string;
  readonly #pool: SocketPool;
  #exchange: Exchange | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** The server sent more than its answer: the connection serves no further request. */
  #tainted = false;
  /** The rest of a read that came before its answer's body was asked for (reading is paused). */
  #parked: { bytes: Buffer; at: number } | undefined;
  /** The buffer of this connection's reads, except those straight into a body's value. */
  readonly #own: Buffer;
  /** A read is being taken; {@link Connection.#done} inside it leaves the release to its end. */
  #inRead = false;
  #releaseAfterRead = false;

  constructor(pool: SocketPool, origin: string, host: string, port: number) {
    this.#pool = pool;
    this.origin = origin;
    // Each connection reads into a buffer of its own, so that a read whose body is not asked for
    // yet can wait there, reading paused (returning false pauses), instead of being copied out.
    const own = Buffer.allocUnsafe(READ_BYTES);
    this.#own = own;
    const onread = {
      buffer: () => this.#nextReadBuffer(),
      callback: (n: number, into: Uint8Array): boolean => this.#read(into === own ? own.subarray(0, n) : Buffer.from(into.buffer, into.byteOffset, n)),
    };
    this.socket = connect({ host, port, onread });
    this.socket.setNoDelay(true);
    this.socket.on("error", (error) => {
      this.#fail(error);
      // Idle or not, the connection is done: out of the pool now, not only at its 'close'.
      this.#close();
    });
    this.socket.on("end", () => {
      // A body framed by the end of the connection ends here; any other exchange ends early. An
      // idle connection the server ended leaves the pool at once.
      const exchange = this.#exchange;
      if (exchange?.framing?.kind === "close" && exchange.head !== undefined) this.#finishBody(exchange);
      else if (exchange === undefined) this.#close();
    });
    this.socket.on("close", () => {
      this.#closed = true;
      this.#pool.forget(this);
      if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
      this.#fail(prematureClose());
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Closes the socket and leaves the pool at once (not only at its `'close'` event). */
  #close(): void {
    this.#closed = true;
    // Destroyed before the pool forgets it, so that a request the pool then starts never finds
    // more than maxSockets sockets open.
    this.socket.destroy();
    this.#pool.forget(this);
  }

  /**
   * Sends `request` as `head` (its request line and headers, checked and written by the pool);
   * its answer resolves `resolve` once its head is parsed.
   */
  send(request: HttpRequest, head: string, resolve: (answer: HttpAnswer) => void, reject: (error: unknown) => void): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.socket.ref();
    const { signal } = request;
    const onAbort = (): void => {
      this.#fail(signal.reason);
      this.#close();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const unclaimed = unclaimedBody();
    this.#exchange = {
      request, resolveAnswer: resolve, rejectAnswer: reject, headText: "", head: undefined, framing: undefined, remaining: 0,
      chunkState: "size", chunkLine: "", sink: unclaimed, unclaimed, complete: false, settled: false, claimed: false, early: undefined, interim: 0, trailers: 0,
      removeAbort: () => signal.removeEventListener("abort", onAbort),
    };
    this.socket.write(head, "latin1");
  }

  /** Whether the connection can take a request: open, and not ended or reset by the server. */
  get usable(): boolean {
    return !this.#closed && !this.socket.destroyed && !this.socket.readableEnded && this.socket.writable;
  }

  /** Closes the connection (idle or not: an exchange on it fails). */
  destroy(): void {
    this.#close();
  }

  /** Waits idle for the next request, closing after {@link IDLE_SOCKET_MS}. */
  idle(): void {
    this.socket.unref();
    this.#idleTimer = setTimeout(() => this.#close(), IDLE_SOCKET_MS);
    this.#idleTimer.unref();
  }

  /**
   * Where Node puts the next read (asked after each read, and once before the first): straight
   * into the body's value when the body is claimed, framed by its length, and its sink has a
   * place for the rest, so those bytes are never copied; else into this connection's buffer.
   * Such a read stops {@link BODY_TAIL} bytes short of the body's end. While reading is paused,
   * the rest of a read waits in this connection's buffer; it is asked for again only after that
   * rest is taken.
   */
  #nextReadBuffer(): Uint8Array {
    const exchange = this.#exchange;
    if (exchange !== undefined && exchange.claimed && !exchange.complete && this.#parked === undefined && exchange.framing?.kind === "length" && exchange.remaining > BODY_TAIL) {
      const place = exchange.sink.place?.(exchange.remaining - BODY_TAIL);
      if (place !== undefined) return place;
    }
    return this.#own;
  }

  /**
   * Takes the bytes of one read from `at`; returns whether reading goes on. Reading pauses while
   * an answer's body has not been asked for yet (unless it is read early, see
   * {@link Connection.#readEarly}): the rest of the read waits in this connection's buffer
   * ({@link Connection.#parked}) and goes straight where `body` or `discard` sends it.
   */
  #read(bytes: Buffer, at = 0): boolean {
    this.#inRead = true;
    this.#releaseAfterRead = false;
    let reading: boolean;
    try {
      reading = this.#take(bytes, at);
    } finally {
      this.#inRead = false;
    }
    if (this.#releaseAfterRead) {
      this.#releaseAfterRead = false;
      if (!this.#tainted && !this.#closed) this.#pool.release(this);
    }
    return reading;
  }

  /** {@link Connection.#read} without the release of a connection its read completed. */
  #take(bytes: Buffer, at: number): boolean {
    const exchange = this.#exchange;
    if (exchange === undefined || exchange.complete) {
      // Bytes nobody asked for (after a complete answer, or on an idle connection): the
      // connection cannot be trusted for another request. A complete body stays good.
      this.#tainted = true;
      this.#close();
      return false;
    }
    try {
      while (at < bytes.length && !exchange.complete && this.#exchange === exchange) {
        if (exchange.head !== undefined && !exchange.claimed) {
          this.#parked = { bytes, at };
          return false;
        }
        at = exchange.head === undefined ? this.#readHead(exchange, bytes, at) : this.#readBody(exchange, bytes, at);
      }
      if (at < bytes.length && (exchange.complete || this.#exchange === exchange)) {
        this.#tainted = true;
        this.#close();
        return false;
      }
      return true;
    } catch (error) {
      this.#fail(error);
      this.#close();
      return false;
    }
  }

  /** The body was asked for (or dropped): what waited in the buffer goes on, then reading resumes. */
  #claim(exchange: Exchange): void {
    exchange.claimed = true;
    const parked = this.#parked;
    this.#parked = undefined;
    if (parked !== undefined && this.#read(parked.bytes, parked.at)) this.socket.resume();
  }

  /** Takes header bytes from `at`; returns where the body starts (or `bytes.length`). */
  #readHead(exchange: Exchange, bytes: Buffer, at: number): number {
    const before = exchange.headText.length;
    // The empty line is looked for in the bytes, so that only the head becomes text (the rest of
    // the read is body): first across the seam with the text kept from earlier reads.
    let stop = -1;
    if (before > 0) {
      const tail = exchange.headText.slice(-3);
      const seam = tail + bytes.toString("latin1", at, Math.min(bytes.length, at + 3));
      const found = seam.indexOf("\r\n\r\n");
      if (found >= 0) stop = at + found + 4 - tail.length;
    }
    if (stop < 0) {
      const found = bytes.indexOf(HEAD_END, at);
      if (found >= 0) stop = found + 4;
    }
    const end = stop < 0 ? bytes.length : stop;
    if (before + (end - at) - (stop < 0 ? 0 : 4) > HEAD_LIMIT) throw parseError("HPE_HEADER_OVERFLOW", `the status line and headers run past ${HEAD_LIMIT} bytes`);
    exchange.headText += bytes.toString("latin1", at, end);
    // A peer that is no HTTP server, or lines ended by LF alone, fail at once instead of waiting
    // for an empty line that may never come.
    const text = exchange.headText;
    const start = text.slice(0, 7);
    if (start !== "HTTP/1.".slice(0, start.length)) throw parseError("HPE_INVALID_CONSTANT", `the answer starts with ${JSON.stringify(text.slice(0, 16))}, not HTTP/1.x`);
    for (let lf = text.indexOf("\n", Math.max(0, before - 1)); lf >= 0; lf = text.indexOf("\n", lf + 1)) {
      if (lf === 0 || text[lf - 1] !== "\r") throw parseError("HPE_CR_EXPECTED", "a line of the head ends with LF alone");
    }
    if (stop < 0) return bytes.length;
    const head = parseHead(exchange.headText.slice(0, -4));
    const bodyAt = stop;
    exchange.headText = "";
    if (head.status >= 100 && head.status < 200) {
      // An interim answer (100 Continue, 103 Early Hints): the final one follows.
      if (head.status === 101) throw parseError("HPE_INVALID_CONSTANT", "the server switched protocols, which was not asked for");
      if (++exchange.interim > INTERIM_LIMIT) throw parseError("HPE_INVALID_CONSTANT", `more than ${INTERIM_LIMIT} interim answers`);
      return bodyAt;
    }
    // The framing first: an answer refused here fails the answer's promise, not its body's.
    exchange.framing = framingOf(head, exchange.request.method);
    exchange.head = head;
    exchange.remaining = exchange.framing.kind === "length" ? exchange.framing.length : 0;
    this.#readEarly(exchange, head);
    exchange.resolveAnswer(this.#answer(exchange, head));
    if (exchange.framing.kind === "length" && exchange.remaining === 0) this.#finishBody(exchange);
    return bodyAt;
  }

  /**
   * A request that offered a buffer (`into`) gets the body of a 200 or 206 answer read into it
   * at once, without waiting for `body`, when the body's announced length fits it (within
   * {@link PREALLOCATE_LIMIT}) and is not content-encoded: reading does not pause for it, and
   * all of the body but what came with the head and its last bytes goes straight from the socket
   * into the buffer ({@link Connection.#nextReadBuffer}).
   */
  #readEarly(exchange: Exchange, head: Head): void {
    const into = exchange.request.into;
    const length = exchange.framing?.kind === "length" ? exchange.framing.length : 0;
    const encoding = head.headers.get("content-encoding");
    if (into === undefined || exchange.request.method !== "GET" || (head.status !== 200 && head.status !== 206)) return;
    if (length === 0 || length > Math.min(into.length, PREALLOCATE_LIMIT) || (encoding !== undefined && encoding.toLowerCase() !== "identity")) return;
    exchange.early = earlyBody(into.subarray(0, length));
    exchange.sink = exchange.early;
    exchange.claimed = true;
  }

  /** Takes body bytes from `at`; returns where the next unread byte is. */
  #readBody(exchange: Exchange, bytes: Buffer, at: number): number {
    const framing = exchange.framing!;
    if (framing.kind === "close") {
      exchange.sink.take(bytes.subarray(at));
      return bytes.length;
    }
    if (framing.kind === "length") {
      const take = Math.min(bytes.length - at, exchange.remaining);
      exchange.remaining -= take;
      exchange.sink.take(bytes.subarray(at, at + take));
      if (exchange.remaining === 0) this.#finishBody(exchange);
      return at + take;
    }
    return this.#readChunked(exchange, bytes, at);
  }

  /** Chunked framing: size lines, data, the CRLF after each chunk, trailers. */
  #readChunked(exchange: Exchange, bytes: Buffer, at: number): number {
    if (exchange.chunkState === "data") {
      const take = Math.min(bytes.length - at, exchange.remaining);
      exchange.remaining -= take;
      exchange.sink.take(bytes.subarray(at, at + take));
      if (exchange.remaining === 0) exchange.chunkState = "data-end";
      return at + take;
    }
    // A line (size, the CRLF after data, or a trailer), taken up to its LF; these are short.
    const lf = bytes.indexOf(10, at);
    const end = lf < 0 ? bytes.length : lf + 1;
    exchange.chunkLine += bytes.toString("latin1", at, end);
    if (exchange.chunkLine.length > CHUNK_LINE_LIMIT) throw parseError("HPE_CHUNK_EXTENSIONS_OVERFLOW", `a chunk line runs past ${CHUNK_LINE_LIMIT} bytes`);
    if (lf < 0) return end;
    const line = exchange.chunkLine;
    exchange.chunkLine = "";
    if (!line.endsWith("\r\n")) throw parseError("HPE_LF_EXPECTED", "a chunk line does not end with CRLF");
    const content = line.slice(0, -2);
    if (exchange.chunkState === "data-end") {
      if (content !== "") throw parseError("HPE_INVALID_CHUNK_SIZE", "a chunk's data runs past its size");
      exchange.chunkState = "size";
    } else if (exchange.chunkState === "size") {
      const size = /^([0-9A-Fa-f]{1,12})[ \t]*(;.*)?$/.exec(content);
      if (size === null) throw parseError("HPE_INVALID_CHUNK_SIZE", `the chunk size line is ${JSON.stringify(content.slice(0, 40))}`);
      exchange.remaining = parseInt(size[1]!, 16);
      exchange.chunkState = exchange.remaining === 0 ? "trailers" : "data";
    } else if (content === "") {
      // The empty line after the trailers: the body is complete.
      this.#finishBody(exchange);
    } else if (++exchange.trailers > TRAILER_LIMIT) {
      throw parseError("HPE_HEADER_OVERFLOW", `more than ${TRAILER_LIMIT} trailer lines`);
    }
    return end;
  }

  #finishBody(exchange: Exchange): void {
    exchange.complete = true;
    exchange.sink.end();
  }

  /** Settles the exchange as failed (its answer or its body), once. */
  #fail(error: unknown): void {
    const exchange = this.#exchange;
    // A body that came whole stays good whatever happens to the connection after it.
    if (exchange === undefined || exchange.settled || exchange.complete) return;
    exchange.settled = true;
    this.#exchange = undefined;
    this.#parked = undefined;
    exchange.removeAbort();
    if (exchange.head === undefined) exchange.rejectAnswer(error);
    else exchange.sink.fail(error);
  }

  /** Ends the exchange without reporting (its caller reports) and closes the connection. */
  #abandon(exchange: Exchange): void {
    if (!exchange.settled) {
      exchange.settled = true;
      exchange.removeAbort();
      if (this.#exchange === exchange) this.#exchange = undefined;
    }
    this.#parked = undefined;
    this.#close();
  }

  /** The exchange is over and its body consumed: the connection serves the next request if it can. */
  #done(exchange: Exchange): void {
    if (exchange.settled) return;
    exchange.settled = true;
    exchange.removeAbort();
    this.#exchange = undefined;
    if (exchange.complete && exchange.head?.keepAlive === true && exchange.framing?.kind !== "close" && !this.#closed && !this.#tainted) {
      // Inside a read, the rest of that read decides first (bytes after the answer retire the
      // connection); the pool gets it back once the read is done.
      if (this.#inRead) this.#releaseAfterRead = true;
      else this.#pool.release(this);
    } else {
      this.#close();
    }
  }

  #answer(exchange: Exchange, head: Head): HttpAnswer {
    let used = false;
    const unclaimed = exchange.unclaimed;
    const announced = exchange.framing?.kind === "length" ? exchange.framing.length : undefined;
    return {
      status: head.status,
      statusText: head.statusText,
      url: exchange.request.url,
      redirected: false,
      opaqueRedirect: false,
      header(name) {
        return head.headers.get(name.toLowerCase()) ?? null;
      },
      body: (cap, tooLong, into) => {
        return new Promise<Uint8Array>((resolve, reject) => {
          const early = exchange.early;
          if (early !== undefined && !used) {
            // Read (or being read) into the request's buffer already; `into` is not used.
            used = true;
            if (announced! > cap) {
              let error: unknown;
              try {
                error = tooLong(announced!);
              } catch (thrown) {
                error = thrown;
              }
              this.#abandon(exchange);
              reject(error);
              return;
            }
            early.attach((bytes) => {
              this.#done(exchange);
              resolve(bytes);
            }, (error) => {
              this.#abandon(exchange);
              reject(error);
            });
            return;
          }
          if (used || (exchange.settled && !exchange.complete)) {
            // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
            reject(unclaimed.failure ?? new Error("the body of this answer was already read or discarded"));
            return;
          }
          used = true;
          const encoding = head.headers.get("content-encoding");
          if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
            // Never asked for (no Accept-Encoding is sent), and the bytes on the wire are not
            // the value: refuse rather than hand back compressed bytes.
            const error = new Error(`the answer is ${encoding}-encoded; nodeHttpTransport sends no Accept-Encoding and does not decode bodies`);
            this.#abandon(exchange);
            reject(error);
            return;
          }
          const value = collectedBody(bodyTarget(announced, cap, into), cap, tooLong, (bytes) => {
            this.#done(exchange);
            resolve(bytes);
          }, (error) => {
            // Past the cap, or the exchange failed: the connection goes, with whatever is unread.
            this.#abandon(exchange);
            reject(error);
          });
          exchange.sink = value;
          try {
            unclaimed.replay(value);
            this.#claim(exchange);
          } catch (error) {
            // A caller's callback threw (tooLong, say): the exchange ends with that error.
            this.#abandon(exchange);
            reject(error);
          }
        });
      },
      discard: () => {
        if (used || exchange.settled) return Promise.resolve();
        used = true;
        return new Promise<void>((resolve) => {
          // A short rest is read so the connection serves the next request; a long or endless
          // one is not worth reading.
          if (!exchange.complete && (announced === undefined || announced > DRAIN_LIMIT)) {
            this.#done(exchange);
            this.#close();
            resolve();
            return;
          }
          if (exchange.early !== undefined) {
            exchange.early.attach(() => {
              this.#done(exchange);
              resolve();
            }, () => resolve());
            return;
          }
          exchange.sink = { take() {}, end: () => { this.#done(exchange); resolve(); }, fail: () => resolve() };
          unclaimed.replay(exchange.sink);
          this.#claim(exchange);
        });
      },
    };
  }
}
