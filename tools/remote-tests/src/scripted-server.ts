// A TCP server on loopback that answers each HTTP request with bytes a test scripts, for tests of
// `nodeHttpTransport`'s own HTTP/1.1 at the wire level: answers split anywhere, malformed,
// ambiguous, or cut short. Every request's text (up to its empty line) is recorded and
// connections are counted.
import { createServer } from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";
import { afterEach } from "vitest";

/** A running scripted server: its URL, the connections it accepted, the requests it saw. */
export interface Scripted {
  url: string;
  connections: number;
  requests: string[];
  /** Closes the server and every connection it has open. */
  close(): Promise<void>;
}

/**
 * Starts a server that hands every request (its text up to the empty line) and its index to
 * `answer`, which writes whatever it likes on the socket.
 *
 * @example
 * ```ts
 * const server = await scripted((socket) => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
 * await server.close();
 * ```
 */
export async function scripted(answer: (socket: Socket, request: string, index: number) => void | Promise<void>): Promise<Scripted> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let text = "";
    socket.on("data", (data: Buffer) => {
      text += data.toString("latin1");
      for (let end = text.indexOf("\r\n\r\n"); end >= 0; end = text.indexOf("\r\n\r\n")) {
        const request = text.slice(0, end);
        text = text.slice(end + 4);
        state.requests.push(request);
        void answer(socket, request, state.requests.length - 1);
      }
    });
  });
  const state: Scripted = {
    url: "",
    connections: 0,
    requests: [],
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return state;
}

/**
 * {@link scripted}, for a test file: each server it starts is closed after the test that
 * started it. Call once, at the top of the file.
 *
 * @example
 * ```ts
 * const scriptedServer = scriptedServersClosedAfterEach();
 * const server = await scriptedServer((socket) => socket.end("HTTP/1.1 204 No Content\r\n\r\n"));
 * ```
 */
export function scriptedServersClosedAfterEach(): typeof scripted {
  const servers: Scripted[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  return async (answer) => {
    const server = await scripted(answer);
    servers.push(server);
    return server;
  };
}

/**
 * Writes `text` one byte at a time, each in a write of its own after a pause.
 *
 * @example
 * ```ts
 * await trickle(socket, "HTTP/1.1 204 No Content\r\n\r\n");
 * ```
 */
export async function trickle(socket: Socket, text: string): Promise<void> {
  for (const byte of Buffer.from(text, "latin1")) {
    socket.write(Buffer.of(byte));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
