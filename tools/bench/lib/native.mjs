// Client for native.py: a long-lived /usr/bin/python3 child speaking one JSON object per line.
// Requests are strictly sequential, so each reply answers the oldest pending request.
import { spawn } from "node:child_process";
import { basename } from "node:path";
import { createInterface } from "node:readline";

/**
 * Start native.py and return `{ request(obj): Promise<object>, close(): Promise<void> }`.
 * @param {string} scriptPath
 * @param {string} python interpreter with blosc and numpy (Debian's /usr/bin/python3)
 * @param {NodeJS.ProcessEnv} [env] its environment (default: this process's)
 * @param {string} [name] what errors call the child (default: the script's file name)
 */
export function startNative(scriptPath, python, env = process.env, name = basename(scriptPath)) {
  const child = spawn(python, [scriptPath], { stdio: ["pipe", "pipe", "inherit"], env });
  const waiting = [];
  let exitError;
  const fail = (error) => {
    exitError = error;
    while (waiting.length) waiting.shift().reject(error);
  };
  child.on("error", (error) => fail(new Error(`cannot start ${python}: ${error.message}`)));
  child.on("exit", (code, signal) => fail(new Error(`${name} exited (code ${code}, signal ${signal})`)));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const next = waiting.shift();
    if (!next) return;
    try {
      next.resolve(JSON.parse(line));
    } catch {
      next.reject(new Error(`${name} printed something that is not JSON: ${line.slice(0, 200)}`));
    }
  });
  return {
    request(message) {
      if (exitError) return Promise.reject(exitError);
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify(message)}\n`);
      });
    },
    async close() {
      if (exitError) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end(`${JSON.stringify({ cmd: "quit" })}\n`);
      await exited;
    },
  };
}

/** Split a concatenation of Blosc chunks by each header's cbytes (bytes 12..15, little-endian). */
export function splitChunks(bytes) {
  const chunks = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes.length - offset < 16) throw new Error(`trailing ${bytes.length - offset} bytes at ${offset}`);
    const cbytes = view.getUint32(offset + 12, true);
    if (cbytes < 16 || offset + cbytes > bytes.length) throw new Error(`bad cbytes ${cbytes} at ${offset}`);
    // A copy per chunk, so each chunk owns its ArrayBuffer (as it would after reading a file),
    // and a worker pool that transfers buffers cannot detach its neighbours.
    chunks.push(bytes.slice(offset, offset + cbytes));
    offset += cbytes;
  }
  return chunks;
}
