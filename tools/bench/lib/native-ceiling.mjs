// Building and driving native_ceiling.c (c-blosc from C, one or two threads), for
// tools/bench/ceiling.mjs and its test.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "..", "native_ceiling.c");
/** C compilers tried in turn (a machine with only g++ compiles the file as C). */
const COMPILERS = [["gcc"], ["cc"], ["g++", "-x", "c"]];

/**
 * Compiles native_ceiling.c into `binary` unless that is newer than the source, against the
 * system's libblosc (python3-blosc's library; no development package needed). Returns `binary`.
 * @param {string} binary
 */
export function buildNativeCeiling(binary) {
  if (existsSync(binary) && statSync(binary).mtimeMs > statSync(SOURCE).mtimeMs) return binary;
  mkdirSync(dirname(binary), { recursive: true });
  const failures = [];
  for (const [compiler, ...flags] of COMPILERS) {
    const built = spawnSync(compiler, [...flags, "-O2", "-o", binary, SOURCE, "-x", "none", "-l:libblosc.so.1", "-lpthread"], { encoding: "utf8" });
    if (built.status === 0) return binary;
    failures.push(`${compiler}: ${built.error?.message ?? built.stderr.trim().split("\n").slice(-3).join(" / ")}`);
  }
  throw new Error(`could not build ${SOURCE} (needs a C compiler and libblosc1, python3-blosc's library):\n${failures.join("\n")}`);
}

/**
 * Starts the built program as a line server. `run(op, dir, threads)` resolves to `{ seconds,
 * check, words }`: the operation's time as measured inside the program, the sum of the values it
 * read, and for a read-all the sum of their 64-bit words modulo 2^64 (a bigint; `undefined` for a
 * sum); it rejects with the program's error line.
 * @param {string} binary
 * @param {NodeJS.ProcessEnv} [env]
 */
export function startNativeCeiling(binary, env = process.env) {
  const child = spawn(binary, [], { stdio: ["pipe", "pipe", "inherit"], env });
  const waiting = [];
  let exited;
  createInterface({ input: child.stdout }).on("line", (line) => {
    const next = waiting.shift();
    const [status, ms, check, words] = line.split(" ");
    if (status === "ok") next?.resolve({ seconds: Number(ms) / 1000, check: Number(check), words: words === "-" ? undefined : BigInt(words) });
    else next?.reject(new Error(`native_ceiling: ${line}`));
  });
  child.on("exit", (code, signal) => {
    exited = new Error(`native_ceiling exited (code ${code}, signal ${signal})`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  return {
    /** @param {"readall" | "sum"} op @param {string} dir @param {number} threads */
    run(op, dir, threads) {
      if (exited) return Promise.reject(exited);
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${op} ${dir} ${threads}\n`);
      });
    },
    /** Ends the program; resolves once it has exited. */
    close() {
      if (exited) return Promise.resolve();
      const done = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end("quit\n");
      return done;
    },
  };
}
