/**
 * How the runner talks to an adapter: one process per call (spec/conformance.md §1), or, for an
 * adapter whose `info` lists `"serve"`, a few long-lived `adapter serve` processes that answer one
 * request at a time (§1.5). Starting a process per call costs more than most cases do (Node or
 * Python start-up and module loading, 50–150 ms, against a few milliseconds of reading); `serve`
 * removes that cost and changes nothing else: the same calls, judged the same way.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Readable } from "node:stream";

/** What one adapter call did. */
export interface AdapterExec {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Output kept per stream: enough for error lines and diagnostics, bounded against a flood. */
const MAX_CAPTURE = 1 << 20;

/**
 * Kills an adapter and every process of its group (it was started `detached`, as a group leader),
 * and stops reading its pipes: descendants that escaped the group may still hold them open.
 */
function killGroup(child: ChildProcess & { stdout: Readable; stderr: Readable }): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
  child.stdout.destroy();
  child.stderr.destroy();
}

/**
 * Run `adapter args…` with a time limit, collecting output.
 *
 * The adapter runs in its own process group and the whole group is killed on timeout: a script
 * adapter's children would otherwise keep the output pipes open and the call would never end.
 *
 * @example
 * ```ts
 * const info = await runAdapter("conformance/adapters/reference/adapter", ["info"], 30_000);
 * if (info.code === 0) console.log(JSON.parse(info.stdout).name);
 * ```
 */
export function runAdapter(adapter: string, args: string[], timeoutMs = 60_000): Promise<AdapterExec> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null, extra = ""): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr: stderr + extra, timedOut });
    };
    const child = spawn(adapter, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
      finish(null, "SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      if (stdout.length < MAX_CAPTURE) stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < MAX_CAPTURE) stderr += d.toString();
    });
    child.on("error", (err) => finish(null, null, String(err)));
    child.on("close", (code, signal) => finish(code, signal));
  });
}


/**
 * Something that makes adapter calls: `call(["read", dir, out], timeout)` behaves like running
 * `adapter read dir out` once.
 *
 * @example
 * ```ts
 * const caller = adapterCaller("conformance/adapters/reference/adapter", { serve: true, processes: 2 });
 * const exec = await caller.call(["read", "conformance/corpus/v1/bcolz-real/ctable_addcol/data.bcolz", "/tmp/out"], 60_000);
 * await caller.close();
 * ```
 */
export interface AdapterCaller {
  /** The adapter executable's path. */
  readonly adapter: string;
  /** Make one call; never rejects (a crash, a hang or a start failure is reported in the result). */
  call(args: string[], timeoutMs: number): Promise<AdapterExec>;
  /** End every process still running. */
  close(): Promise<void>;
}

/** An adapter's path (one process per call) or a caller made by {@link adapterCaller}. */
export type AdapterLike = string | AdapterCaller;

/**
 * The caller for an adapter path or caller: a path gets one process per call.
 *
 * @example
 * ```ts
 * const exec = await callerOf("./adapter").call(["info"], 30_000);
 * ```
 */
export function callerOf(adapter: AdapterLike): AdapterCaller {
  return typeof adapter === "string" ? adapterCaller(adapter, { serve: false }) : adapter;
}

/** Choices of {@link adapterCaller}. */
export interface AdapterCallerOptions {
  /** Use `adapter serve` processes (the adapter must list `"serve"` in its info). */
  serve: boolean;
  /** How many `serve` processes at most (calls beyond wait for a free one); default 2. */
  processes?: number;
}

/**
 * A caller for `adapter`: one process per call, or a pool of `serve` processes.
 *
 * @example
 * ```ts
 * const caller = adapterCaller("./adapter", { serve: info.operations.includes("serve"), processes: 2 });
 * ```
 */
export function adapterCaller(adapter: string, options: AdapterCallerOptions): AdapterCaller {
  if (!options.serve) return { adapter, call: (args, timeoutMs) => runAdapter(adapter, args, timeoutMs), close: () => Promise.resolve() };
  return new ServePool(adapter, Math.max(1, options.processes ?? 2));
}

/** One request in flight on a serve process. */
interface Pending {
  id: number;
  stderr: string;
  finish: (exec: AdapterExec) => void;
}

