// A misbehaving server on loopback in front of a directory of datasets: it answers both as a
// static HTTP server (`/<key>`) and as a path-style S3 endpoint (`/<bucket>/<key>`, GET and HEAD,
// no signature check), and for each request applies a fault the test chooses, the way CDNs,
// proxies and S3-compatible services misbehave: a Content-Range for other bytes, an aligned
// superset, a body past the asked range, Range ignored, redirects, 429 with Retry-After, stray
// bytes after a body on a kept-alive connection, a 10 GB Content-Length for a small value, an
// endless body without Content-Length. Every request's headers are recorded so tests can tell
// what reached which server, and connections are counted (opened, closed).
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import type { Socket } from "node:net";
import { join, normalize, sep } from "node:path";

/** What the server does with one request. */
export type Misbehaviour =
  | { kind: "pass" }
  /**
   * A 206 for a range of the same length `delta` bytes away (backwards when it would not fit),
   * named as such; when neither fits, the range from `start + delta` to the end.
   */
  | { kind: "shift"; delta: number }
  /** A 206 for the asked range widened to multiples of `align` bytes, Content-Range consistent. */
  | { kind: "align"; align: number }
  /** A 206 whose Content-Range names the asked range but whose body runs `extra` bytes past it. */
  | { kind: "overlong"; extra: number }
  /** A 200 with the whole value, whatever Range asked. */
  | { kind: "ignore-range" }
  /** A 302 (or `status`) to `location(path)`; the path may be absolute or another origin. */
  | { kind: "redirect"; status?: number; location: (path: string) => string }
  /** 429 with this Retry-After value. */
  | { kind: "retry-after"; value: string; status?: number }
  /** The right answer, then these bytes on the same (kept-alive) connection. */
  | { kind: "stray"; bytes: string }
  /**
   * Announce `announced` bytes of body (without it: no Content-Length, a chunked body) and stream
   * filler until the client goes away.
   */
  | { kind: "huge"; announced?: number }
  /**
   * What AWS S3 answers when a bucket is addressed through the wrong region: `301` with no
   * `Location`, an `x-amz-bucket-region` header and (to a GET) an XML `PermanentRedirect` error
   * naming the endpoint to use.
   */
  | { kind: "wrong-region"; region: string; endpoint: string }
  /** This status (e.g. 403 to a request without the right credentials), with an empty body (S3: an `AccessDenied` error). */
  | { kind: "refuse"; status: number };

/**
 * Chooses the misbehaviour for one request (0-based index over the server's life); `path` is the
 * URL path as asked (percent-decoded, `moved` segments and bucket still in it), `headers` the
 * request's headers.
 */
export type MisbehaviourPlan = (request: { method: string; key: string; range: string | undefined; index: number; path: string; headers: IncomingHttpHeaders }) => Misbehaviour;

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** A running misbehaving server. */
export interface MisbehavingServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  /** Every request seen, in order. */
  seen: SeenRequest[];
  /** Body bytes written for `huge` answers. */
  hugeBytesSent: number;
  /** Connections accepted and connections closed (either side) so far. */
  connections: { opened: number; closed: number };
  setPlan(plan: MisbehaviourPlan): void;
  stop(): Promise<void>;
}

const PASS: MisbehaviourPlan = () => ({ kind: "pass" });

