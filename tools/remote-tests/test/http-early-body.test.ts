// `nodeHttpTransport`'s own sockets reading a body straight into the buffer its request offers
// (`HttpRequest.into`, which `HttpStore.getInto` and the S3 store's reads pass): the body of a
// 200 or 206 answer whose Content-Length fits is read there as it arrives, before `body` is
// called, and mostly straight from the socket. A scripted TCP server on loopback writes the
// answers, split anywhere; the tests check the body, that it is a view of the offered buffer,
// that the buffer is left alone when it may not be used (an error answer, a longer or encoded
// body), and that every failure on the way still fails, is retried, and frees the connection.
import type { Socket } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HttpStore } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import type { NodeHttpTransport } from "@fmt/fs-adapters/http-node";
import type { HttpAnswer, HttpTransport } from "@fmt/fs-adapters/http";
import { rejection } from "../src/rejection.js";
import { scriptedServersClosedAfterEach } from "../src/scripted-server.js";

const scripted = scriptedServersClosedAfterEach();

const never = new AbortController().signal;
const FILL = 0xee;

/** Bytes 0, 1, …, 250, 0, 1, … (a period prime to the powers of two, so shifted copies differ). */
function pattern(length: number, start = 0): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (start + i) % 251;
  return bytes;
}

/** Writes `bytes` in pieces cut at `cuts` (offsets), pausing `pauseMs` between them. */
async function writeInPieces(socket: Socket, bytes: Buffer, cuts: number[], pauseMs: number): Promise<void> {
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (cut <= at) continue;
    socket.write(bytes.subarray(at, cut));
    at = cut;
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

function answerText(status: number, body: Buffer, extra = ""): Buffer {
  const reason = status === 200 ? "OK" : status === 206 ? "Partial Content" : status === 404 ? "Not Found" : "Error";
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${body.length}\r\n${extra}\r\n`, "latin1"), body]);
}

function request(transport: HttpTransport, url: string, into?: Uint8Array, signal = never): Promise<HttpAnswer> {
  return transport({ url, method: "GET", headers: {}, signal, redirect: "manual", ...(into === undefined ? {} : { into }) });
}

const tooLong = (n: number): Error => new Error(`too long: ${n}`);

/**
 * The 200 answer of a scripted server to a request offering a buffer 10 bytes longer than its
 * body (filled with FILL), the body one byte past the 16 MiB that is read early (PREALLOCATE_LIMIT).
 */
async function bodyPastLimit(): Promise<{ length: number; body: Buffer; transport: NodeHttpTransport; into: Uint8Array; answer: HttpAnswer }> {
  const length = 16 * 1024 * 1024 + 1;
  const body = pattern(length);
  const server = await scripted((socket) => {
    socket.write(answerText(200, body));
  });
  const transport = nodeHttpTransport();
  const into = new Uint8Array(length + 10).fill(FILL);
  return { length, body, transport, into, answer: await request(transport, `${server.url}big`, into) };
}

describe("nodeHttpTransport reads a body into the buffer its request offers", () => {
  it("a body split anywhere, asked for at once or after it came, is a view of the buffer, and the rest of the buffer is untouched", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: -2, max: 50_000 }),
        fc.constantFrom(200, 206),
        fc.array(fc.integer({ min: 1, max: 200_100 }), { maxLength: 6 }),
        fc.constantFrom(0, 2),
        fc.boolean(),
        async (length, spare, status, cuts, pauseMs, late) => {
          const body = pattern(length, length);
          const server = await scripted((socket) => writeInPieces(socket, answerText(status, body), cuts, pauseMs));
          const transport = nodeHttpTransport();
          try {
            const into = new Uint8Array(Math.max(0, length + spare)).fill(FILL);
            for (let round = 0; round < 2; round++) {
              into.fill(FILL);
              const answer = await request(transport, `${server.url}k${round}`, into);
              expect(answer.status).toBe(status);
              const fits = length <= into.length;
              // Not asked for yet, a body that fits comes into the buffer all the same.
              if (late && fits) await expect.poll(() => Buffer.from(into.subarray(0, length)).equals(body)).toBe(true);
              const got = await answer.body(1 << 20, tooLong, into);
              expect(Buffer.from(got).equals(body)).toBe(true);
              expect(got.buffer === into.buffer).toBe(fits);
              if (fits) {
                expect(got.byteOffset).toBe(into.byteOffset);
                expect(into.subarray(length).every((b) => b === FILL)).toBe(true);
              } else {
                expect(into.every((b) => b === FILL)).toBe(true);
              }
            }
            // Both answers on one kept-alive connection.
            expect(server.connections).toBe(1);
          } finally {
            transport.close();
            await server.close();
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it("leaves the buffer alone for an error answer, a content-encoded body or a redirect", async () => {
    const body = pattern(40_000);
    const server = await scripted((socket, _request, index) => {
      const texts = [
        answerText(404, body),
        answerText(500, body),
        answerText(200, body, "Content-Encoding: gzip\r\n"),
        answerText(302, body, "Location: /elsewhere\r\n"),
      ];
      socket.write(texts[index % texts.length]!);
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    const into = new Uint8Array(50_000).fill(FILL);
    for (const status of [404, 500]) {
      const answer = await request(transport, `${server.url}k`, into);
      expect(answer.status).toBe(status);
      // What the store does with an error answer (a 404 is "missing", a 500 is retried).
      await answer.discard();
      expect(into.every((b) => b === FILL)).toBe(true);
    }
    const encoded = await request(transport, `${server.url}k`, into);
    expect((await rejection(encoded.body(1 << 20, tooLong, into))) as Error).toHaveProperty("message", expect.stringMatching(/gzip-encoded/));
    expect(into.every((b) => b === FILL)).toBe(true);
    const redirect = await request(transport, `${server.url}k`, into);
    expect(redirect.status).toBe(302);
    await redirect.discard();
    expect(into.every((b) => b === FILL)).toBe(true);
    transport.close();
  });

  it("reads into the request's buffer whatever buffer body is given, and on a connection the server closes after the answer", async () => {
    const body = pattern(60_000);
    const server = await scripted((socket, _request, index) => {
      if (index === 2) socket.end(answerText(200, body, "Connection: close\r\n"));
      else socket.write(answerText(206, body));
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    for (const other of [undefined, new Uint8Array(100_000)]) {
      const into = new Uint8Array(70_000);
      const answer = await request(transport, `${server.url}k`, into);
      const got = await answer.body(1 << 20, tooLong, other);
      expect(Buffer.from(got).equals(body)).toBe(true);
      expect(got.buffer).toBe(into.buffer);
      if (other !== undefined) expect(other.every((b) => b === 0)).toBe(true);
    }
    expect(server.connections).toBe(1);
    const into = new Uint8Array(60_000);
    const closing = await request(transport, `${server.url}c`, into);
    await expect.poll(() => Buffer.from(into).equals(body)).toBe(true);
    expect(Buffer.from(await closing.body(1 << 20, tooLong, into)).equals(body)).toBe(true);
    const after = await request(transport, `${server.url}d`, into);
    expect(Buffer.from(await after.body(1 << 20, tooLong, into)).equals(body)).toBe(true);
    expect(server.connections).toBe(2);
    transport.close();
  });

  it("does not read early a body past 16 MiB (PREALLOCATE_LIMIT), even into a buffer that would hold it; asked for, the body goes there", async () => {
    const { length, body, transport, into, answer } = await bodyPastLimit();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(into.every((b) => b === FILL)).toBe(true);
    const got = await answer.body(length, tooLong, into);
    // Nothing is allocated for it: the caller's buffer holds it.
    expect([got.buffer === into.buffer, got.byteOffset, got.length]).toEqual([true, 0, length]);
    expect(Buffer.from(got).equals(body)).toBe(true);
    expect(into[length]).toBe(FILL);
    transport.close();
  });

  it("a body past 16 MiB announcing more than the cap is refused with the caller's error, the buffer that would hold it untouched", async () => {
    const { length, transport, into, answer } = await bodyPastLimit();
    expect(((await rejection(answer.body(length - 1, tooLong, into))) as Error).message).toBe(`too long: ${length}`);
    expect(into.every((b) => b === FILL)).toBe(true);
    transport.close();
  });

  it("a body announcing more than the cap is refused with the caller's error and the connection closed", async () => {
    const body = pattern(30_000);
    const server = await scripted((socket) => {
      socket.write(answerText(200, body));
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    const into = new Uint8Array(40_000);
    const answer = await request(transport, `${server.url}a`, into);
    expect(((await rejection(answer.body(1000, tooLong, into))) as Error).message).toBe("too long: 30000");
    // The only connection was closed: the next request opens another.
    const again = await request(transport, `${server.url}b`, into);
    expect(Buffer.from(await again.body(1 << 20, tooLong, into)).equals(body)).toBe(true);
    expect(server.connections).toBe(2);
    transport.close();
  });

  it("a body cut short by the server's close fails as a premature close, asked for before or after it failed; the store retries it", async () => {
    const body = pattern(100_000);
    const server = await scripted((socket, _request, index) => {
      // The first three connections end after a third of the body; then whole answers.
      if (index < 3) socket.end(answerText(200, body).subarray(0, 33_000));
      else socket.write(answerText(200, body));
    });
    const transport = nodeHttpTransport();
    const into = new Uint8Array(100_000);
    const early = await request(transport, `${server.url}a`, into);
    const cut = await rejection(early.body(1 << 20, tooLong, into));
    expect(cut).toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
    const late = await request(transport, `${server.url}b`, into);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rejection(late.body(1 << 20, tooLong, into))).toMatchObject({ code: "ERR_STREAM_PREMATURE_CLOSE" });
    const store = new HttpStore(server.url, { transport, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const spare = new Uint8Array(120_000);
    const got = await store.getInto("c", spare);
    expect(Buffer.from(got!).equals(body)).toBe(true);
    expect(got!.buffer).toBe(spare.buffer);
    expect(store.stats.retries).toBe(1);
    transport.close();
  });

  it("bytes after the body leave it good and the connection unused afterwards, even by a request queued for it", async () => {
    const body = pattern(50_000);
    const server = await scripted((socket) => {
      socket.write(Buffer.concat([answerText(200, body), Buffer.from("STRAY")]));
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    const intos = [new Uint8Array(50_000), new Uint8Array(60_000)];
    const bodies = await Promise.all(intos.map(async (into, i) => (await request(transport, `${server.url}${i}`, into)).body(1 << 20, tooLong, into)));
    for (const got of bodies) expect(Buffer.from(got).equals(body)).toBe(true);
    expect(server.connections).toBe(2);
    transport.close();
  });

  it("a short body dropped unread is read to its end and the connection kept; a long one closes it", async () => {
    const server = await scripted((socket, request) => {
      const length = request.startsWith("GET /short") ? 20_000 : 300_000;
      void writeInPieces(socket, answerText(200, pattern(length)), [10_000, 150_000], 2);
    });
    const transport = nodeHttpTransport({ maxSockets: 1 });
    const into = new Uint8Array(400_000);
    await (await request(transport, `${server.url}short`, into)).discard();
    const kept = await request(transport, `${server.url}short2`, into);
    expect(Buffer.from(await kept.body(1 << 20, tooLong, into)).equals(pattern(20_000))).toBe(true);
    expect(server.connections).toBe(1);
    await (await request(transport, `${server.url}long`, into)).discard();
    const next = await request(transport, `${server.url}short3`, into);
    expect(Buffer.from(await next.body(1 << 20, tooLong, into)).equals(pattern(20_000))).toBe(true);
    expect(server.connections).toBe(2);
    transport.close();
  });

  it("an abort while the body comes fails it with the signal's reason and closes the connection", async () => {
    const body = pattern(200_000);
    const server = await scripted((socket) => {
      // Half the body, then nothing more.
      socket.write(answerText(200, body).subarray(0, 100_000));
    });
    const transport = nodeHttpTransport();
    const controller = new AbortController();
    const into = new Uint8Array(200_000);
    const answer = await request(transport, `${server.url}k`, into, controller.signal);
    const pending = answer.body(1 << 20, tooLong, into);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error("stop here"));
    expect(((await rejection(pending)) as Error).message).toBe("stop here");
    const again = await request(transport, `${server.url}k`, into);
    expect(again.status).toBe(200);
    expect(server.connections).toBe(2);
    transport.close();
  });
});
