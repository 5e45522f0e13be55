/**
 * The text of HTTP/1.1 messages for the socket transport (`http-socket-node.ts`): the request
 * line and headers it sends, and the status line, headers and body framing it reads, each checked
 * as strictly as Node's own parser checks them (errors carry the same `HPE_*` codes). @internal
 *
 * @module
 */
import type { HttpRequest } from "./http.js";

/** The empty line that ends the status line and headers. */
export const HEAD_END = Buffer.from("\r\n\r\n", "latin1");
/** Longest status line and headers taken (Node's default limit is 16 KiB). */
export const HEAD_LIMIT = 64 * 1024;
/** Longest chunk-size line or trailer line of a chunked body. */
export const CHUNK_LINE_LIMIT = 4096;
/** Most trailer lines after a chunked body. */
export const TRAILER_LIMIT = 64;
/** Most interim (1xx) answers before an answer. */
export const INTERIM_LIMIT = 16;

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

/**
 * An answer the parser refuses, with an `HPE_*` code as Node's parser gives (retried as a
 * connection error).
 *
 * @example
 * ```ts
 * throw parseError("HPE_LF_EXPECTED", "a chunk line does not end with CRLF");
 * ```
 */
export function parseError(code: string, message: string): Error {
  return Object.assign(new Error(`the server's answer cannot be parsed: ${message}`), { code });
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: ([^\r\n]*))?$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A parsed status line and header section. */
export interface Head {
  status: number;
  statusText: string;
  headers: Map<string, string>;
  /** HTTP/1.1 without `Connection: close`. */
  keepAlive: boolean;
}

/**
 * Parses the status line and headers (the text before the empty line); throws {@link parseError}s.
 *
 * @example
 * ```ts
 * parseHead("HTTP/1.1 206 Partial Content\r\nContent-Length: 16").headers.get("content-length"); // "16"
 * ```
 */
export function parseHead(text: string): Head {
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
export type Framing = { kind: "length"; length: number } | { kind: "chunked" } | { kind: "close" };

/**
 * The body's framing (RFC 9112 section 6.3), refusing what is ambiguous.
 *
 * @example
 * ```ts
 * framingOf(parseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"), "GET"); // { kind: "chunked" }
 * ```
 */
export function framingOf(head: Head, method: string): Framing {
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

/**
 * The request line and headers of `request`, checked before any connection is taken: names are
 * tokens, values hold no control characters and fit latin1, no framing headers (no body is sent),
 * the caller's Host if it gave one, and the URL's credentials as Basic authorization, as
 * node:http sends them (a malformed escape in them throws `URIError`, as there).
 *
 * @example
 * ```ts
 * requestHead(request, new URL("http://127.0.0.1:8080/a.bcolz/meta/sizes")); // "GET /a.bcolz/meta/sizes HTTP/1.1\r\nHost: …"
 * ```
 */
export function requestHead(request: HttpRequest, url: URL): string {
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
