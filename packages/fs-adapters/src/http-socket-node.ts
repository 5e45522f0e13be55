/**
 * HTTP/1.1 over `node:net` sockets for {@link nodeHttpTransport}'s `http:` requests: each
 * connection reads into a buffer of its own, reused (`onread`), and an answer's body is copied from it
 * straight into the value, so a read of many chunk files allocates no socket buffers and runs no
 * stream machinery. On loopback, a prototype fetched the 153 chunk files (60 MB) of the store
 * benchmark's carray in 25–58 ms this way, where `node:http` took 70–110 ms and left four full
 * garbage collections per read behind it (tools/bench/README.md).
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
import { joinParts } from "./remote.js";

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
 * sent. Longer bodies are collected as they come (chunk files are far smaller).
 */
export const PREALLOCATE_LIMIT = 16 * 1024 * 1024;

/** The empty line that ends the status line and headers. */
const HEAD_END = Buffer.from("\r\n\r\n", "latin1");
/** Bytes a connection reads at once into its buffer. */
const READ_BYTES = 256 * 1024;
/** Longest status line and headers taken (Node's default limit is 16 KiB). */
const HEAD_LIMIT = 64 * 1024;
/** Longest chunk-size line or trailer line of a chunked body. */
const CHUNK_LINE_LIMIT = 4096;
/** Most trailer lines after a chunked body, and most interim (1xx) answers before an answer. */
const TRAILER_LIMIT = 64;
const INTERIM_LIMIT = 16;

/**
 * A premature end of a body, with a code `isConnectionError` retries.
 *
 * @example
 * ```ts
 * socket.once("close", () => fail(prematureClose()));
 * ```
 */
export function prematureClose(): Error {
  return Object.assign(new Error("the connection closed before the body ended (premature close)"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
}

/** An answer the parser refuses, with an `HPE_*` code as Node's parser gives (retried as a connection error). */
function parseError(code: string, message: string): Error {
  return Object.assign(new Error(`the server's answer cannot be parsed: ${message}`), { code });
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: ([^\r\n]*))?$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A parsed status line and header section. */
interface Head {
  status: number;
  statusText: string;
  headers: Map<string, string>;
  /** HTTP/1.1 without `Connection: close`. */
  keepAlive: boolean;
}

/** Parses the status line and headers (the text before the empty line). */
function parseHead(text: string): Head {
  const lines = text.split("\r\n");
  const status = STATUS_LINE.exec(lines[0]!);
  if (status === null) throw parseError("HPE_INVALID_CONSTANT", `the status line is ${JSON.stringify(lines[0]!.slice(0, 80))}`);
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    // A line folded onto the one before (obs-fold), a name with spaces or no colon: refused.
    if (!TOKEN.test(name)) throw parseError("HPE_INVALID_HEADER_TOKEN", `header line ${i} is ${JSON.stringify(line.slice(0, 80))}`);
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!FIELD_VALUE.test(value)) throw parseError("HPE_INVALID_HEADER_TOKEN", `the value of ${name} holds control characters`);
    const key = name.toLowerCase();
    const before = headers.get(key);
    headers.set(key, before === undefined ? value : `${before}, ${value}`);
  }
  const connection = (headers.get("connection") ?? "").toLowerCase().split(",").map((t) => t.trim());
  return { status: Number(status[2]), statusText: status[3] ?? "", headers, keepAlive: status[1] === "1" && !connection.includes("close") };
}

/** How the body of an answer ends. */
type Framing = { kind: "length"; length: number } | { kind: "chunked" } | { kind: "close" };

/** The body's framing (RFC 9112 section 6.3), refusing what is ambiguous. */
function framingOf(head: Head, method: string): Framing {
  if (method === "HEAD" || head.status === 204 || head.status === 304) return { kind: "length", length: 0 };
  const coding = head.headers.get("transfer-encoding");
  const length = head.headers.get("content-length");
  if (coding !== undefined) {
    if (length !== undefined) throw parseError("HPE_UNEXPECTED_CONTENT_LENGTH", "it has both Transfer-Encoding and Content-Length");
    if (coding.toLowerCase() !== "chunked") throw parseError("HPE_INVALID_TRANSFER_ENCODING", `Transfer-Encoding is ${JSON.stringify(coding)}, not chunked`);
    return { kind: "chunked" };
  }
  if (length !== undefined) {
    // One plain number; the header twice (joined with a comma) or a list is refused, as by node:http.
    if (!/^\d{1,15}$/.test(length)) throw parseError("HPE_INVALID_CONTENT_LENGTH", `Content-Length is ${JSON.stringify(length)}`);
    return { kind: "length", length: Number(length) };
  }
  return { kind: "close" };
}

