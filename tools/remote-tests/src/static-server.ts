// A plain static file server on loopback with single-range support (`bytes=a-b`, `bytes=a-`,
// `bytes=-n`), HEAD, 404 and 416, plus switches that make it behave like worse servers: ignore
// Range, omit Content-Length (chunked bodies), refuse some paths with 403. It counts requests and
// body bytes so tests can state what a read costs.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { join, normalize, sep } from "node:path";

export interface StaticServerOptions {
  /** Answer every GET with the whole file (200), as if Range were unknown. */
  ignoreRange?: boolean;
  /** Send bodies chunked, without Content-Length. */
  omitContentLength?: boolean;
  /** URL paths starting with one of these get 403. */
  forbidden?: string[];
}

export interface StaticServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** Requests, body bytes, Range requests, and connections accepted. */
  counts: { requests: number; bytes: number; rangeRequests: number; connections: number };
  options: StaticServerOptions;
  stop(): Promise<void>;
}

// Browsers run module scripts only when they are served as JavaScript.
const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".png": "image/png" };
function contentType(file: string): string {
  const dot = file.lastIndexOf(".");
  return TYPES[file.slice(dot)] ?? "application/octet-stream";
}

/**
 * Buffers bodies are read into, each back here once its answer is written: a server that
 * allocated a fresh buffer per answer spent most of its time zeroing and faulting that memory in
 * (~15 µs a 4 KiB page on the benchmark's machine), as no real static server does (nginx sends
 * the file from the page cache).
 */
const spareBuffers: Buffer[] = [];
const SPARE_LIMIT = 64;
const PAGE = 4096;

/**
 * A spare buffer of at least `length + PAGE` bytes whose start is page-aligned: a WebAssembly
 * memory's, as `Buffer.allocUnsafe` gives malloc's memory, 16 bytes past a page boundary. On the
 * benchmark's machine (AMD EPYC, Zen 3) the kernel copies a file from the page cache 3–4 times
 * slower when the destination lies 1–31 bytes past the source's offset within a page (a read at
 * offset 0 into malloc's memory: 36–47 ms for the 64 MB of the bench's 153 chunk files, against
 * 11–13 into page-aligned memory); `readPart` places each body at its file offset's place in the
 * page, where the copy runs at full speed.
 */
function pageAlignedSpare(length: number): Buffer {
  const pages = Math.ceil((length + PAGE) / 65536);
  return Buffer.from(new WebAssembly.Memory({ initial: pages, maximum: pages }).buffer);
}

/** Bytes [start, end) of a file, read alone (a range of a large file does not read all of it), into a spare buffer when one is large enough. */
function readPart(file: string, start: number, end: number): { body: Buffer; spare: Buffer | undefined } {
  const length = end - start;
  const at = spareBuffers.findIndex((b) => b.length >= length + PAGE);
  const spare = at >= 0 ? spareBuffers.splice(at, 1)[0]! : length <= 4 << 20 ? pageAlignedSpare(Math.max(length, 1 << 20)) : undefined;
  const place = start % PAGE;
  const out = spare !== undefined ? spare.subarray(place, place + length) : Buffer.alloc(length);
  const fd = openSync(file, "r");
  try {
    for (let done = 0; done < out.length; ) {
      const n = readSync(fd, out, done, out.length - done, start + done);
      if (n === 0) return { body: out.subarray(0, done), spare };
      done += n;
    }
    return { body: out, spare };
  } finally {
    closeSync(fd);
  }
}

/** Serves `root` on 127.0.0.1 at a free port. */
export async function startStaticServer(root: string, options: StaticServerOptions = {}): Promise<StaticServer> {
  const counts = { requests: 0, bytes: 0, rangeRequests: 0, connections: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    counts.requests += 1;
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = normalize(join(root, path));
    if (!file.startsWith(root + sep) && file !== root) {
      res.writeHead(403).end();
      return;
    }
    if ((options.forbidden ?? []).some((p) => path.startsWith(p))) {
      res.writeHead(403, { "content-length": 0 }).end();
      return;
    }
    let size: number;
    try {
      const info = statSync(file);
      if (!info.isFile()) throw new Error("not a file");
      size = info.size;
    } catch {
      res.writeHead(404, { "content-length": 0 }).end();
      return;
    }
    const headers: Record<string, string | number> = { "accept-ranges": options.ignoreRange === true ? "none" : "bytes", "content-type": contentType(file) };
    let status = 200;
    let start = 0;
    let end = size;
    const range = req.headers.range;
    if (range !== undefined && options.ignoreRange !== true) {
      counts.rangeRequests += 1;
      const m = /^bytes=(\d*)-(\d*)$/.exec(range);
      if (m === null || (m[1] === "" && m[2] === "")) {
        res.writeHead(416, { "content-range": `bytes */${size}`, "content-length": 0 }).end();
        return;
      }
      if (m[1] === "") {
        start = Math.max(0, size - Number(m[2]));
      } else {
        start = Number(m[1]);
        end = m[2] === "" ? size : Math.min(size, Number(m[2]) + 1);
      }
      if (start >= size) {
        res.writeHead(416, { "content-range": `bytes */${size}`, "content-length": 0 }).end();
        return;
      }
      status = 206;
      headers["content-range"] = `bytes ${start}-${end - 1}/${size}`;
    }
    const { body, spare } = req.method === "HEAD" ? { body: Buffer.alloc(0), spare: undefined } : readPart(file, start, end);
    if (options.omitContentLength !== true) headers["content-length"] = end - start;
    counts.bytes += body.length;
    res.writeHead(status, headers);
    // The buffer is reused once the answer is written (or dropped): its bytes are in the kernel then.
    if (spare !== undefined) res.once("close", () => void (spareBuffers.length < SPARE_LIMIT && spareBuffers.push(spare)));
    res.end(body);
  });
  server.on("connection", (socket) => {
    counts.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("static server has no port");
  return {
    url: `http://127.0.0.1:${address.port}/`,
    counts,
    options,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
