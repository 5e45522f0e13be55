#!/usr/bin/env node
// A loopback npm registry for the release rehearsal: verdaccio, started through its programmatic
// API. (Its command-line entry refuses Node.js before 22; the server itself runs on Node 20, which
// this repository supports.) Usage: node registry.mjs CONFIG.yaml PORT. Prints "listening PORT"
// once it accepts connections; stops on SIGTERM or SIGINT, or when its standard input (not a
// terminal) closes.
import { runServer } from "verdaccio";

const [config, port] = process.argv.slice(2);
if (config === undefined || !/^\d+$/.test(port ?? "")) {
  console.error("usage: node registry.mjs CONFIG.yaml PORT");
  process.exit(2);
}
const app = await runServer(config);
const server = app.listen(Number(port), "127.0.0.1", () => console.log(`listening ${port}`));
server.on("error", (e) => {
  console.error(`registry: ${e.message}`);
  process.exit(1);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// Started with a pipe for standard input (as rehearsal.mjs does): stop when it closes, so that the
// registry never outlives a test process that died without stopping it.
if (!process.stdin.isTTY) {
  process.stdin.on("end", stop);
  process.stdin.resume();
}
