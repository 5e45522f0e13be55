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
 *
 * They are page-aligned, carved out of WebAssembly memories, where malloc's memory (what
 * `Buffer.allocUnsafe` gives) starts 16 bytes past a page when malloc maps it for a large
 * request. On the benchmark's machine (AMD EPYC) the kernel copies a file from the page cache
 * 3.1–3.6 times slower when the destination lies 1–31 bytes past the source's offset within a
 * page: reading the bench's 153 chunk files from offset 0 took 40–47 ms into such memory and
 * 13–14 ms into page-aligned memory. `readPart` places each body at its file offset's place in
 * the page, where the copy runs at full speed. Few memories hold them all: each reserves
 * gigabytes of address space, and V8 caps the total.
 */
const spareBuffers: Buffer[] = [];
const PAGE = 4096;
/** Bytes of a spare: the largest body kept in one (4 MiB), at any place within its first page. */
const SPARE_BYTES = (4 << 20) + PAGE;
const SPARES_PER_MEMORY = 16;
const SPARE_LIMIT = 64;
let sparesMade = 0;
let spareMemory: ArrayBuffer | undefined;

/** A new spare, or `undefined` once {@link SPARE_LIMIT} exist (then bodies go to `Buffer.alloc`). */
function newSpare(): Buffer | undefined {
  if (sparesMade >= SPARE_LIMIT) return undefined;
  const index = sparesMade++ % SPARES_PER_MEMORY;
  if (index === 0 || spareMemory === undefined) {
    const pages = (SPARE_BYTES * SPARES_PER_MEMORY) / 65536;
    spareMemory = new WebAssembly.Memory({ initial: pages, maximum: pages }).buffer;
  }
  return Buffer.from(spareMemory, index * SPARE_BYTES, SPARE_BYTES);
}

/**
 * Bytes [start, end) of a file, read alone (a range of a large file does not read all of it),
 * into a spare buffer when the body is at most 4 MiB and a spare is free (else into fresh memory,
 * wherever malloc puts it).
 */
function readPart(file: string, start: number, end: number): { body: Buffer; spare: Buffer | undefined } {
  const length = end - start;
  const spare = length + PAGE <= SPARE_BYTES ? (spareBuffers.pop() ?? newSpare()) : undefined;
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
      // An inverted range (bytes=4096-100) is unsatisfiable too; served, it had a negative length.
      if (start >= size || end <= start) {
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
    if (spare !== undefined) res.once("close", () => void spareBuffers.push(spare));
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
