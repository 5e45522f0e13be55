/**
 * The commands of the reference conformance adapter (spec/conformance.md §1): the dispatch of
 * `info`, `read`, `write` and `where`, and `serve` (§1.5), which answers the same calls, one JSON
 * line each, from one long-lived process.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isBcolzError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { openCtable } from "@fmt/store";
import { ADAPTER_INFO, readDatasetToDir, writeDatasetFromCase } from "./adapter.js";

/**
 * Where a command writes its standard output and standard error: the process's streams for one
 * call, a buffer for a call answered by `serve`.
 *
 * @example
 * ```ts
 * let out = "";
 * const io: AdapterIO = { stdout: (t) => (out += t), stderr: (t) => process.stderr.write(t) };
 * ```
 */
export interface AdapterIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const PROCESS_IO: AdapterIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

const USAGE =
  "usage: adapter info | adapter read DATASET_DIR OUT_DIR | adapter write CASE_JSON DATASET_DIR | adapter where DATASET_DIR EXPRESSION OUT_DIR | adapter serve\n";

/**
 * `where DATASET_DIR EXPRESSION OUT_DIR` (spec/conformance.md §1.4): writes the matching row
 * numbers, increasing, as a JSON list to `OUT_DIR/rows.json`. A refused expression or an invalid
 * dataset throws the typed error.
 *
 * @example
 * ```ts
 * await queryToDir("corpus/v1/where/table/data.bcolz", "a > 3", "/tmp/out"); // /tmp/out/rows.json
 * ```
 */
export async function queryToDir(datasetDir: string, expression: string, outDir: string): Promise<void> {
  const table = await openCtable(new FileSystemStore(datasetDir), "");
  const rows = await table.where(expression, { as: "indices" });
  await mkdir(outDir, { recursive: true });
  // A Float64Array: JSON.stringify would write it as an object keyed by position.
  await writeFile(join(outDir, "rows.json"), `${JSON.stringify(Array.from(rows))}\n`);
}

/**
 * Run one adapter call; resolves to its exit status (0, 3 with the error line on `io.stdout`, 2 on
 * bad usage). An error that is not a format error rejects: the caller reports it as a crash.
 *
 * @example
 * ```ts
 * process.exitCode = await runAdapterCommand(["info"]);
 * ```
 */
export async function runAdapterCommand(argv: string[], io: AdapterIO = PROCESS_IO): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "info" && rest.length === 0) {
    io.stdout(`${JSON.stringify(ADAPTER_INFO)}\n`);
    return 0;
  }
  const run =
    command === "read" && rest.length === 2
      ? () => readDatasetToDir(rest[0]!, rest[1]!)
      : command === "write" && rest.length === 2
        ? () => writeDatasetFromCase(rest[0]!, rest[1]!)
        : command === "where" && rest.length === 3
          ? () => queryToDir(rest[0]!, rest[1]!, rest[2]!)
          : undefined;
  if (run === undefined) {
    io.stderr(USAGE);
    return 2;
  }
  try {
    await run();
    return 0;
  } catch (err) {
    if (isBcolzError(err)) {
      io.stdout(`${JSON.stringify({ code: err.code, message: err.message })}\n`);
      return 3;
    }
    throw err;
  }
}

/**
 * `adapter serve` (spec/conformance.md §1.5): reads requests `{"id", "argv"}`, one JSON object
 * per line, from `input`, runs each as {@link runAdapterCommand} would in its own process, and
 * writes one answer line `{"id", "status", "stdout"}` per request, in order, to `answer`. A call
 * that throws answers status 1 and prints its stack to standard error, as a crashed process
 * would; the loop goes on. Nothing is kept from one call to the next but loaded code.
 * Resolves when `input` ends.
 *
 * @example
 * ```ts
 * await serveAdapter(process.stdin, (line) => process.stdout.write(line));
 * ```
 */
export async function serveAdapter(input: NodeJS.ReadableStream, answer: (line: string) => void): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let request: { id?: unknown; argv?: unknown };
    try {
      request = JSON.parse(line) as typeof request;
    } catch {
      process.stderr.write(`serve: a request line that is not JSON: ${JSON.stringify(line.slice(0, 120))}\n`);
      answer(`${JSON.stringify({ id: null, status: 2, stdout: "" })}\n`);
      continue;
    }
    const argv = request.argv;
    let stdout = "";
    let status: number;
    if (!Array.isArray(argv) || !argv.every((a): a is string => typeof a === "string") || argv[0] === "serve") {
      process.stderr.write("serve: argv must be a list of strings naming a call other than serve\n");
      status = 2;
    } else {
      try {
        status = await runAdapterCommand(argv, { stdout: (t) => (stdout += t), stderr: (t) => void process.stderr.write(t) });
      } catch (err) {
        process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        status = 1;
      }
    }
    answer(`${JSON.stringify({ id: request.id, status, stdout })}\n`);
  }
}