function readPart(file: string, start: number, end: number): Buffer {
  const out = Buffer.alloc(Math.max(0, end - start));
  const fd = openSync(file, "r");
  try {
    let done = 0;
    while (done < out.length) {
      const n = readSync(fd, out, done, out.length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return out.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * Options of {@link startMisbehavingServer}.
 *
 * @example
 * ```ts
 * const server = await startMisbehavingServer(root, { bucket: "b", cors: true, pages: { "/page.html": { type: "text/html", body: "<!doctype html>" } } });
 * ```
 */
export interface MisbehavingServerOptions {
  /** Answer as a path-style S3 endpoint of this bucket too. */
  bucket?: string;
  /**
   * Let pages of other origins read the answers (for a browser): CORS preflights (`OPTIONS`) are
   * answered `204` allowing GET and HEAD with whatever headers they ask for (they are recorded in
   * `seen` but do not count as requests of the plan), and every answer carries
   * `Access-Control-Allow-Origin: *`, exposes `Content-Range` and `Content-Length`, and says
   * `Cache-Control: no-store` (so that every read of a browser reaches the server).
   */
  cors?: boolean;
  /** Fixed answers (a page, a script) by URL path, served as is whatever the plan says. */
  pages?: Record<string, { type: string; body: string }>;
}

/**
 * Serves `root` on 127.0.0.1 at a free port. With `bucket`, a first path segment equal to it is
 * dropped (S3 path style); leading `moved` segments are dropped too (redirect targets).
 */
export async function startMisbehavingServer(root: string, options: MisbehavingServerOptions = {}): Promise<MisbehavingServer> {
  let plan = PASS;
  let index = 0;
  const sockets = new Set<Socket>();
  const state: MisbehavingServer = {
    origin: "",
    seen: [],
    hugeBytesSent: 0,
    connections: { opened: 0, closed: 0 },
    setPlan(next) {
      plan = next;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const s3 = options.bucket !== undefined;
  const server: Server = createServer((req, res) => {
    req.resume();
    const method = req.method ?? "GET";
    state.seen.push({ method, url: req.url ?? "/", headers: req.headers });
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (options.cors === true) {
      res.setHeader("access-control-allow-origin", "*");
      res.setHeader("access-control-expose-headers", "content-range, content-length, accept-ranges, etag");
      // A browser's cache would answer repeated reads itself; every read must reach the server.
      res.setHeader("cache-control", "no-store");
      if (method === "OPTIONS") {
        const asked = req.headers["access-control-request-headers"];
        res.writeHead(204, { "access-control-allow-methods": "GET, HEAD", ...(asked === undefined ? {} : { "access-control-allow-headers": asked }), "access-control-max-age": "0" }).end();
        return;
      }
    }
    const page = options.pages?.[path];
    if (page !== undefined) {
      res.writeHead(200, { "content-type": page.type, "content-length": Buffer.byteLength(page.body), "cache-control": "no-store" }).end(method === "HEAD" ? undefined : page.body);
      return;
    }
    let parts = path.split("/").filter((p) => p !== "");
    while (parts[0] === "moved") parts = parts.slice(1);
    if (s3 && parts[0] === options.bucket) parts = parts.slice(1);
    const key = parts.join("/");
    const range = req.headers.range;
    const fault = plan({ method, key, range, index: index++, path, headers: req.headers });
    const missing = (status: number, code: string) => {
      const body = method === "HEAD" || !s3 ? "" : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message></Error>`;
      res.writeHead(status, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) }).end(body);
    };
    if (fault.kind === "redirect") {
      res.writeHead(fault.status ?? 302, { location: fault.location(req.url ?? "/"), "content-length": 0 }).end();
      return;
    }
    if (fault.kind === "refuse") return missing(fault.status, "AccessDenied");
    if (fault.kind === "wrong-region") {
      const body =
        method === "HEAD"
          ? ""
          : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.</Message><Endpoint>${fault.endpoint}</Endpoint><Bucket>${options.bucket ?? ""}</Bucket></Error>`;
      res.writeHead(301, { "x-amz-bucket-region": fault.region, "content-type": "application/xml", "content-length": Buffer.byteLength(body) }).end(body);
      return;
    }
    if (fault.kind === "retry-after") {
      const body = s3 ? `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>slow down</Message></Error>` : "";
      res.writeHead(fault.status ?? 429, { "retry-after": fault.value, "content-type": "application/xml", "content-length": Buffer.byteLength(body) }).end(body);
      return;
    }
    const file = normalize(join(root, key));
    if (!file.startsWith(root + sep)) return missing(403, "AccessDenied");
    let size: number;
    try {
      const info = statSync(file);
      if (!info.isFile()) throw new Error("not a file");
      size = info.size;
    } catch {
      return missing(404, "NoSuchKey");
    }
    if (fault.kind === "huge") {
      res.writeHead(200, { ...(fault.announced === undefined ? {} : { "content-length": fault.announced }), "content-type": "application/octet-stream" });
      const filler = Buffer.alloc(64 * 1024, 0x20);
      // At most 16 chunks a tick, while the connection lives and the client keeps reading; never
      // more than 1 GiB in all.
      const pump = () => {
        const gone = () => res.destroyed || res.socket === null || res.socket.destroyed;
        for (let i = 0; i < 16 && !gone() && res.writableLength < 1024 * 1024; i++) {
          state.hugeBytesSent += filler.length;
          res.write(filler);
        }
        if (!gone() && state.hugeBytesSent < 1024 ** 3) setTimeout(pump, 1);
      };
      pump();
      return;
    }
    // The range asked, as [start, end) within the value.
    let start = 0;
    let end = size;
    let ranged = false;
    const m = range === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(range);
    if (m !== null && !(m[1] === "" && m[2] === "") && fault.kind !== "ignore-range") {
      ranged = true;
      if (m[1] === "") start = Math.max(0, size - Number(m[2]));
      else {
        start = Number(m[1]);
        end = m[2] === "" ? size : Math.min(size, Number(m[2]) + 1);
      }
      if (start >= size) {
        res.writeHead(416, { "content-range": `bytes */${size}`, "content-length": 0 }).end();
        return;
      }
    }
    const send = (status: number, headers: Record<string, string | number>, body: Buffer) => {
      headers["content-type"] = "application/octet-stream";
      headers["last-modified"] = new Date(0).toUTCString();
      headers.etag = `"${size}"`;
      headers["content-length"] ??= body.length;
      res.writeHead(status, headers);
      if (method === "HEAD") res.end();
      else if (fault.kind === "stray") {
        // Stray bytes right after the body: the next answer read on this kept-alive connection
        // does not parse.
        const socket = res.socket;
        res.end(body);
        // A moment later, when the client has taken the connection back into its pool.
        setTimeout(() => {
          if (socket !== null && !socket.destroyed) socket.write(fault.bytes);
        }, 5);
      } else res.end(body);
    };
    if (!ranged || method === "HEAD") {
      send(200, { "accept-ranges": "bytes" }, method === "HEAD" ? Buffer.alloc(0) : readPart(file, 0, size));
      return;
    }
    if (fault.kind === "shift") {
      // Same length `delta` away; when neither way fits, from `delta` further on to the end.
      const length = end - start;
      let s = start + fault.delta;
      let e = s + length;
      if (e > size && start - fault.delta >= 0) {
        s = start - fault.delta;
        e = s + length;
      } else if (e > size) {
        s = Math.min(s, size - 1);
        e = size;
      }
      send(206, { "content-range": `bytes ${s}-${e - 1}/${size}` }, readPart(file, s, e));
      return;
    }
    if (fault.kind === "align") {
      const s = Math.floor(start / fault.align) * fault.align;
      const e = Math.min(size, Math.ceil(end / fault.align) * fault.align);
      send(206, { "content-range": `bytes ${s}-${e - 1}/${size}` }, readPart(file, s, e));
      return;
    }
    if (fault.kind === "overlong") {
      const body = Buffer.concat([readPart(file, start, end), Buffer.alloc(fault.extra, 0xee)]);
      send(206, { "content-range": `bytes ${start}-${end - 1}/${size}` }, body);
      return;
    }
    send(206, { "content-range": `bytes ${start}-${end - 1}/${size}` }, readPart(file, start, end));
  });
  server.keepAliveTimeout = 10_000;
  server.on("connection", (socket) => {
    state.connections.opened += 1;
    sockets.add(socket);
    socket.on("close", () => {
      state.connections.closed += 1;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("misbehaving server has no port");
  state.origin = `http://127.0.0.1:${address.port}`;
  return state;
}
