// The CLI run in this process with captured output: what the command-line tests call.
import { Writable } from "node:stream";
import { runCli } from "../src/program.js";

/** What one `bcolz-ts` invocation printed and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bcolz-ts ...args` in this process and captures both streams. */
export async function cli(...args: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const sink = (append: (s: string) => void): Writable =>
    new Writable({
      write(chunk: Buffer | string, _encoding, callback): void {
        append(String(chunk));
        callback();
      },
    });
  const code = await runCli(args, { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)) });
  return { code, stdout, stderr };
}
