// `nodeHttpTransport`'s own HTTP/1.1 over sockets (its default for `http:`), at the wire level:
// a TCP server on loopback writes scripted answers byte by byte or whole, and the tests check what
// the transport makes of them: chunked bodies split anywhere, interim 1xx answers, bodies framed
// by the end of the connection, and each malformed or ambiguous answer refused with an `HPE_*`
// code (retried by the store as a connection error) and its connection closed.
import { describe, expect, it } from "vitest";
import { StorageError, UsageError } from "@fmt/errors";
import { HttpStore } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import type { HttpAnswer } from "@fmt/fs-adapters/http";
import { rejection } from "../src/rejection.js";
import { scriptedServersClosedAfterEach, trickle } from "../src/scripted-server.js";

const scripted = scriptedServersClosedAfterEach();

const signal = new AbortController().signal;

async function bodyOf(url: string, transport = nodeHttpTransport()): Promise<{ answer: HttpAnswer; body: Uint8Array }> {
  const answer = await transport({ url, method: "GET", headers: {}, signal, redirect: "manual" });
  return { answer, body: await answer.body(1 << 20, (n) => new Error(`too long: ${n}`)) };
}

const CHUNKED = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;name=value\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n";

describe("nodeHttpTransport over its own sockets", () => {
  it("reads a chunked body, interim 1xx answers before it, written one byte at a time, and keeps the connection", async () => {
    const server = await scripted(async (socket) => trickle(socket, `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n${CHUNKED}`));
    const transport = nodeHttpTransport();
    for (let i = 0; i < 2; i++) {
      const { answer, body } = await bodyOf(`${server.url}k`, transport);
      expect(answer.status).toBe(200);
      expect(answer.header("transfer-encoding")).toBe("chunked");
      expect(Buffer.from(body).toString()).toBe("hello world");
    }
    expect(server.connections).toBe(1);
    transport.close();
  });

  it("reads a Content-Length body split anywhere, joins repeated headers, and sends the request's headers", async () => {
    const server = await scripted(async (socket) => trickle(socket, "HTTP/1.1 206 Partial Content\r\nContent-Length: 4\r\nX-A: 1\r\nx-a: 2\r\n\r\nabcd"));
    const transport = nodeHttpTransport();
    const answer = await transport({ url: `${server.url}dir/k?q=1`, method: "GET", headers: { range: "bytes=0-3" }, signal, redirect: "manual" });
    expect([answer.status, answer.statusText, answer.header("X-A")]).toEqual([206, "Partial Content", "1, 2"]);
    expect(Buffer.from(await answer.body(100, () => new Error("long"))).toString()).toBe("abcd");
    expect(server.requests[0]).toMatch(/^GET \/dir\/k\?q=1 HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nrange: bytes=0-3$/);
    transport.close();
  });

  it("reads a body that ends with the connection, and opens a new connection for the next request", async () => {
    const server = await scripted((socket) => {
      socket.end("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end");
    });
    const transport = nodeHttpTransport();
    expect(Buffer.from((await bodyOf(`${server.url}a`, transport)).body).toString()).toBe("until the end");
    expect(Buffer.from((await bodyOf(`${server.url}b`, transport)).body).toString()).toBe("until the end");
    expect(server.connections).toBe(2);
  });

  it("a body past the cap fails with the caller's error and closes the connection", async () => {
    const server = await scripted((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${"1000\r\n" + "x".repeat(4096) + "\r\n"}`);
    });
    const transport = nodeHttpTransport();
    const answer = await transport({ url: `${server.url}k`, method: "GET", headers: {}, signal, redirect: "manual" });
    const error = await rejection(answer.body(1000, (n) => new Error(`past the cap at ${n}`)));
    expect((error as Error).message).toMatch(/^past the cap at \d+$/);
    await expect.poll(() => server.requests.length).toBe(1);
  });

  const malformed: [string, string, string][] = [
    ["a status line that is not HTTP/1.x", "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n", "HPE_INVALID_CONSTANT"],
    ["a header folded onto the line before", "HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n", "HPE_INVALID_HEADER_TOKEN"],
    ["a header line without a colon", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "HPE_INVALID_HEADER_TOKEN"],
    ["Content-Lengths that disagree", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde", "HPE_INVALID_CONTENT_LENGTH"],
    ["a Content-Length given twice", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\nabcd", "HPE_INVALID_CONTENT_LENGTH"],
    ["more than 64 trailer lines", `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${"T: 1\r\n".repeat(65)}\r\n`, "HPE_HEADER_OVERFLOW"],
    ["more than 16 interim answers", `${"HTTP/1.1 100 Continue\r\n\r\n".repeat(17)}HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n`, "HPE_INVALID_CONSTANT"],
    ["a Content-Length that is not a number", "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n", "HPE_INVALID_CONTENT_LENGTH"],
    ["both Transfer-Encoding and Content-Length", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", "HPE_UNEXPECTED_CONTENT_LENGTH"],
    ["a transfer coding other than chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "HPE_INVALID_TRANSFER_ENCODING"],
    ["a chunk size that is not hexadecimal", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "HPE_INVALID_CHUNK_SIZE"],
    ["chunk data longer than its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", "HPE_INVALID_CHUNK_SIZE"],
    ["a switch of protocols nobody asked for", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", "HPE_INVALID_CONSTANT"],
    ["headers past 64 KiB", `HTTP/1.1 200 OK\r\n${"X-Long: " + "y".repeat(70_000)}\r\n\r\n`, "HPE_HEADER_OVERFLOW"],
  ];
  it.each(malformed)("refuses %s (%#) with its HPE code, retried by the store, and closes the connection", async (_what, text, code) => {
    const server = await scripted((socket) => {
      socket.write(text);
    });
    const store = new HttpStore(server.url, { transport: nodeHttpTransport(), retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const error = await rejection(store.get("k"));
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: "IO_ERROR", path: "k" });
    expect(((error as StorageError).cause as { code?: string }).code).toBe(code);
    expect(store.stats.retries).toBe(1);
    // Each attempt on a connection of its own: the refused answer closed the first.
    expect(server.connections).toBe(2);
  });

  it("a body cut short by the server's close fails as a premature close, which the store retries", async () => {
    const server = await scripted((socket) => {
      socket.end("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b");
    });
    const store = new HttpStore(server.url, { transport: nodeHttpTransport(), retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const error = await rejection(store.get("k"));
    expect(error).toMatchObject({ code: "IO_ERROR", path: "k" });
    expect(((error as StorageError).cause as { code?: string }).code).toBe("ERR_STREAM_PREMATURE_CLOSE");
    expect(store.stats.retries).toBe(1);
  });

  it("bytes after a complete answer leave its body good and the connection unused afterwards, even by a request queued for it", async () => {
    const server = await scripted((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokSTRAY");
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    // The second request waits for the only connection; it must get a new one, not this one.
    const [a, b] = await Promise.all([bodyOf(`${server.url}a`, transport), bodyOf(`${server.url}b`, transport)]);
    expect([a, b].map(({ body }) => Buffer.from(body).toString())).toEqual(["ok", "ok"]);
    expect(server.connections).toBe(2);
    transport.close();
  });

  it("queues requests past maxSockets and serves them as connections come free", async () => {
    const server = await scripted(async (socket, _request, index) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${String(index).length}\r\n\r\n${index}`);
    });
    const transport = nodeHttpTransport({ maxSockets: 2 });
    const bodies = await Promise.all(Array.from({ length: 12 }, async (_, i) => Buffer.from((await bodyOf(`${server.url}${i}`, transport)).body).toString()));
    expect(bodies.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(server.connections).toBe(2);
    transport.close();
  });

  it("sends the caller's Host and the URL's credentials as node:http does, and refuses headers it cannot send", async () => {
    const server = await scripted((socket) => {
      socket.write("HTTP/1.1 204 No Content\r\n\r\n");
    });
    const transport = nodeHttpTransport();
    const send = (url: string, headers: Record<string, string>): Promise<HttpAnswer> => transport({ url, method: "GET", headers, signal, redirect: "manual" });
    expect((await send(`${server.url}a`, { host: "data.example" })).status).toBe(204);
    const withCredentials = server.url.replace("http://", "http://us%40er:p%3Aw@");
    expect((await send(`${withCredentials}b`, {})).status).toBe(204);
    expect(server.requests[0]!.split("\r\n").slice(1)).toEqual(["host: data.example"]);
    expect(server.requests[1]!.split("\r\n").slice(1)).toEqual([`Host: ${new URL(server.url).host}`, `Authorization: Basic ${Buffer.from("us@er:p:w").toString("base64")}`]);
    await expect(send(`${server.url}k`, { range: "bytes=0-1\r\nX-Injected: 1" })).rejects.toMatchObject({ code: "ERR_INVALID_CHAR" });
    await expect(send(`${server.url}k`, { "x-name": "caf\u00e9 \u20ac" })).rejects.toMatchObject({ code: "ERR_INVALID_CHAR" });
    await expect(send(`${server.url}k`, { "content-length": "5" })).rejects.toMatchObject({ code: "ERR_INVALID_HTTP_TOKEN" });
    await expect(send(`${server.url}k`, { "bad name": "1" })).rejects.toMatchObject({ code: "ERR_INVALID_HTTP_TOKEN" });
    expect(server.requests).toHaveLength(2);
    expect(() => nodeHttpTransport({ plainHttp: "udp" as "sockets" })).toThrow(UsageError);
    transport.close();
  });

  it("a URL whose credentials hold a malformed escape fails as with node:http and takes no connection", async () => {
    const server = await scripted((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    const bad = server.url.replace("http://", "http://u:p%zz@");
    await expect(transport({ url: `${bad}a`, method: "GET", headers: {}, signal, redirect: "manual" })).rejects.toBeInstanceOf(URIError);
    // The only connection slot is still free.
    expect(Buffer.from((await bodyOf(`${server.url}b`, transport)).body).toString()).toBe("ok");
    expect(server.requests).toHaveLength(1);
    transport.close();
  });

  it("a peer that is no HTTP server, or a head of bare LFs, fails at once rather than at the timeout", async () => {
    for (const text of ["SSH-2.0-OpenSSH_9.2\r\n", "HTTP/1.1 200 OK\nContent-Length: 0\n\n"]) {
      const server = await scripted((socket) => {
        socket.write(text); // and nothing more: no empty line ever comes
      });
      const store = new HttpStore(server.url, { transport: nodeHttpTransport(), retry: { maxAttempts: 1, timeoutMs: 5000 } });
      const started = Date.now();
      const error = await rejection(store.get("k"));
      expect(Date.now() - started).toBeLessThan(1000);
      expect(((error as StorageError).cause as { code?: string }).code).toBe(text.startsWith("SSH") ? "HPE_INVALID_CONSTANT" : "HPE_CR_EXPECTED");
    }
  });

  it("a tooLong that throws ends the body with its error and frees the connection", async () => {
    const server = await scripted((socket, _request, index) => {
      socket.write(index === 0 ? `HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n${"x".repeat(5000)}` : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    const answer = await transport({ url: `${server.url}a`, method: "GET", headers: {}, signal, redirect: "manual" });
    const error = await rejection(answer.body(100, () => {
      throw new Error("tooLong threw");
    }));
    expect((error as Error).message).toBe("tooLong threw");
    expect(Buffer.from((await bodyOf(`${server.url}b`, transport)).body).toString()).toBe("ok");
    transport.close();
  });

  it("a request right after close() opens a new connection instead of taking a closed one", async () => {
    const server = await scripted((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const transport = nodeHttpTransport();
    await bodyOf(`${server.url}a`, transport);
    transport.close();
    expect(Buffer.from((await bodyOf(`${server.url}b`, transport)).body).toString()).toBe("ok");
    expect(server.connections).toBe(2);
    transport.close();
  });
});