/** Where an answer's body goes: not asked for yet (kept), into a value, or dropped. */
interface BodySink {
  /** Takes bytes of the body (a view of the read buffer, valid during the call only). */
  take(bytes: Uint8Array): void;
  /** The body ended. */
  end(): void;
  /** The exchange failed. */
  fail(error: unknown): void;
}

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
  complete: boolean;
  settled: boolean;
  /** `body` or `discard` was called: body bytes go to their sink (until then reading pauses). */
  claimed: boolean;
  /** Interim answers and trailer lines seen so far. */
  interim: number;
  trailers: number;
  /** Removes the request signal's abort listener. */
  removeAbort: () => void;
}

/**
 * One kept-alive connection to an origin: sends a request, parses its answer from the reused read
 * buffer, and hands itself back to its pool when the answer is complete and was read or dropped.
 */
class Connection {
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
  /** A read is being taken; {@link Connection.#done} inside it leaves the release to its end. */
  #inRead = false;
  #releaseAfterRead = false;

  constructor(pool: SocketPool, origin: string, host: string, port: number) {
    this.#pool = pool;
    this.origin = origin;
    // Each connection reads into a buffer of its own, so that a read whose body is not asked for
    // yet can wait there, reading paused (returning false pauses), instead of being copied out.
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    const onread = { buffer, callback: (n: number): boolean => this.#read(buffer.subarray(0, n)) };
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
    this.#exchange = {
      request, resolveAnswer: resolve, rejectAnswer: reject, headText: "", head: undefined, framing: undefined, remaining: 0,
      chunkState: "size", chunkLine: "", sink: unclaimedBody(), complete: false, settled: false, claimed: false, interim: 0, trailers: 0,
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
   * Takes the bytes of one read from `at`; returns whether reading goes on. Reading pauses while
   * an answer's body has not been asked for yet: the rest of the read waits in this connection's
   * buffer ({@link Connection.#parked}) and goes straight where `body` or `discard` sends it.
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
    exchange.resolveAnswer(this.#answer(exchange, head));
    if (exchange.framing.kind === "length" && exchange.remaining === 0) this.#finishBody(exchange);
    return bodyAt;
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
    const unclaimed = exchange.sink as UnclaimedBody;
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
          const preallocated = announced !== undefined && announced <= Math.min(cap, PREALLOCATE_LIMIT);
          const target = !preallocated ? undefined : into !== undefined && announced <= into.length ? into.subarray(0, announced) : new Uint8Array(announced);
          const value = collectedBody(target, cap, tooLong, (bytes) => {
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
          exchange.sink = { take() {}, end: () => { this.#done(exchange); resolve(); }, fail: () => resolve() };
          unclaimed.replay(exchange.sink);
          this.#claim(exchange);
        });
      },
    };
  }
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
interface UnclaimedBody extends BodySink {
  failure: unknown;
  /** Hands the end or the failure, if seen, to the sink that takes over. */
  replay(sink: BodySink): void;
}

function unclaimedBody(): UnclaimedBody {
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
 */
function collectedBody(
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
      if (target !== undefined) target.set(bytes, total);
      else parts.push(copyOf(bytes));
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
  };
}

/**
 * The request line and headers of `request`, checked before any connection is taken: names are
 * tokens, values hold no control characters and fit latin1, no framing headers (no body is sent),
 * the caller's Host if it gave one, and the URL's credentials as Basic authorization, as
 * node:http sends them (a malformed escape in them throws `URIError`, as there).
 */
function requestHead(request: HttpRequest, url: URL): string {
  const given = new Set<string>();
  let fields = "";
  for (const [name, value] of Object.entries(request.headers)) {
    if (!TOKEN.test(name) || /^(content-length|transfer-encoding)$/i.test(name)) throw parseError("ERR_INVALID_HTTP_TOKEN", `the request header ${JSON.stringify(name)} cannot be sent`);
    if (!FIELD_VALUE.test(value)) throw parseError("ERR_INVALID_CHAR", `the value of the request header ${JSON.stringify(name)} holds a character that cannot be sent`);
    given.add(name.toLowerCase());
    fields += `${name}: ${value}\r\n`;
  }
  let head = `${request.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  if (!given.has("host")) head += `Host: ${url.host}\r\n`;
  if ((url.username !== "" || url.password !== "") && !given.has("authorization")) {
    const credentials = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64");
    head += `Authorization: Basic ${credentials}\r\n`;
  }
  return `${head}${fields}\r\n`;
}

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