/** One `adapter serve` process: requests one at a time, in order. */
class ServeProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private pending: Pending | undefined;
  private lineBuffer = "";
  private nextId = 1;
  /** False once the process ended or was killed; a dead process takes no more requests. */
  alive = true;

  constructor(adapter: string) {
    // Its own process group, so a hang kills every process the adapter started (as for one call).
    this.child = spawn(adapter, ["serve"], { stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.child.stdout.setEncoding("utf8");
    this.child.stderr.setEncoding("utf8");
    this.child.stdout.on("data", (text: string) => this.onStdout(text));
    this.child.stderr.on("data", (text: string) => {
      if (this.pending && this.pending.stderr.length < MAX_CAPTURE) this.pending.stderr += text;
    });
    // A write to a process that has ended fails with EPIPE; the close handler reports the crash.
    this.child.stdin.on("error", () => undefined);
    this.child.on("error", (err) => this.end(null, null, String(err)));
    this.child.on("close", (code, signal) => this.end(code, signal, ""));
  }

  request(args: string[], timeoutMs: number): Promise<AdapterExec> {
    return new Promise((resolve) => {
      if (!this.alive) {
        resolve({ code: null, signal: null, stdout: "", stderr: "the serve process had already ended", timedOut: false });
        return;
      }
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.kill();
        pending.finish({ code: null, signal: "SIGKILL", stdout: "", stderr: pending.stderr, timedOut: true });
      }, timeoutMs);
      const pending: Pending = {
        id,
        stderr: "",
        finish: (exec) => {
          if (this.pending !== pending) return;
          this.pending = undefined;
          clearTimeout(timer);
          resolve(exec);
        },
      };
      this.pending = pending;
      this.child.stdin.write(`${JSON.stringify({ id, argv: args })}\n`);
    });
  }

  private onStdout(text: string): void {
    this.lineBuffer += text;
    let newline: number;
    while ((newline = this.lineBuffer.indexOf("\n")) >= 0) {
      const line = this.lineBuffer.slice(0, newline);
      this.lineBuffer = this.lineBuffer.slice(newline + 1);
      if (line.trim() !== "") this.onLine(line);
    }
    if (this.lineBuffer.length > MAX_CAPTURE) this.protocolError(`a line of more than ${MAX_CAPTURE} bytes on standard output`);
  }

  private onLine(line: string): void {
    let answer: { id?: unknown; status?: unknown; stdout?: unknown };
    try {
      answer = JSON.parse(line) as typeof answer;
    } catch {
      this.protocolError(`standard output carried a line that is not a JSON answer: ${JSON.stringify(line.slice(0, 120))}`);
      return;
    }
    const pending = this.pending;
    if (pending === undefined || answer.id !== pending.id) {
      this.protocolError(`an answer with id ${JSON.stringify(answer.id)} while ${pending ? `request ${pending.id}` : "no request"} was waiting`);
      return;
    }
    if (!Number.isInteger(answer.status) || (answer.stdout !== undefined && typeof answer.stdout !== "string")) {
      this.protocolError(`an answer without an integer status or with a non-string stdout: ${JSON.stringify(line.slice(0, 120))}`);
      return;
    }
    pending.finish({ code: answer.status as number, signal: null, stdout: typeof answer.stdout === "string" ? answer.stdout : "", stderr: pending.stderr, timedOut: false });
  }

  /** A broken answer: the call in flight is a crash and the process is not trusted again. */
  private protocolError(why: string): void {
    const pending = this.pending;
    this.kill();
    pending?.finish({ code: null, signal: null, stdout: "", stderr: `${pending.stderr}\nserve protocol error (spec/conformance.md §1.5): ${why}`, timedOut: false });
  }

  private end(code: number | null, signal: NodeJS.Signals | null, extra: string): void {
    this.alive = false;
    const pending = this.pending;
    // The process ended with a request in flight: that call crashed, with the process's status
    // (a clean exit 0 in the middle of a request is still a crash, hence null).
    pending?.finish({ code: code === 0 ? null : code, signal, stdout: "", stderr: `${pending.stderr}${extra}\nthe serve process ended while answering`, timedOut: false });
  }

  kill(): void {
    this.alive = false;
    killGroup(this.child);
  }

  /** Ask the process to end (end of its standard input), killing it if it has not after a while. */
  async close(): Promise<void> {
    if (!this.alive) return;
    const ended = new Promise<void>((resolve) => this.child.once("close", () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.kill(), 5_000);
    await ended;
    clearTimeout(timer);
  }
}

/** Up to `size` serve processes; a call takes an idle one, starting one when fewer are running. */
class ServePool implements AdapterCaller {
  private readonly idle: ServeProcess[] = [];
  private readonly all = new Set<ServeProcess>();
  private readonly waiting: ((process: ServeProcess) => void)[] = [];

  constructor(
    readonly adapter: string,
    private readonly size: number,
  ) {}

  private acquire(): Promise<ServeProcess> {
    while (this.idle.length > 0) {
      const process = this.idle.pop()!;
      if (process.alive) return Promise.resolve(process);
      this.all.delete(process);
    }
    if (this.all.size < this.size) {
      const process = new ServeProcess(this.adapter);
      this.all.add(process);
      return Promise.resolve(process);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(process: ServeProcess): void {
    if (!process.alive) {
      // A crashed or killed process is replaced by a fresh one for the next call.
      this.all.delete(process);
      const waiter = this.waiting.shift();
      if (waiter) {
        const fresh = new ServeProcess(this.adapter);
        this.all.add(fresh);
        waiter(fresh);
      }
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter) waiter(process);
    else this.idle.push(process);
  }

  async call(args: string[], timeoutMs: number): Promise<AdapterExec> {
    const process = await this.acquire();
    try {
      return await process.request(args, timeoutMs);
    } finally {
      this.release(process);
    }
  }

  async close(): Promise<void> {
    const processes = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(processes.map((p) => p.close()));
  }
}
