// The request body of a proxied request, sent on to the upstream: shared by the test proxies
// (fault-proxy.ts, counting-proxy.ts) so that a client going away never leaves a half request
// open at the server behind them.
import type { ClientRequest, IncomingMessage } from "node:http";

/**
 * Pipes a proxied request's body to the upstream request and destroys the upstream request if
 * the client's request closes before all of its body has been passed on: a half request left
 * open at the upstream holds that server's close() for Node's 300 s request timeout.
 * (`readableEnded`, not `complete`: a body the parser received whole but that still waits behind
 * the upstream's backpressure has not been passed on.)
 *
 * @example
 * const upstream = request({ host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers });
 * pipeBody(req, upstream);
 */
export function pipeBody(req: IncomingMessage, upstream: ClientRequest): void {
  req.on("close", () => {
    if (!req.readableEnded) upstream.destroy();
  });
  req.pipe(upstream);
}
