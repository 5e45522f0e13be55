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
 * check, hash, count }`: the operation's time as measured inside the program, the sum of the
 * values it read, for a read-all the hash of its result ({@link resultHash}; `undefined` for a
 * sum), and how many values it decoded; it rejects with the program's error line. `version()`
 * resolves to the version of the c-blosc it runs.
 * @param {string} binary
 * @param {NodeJS.ProcessEnv} [env]
 */
export function startNativeCeiling(binary, env = process.env) {
  const child = spawn(binary, [], { stdio: ["pipe", "pipe", "inherit"], env });
  const waiting = [];
  let exited;
  const fail = (error) => {
    exited ??= error;
    for (const w of waiting.splice(0)) w.reject(exited);
  };
  createInterface({ input: child.stdout }).on("line", (line) => {
    const next = waiting.shift();
    if (line.startsWith("ok ")) next?.resolve(line.slice(3).split(" "));
    else next?.reject(new Error(`native_ceiling: ${line}`));
  });
  child.on("error", (error) => fail(new Error(`cannot run ${binary}: ${error.message}`)));
  child.stdin.on("error", (error) => fail(new Error(`native_ceiling's input: ${error.message}`)));
  child.on("exit", (code, signal) => fail(new Error(`native_ceiling exited (code ${code}, signal ${signal})`)));
  const ask = (line) => {
    if (exited) return Promise.reject(exited);
    return new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(`${line}\n`);
    });
  };
  return {
    /** @param {"readall" | "sum"} op @param {string} dir @param {number} threads */
    async run(op, dir, threads) {
      const [ms, check, hash, count] = await ask(`${op} ${threads} ${dir}`);
      return { seconds: Number(ms) / 1000, check: Number(check), hash: hash === "-" ? undefined : Number(hash), count: Number(count) };
    },
    /** The c-blosc version the program runs (the system's libblosc). */
    async version() {
      return (await ask("version")).join(" ");
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

/**
 * The hash native_ceiling.c reports for a read-all: the sum of (i + 1) x the result's 32-bit
 * little-endian word i, modulo 2^32. Exact whatever the values (NaN included) and sensitive to
 * their order.
 * @param {Float64Array} values
 * @returns {number}
 */
export function resultHash(values) {
  const words = new Uint32Array(values.buffer, values.byteOffset, values.length * 2);
  let hash = 0;
  for (let i = 0; i < words.length; i++) hash = (hash + Math.imul(i + 1, words[i])) >>> 0;
  return hash;
}
