/**
 * The `bcolz-ts` command line: commands, options, help texts and exit codes, built on commander.
 *
 * Exit codes: 0 success (also when the reader of stdout closes the pipe early), 1 internal
 * error, 2 bad usage (unknown command or option, bad argument value, bad expression), 3 a
 * format or data error (printed as `error CODE: message`; `validate` exits 3 when it finds any
 * problem).
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { isBcolzError, UsageError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { open } from "@fmt/store";
import type { CArray, ConvertOptions, CTable } from "@fmt/store";
import { parseCount, parseInteger, parseList, parsePositive, resolveSlice } from "./args.js";
import { exportDataset } from "./export.js";
import type { ExportFormat } from "./export.js";
import { importFile } from "./import.js";
import { describeDataset, renderInfo } from "./info.js";
import { ClosedPipe, LineSink } from "./output-stream.js";
import { toStrictJson } from "./output.js";
import { compactDirectory, convertDirectory, renderVerifyReport, verifyDirectory } from "./maintain.js";
import { requireDatasetDir } from "./paths.js";
import { makeProgress } from "./progress.js";
import { streamRows } from "./rows.js";
import { runUnlockCommand, UNLOCK_HELP } from "./unlock.js";
import { renderReport, validateDataset } from "./validate.js";
import { runWhereCommand } from "./where-command.js";
import { runSqlCommand } from "./sql.js";

/**
 * Where the CLI writes; the process streams in the bin, capturing streams in tests.
 *
 * @example
 * ```ts
 * const streams: CliStreams = { stdout: process.stdout, stderr: process.stderr };
 * ```
 */
export interface CliStreams {
  /** Standard output. */
  stdout: NodeJS.WritableStream;
  /** Standard error. */
  stderr: NodeJS.WritableStream;
}

/** Thrown inside actions to end with a given exit code after output was written. */
class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

const EXIT_CODES_HELP = `
Exit codes:
  0  success (also when the reader closes the output pipe early, e.g. "| head")
  1  internal error
  2  bad usage: unknown command or option, bad argument value, bad expression
  3  format or data error, printed as "error CODE: message" (validate: problems found)`;

async function openDataset(dir: string): Promise<CArray | CTable> {
  await requireDatasetDir(dir);
  const dataset = await open(new FileSystemStore(dir), "");
  // A vlarray root alone (spec/v2.md §12) is read through the store API; the commands take carrays and tables (vlarray columns included).
  if (dataset.kind === "vlarray") throw new UsageError("INVALID_ARGUMENT", "this command reads carrays and ctables; the dataset is a vlarray", { field: "dir", actual: "vlarray" });
  return dataset;
}

function sliceOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--start <n>", "first row; negative counts from the end").argParser(parseInteger))
    .addOption(new Option("--stop <n>", "one past the last row; negative counts from the end").argParser(parseInteger))
    .addOption(new Option("--step <n>", "take every n-th row (>= 1)").argParser(parsePositive))
    .option("--columns <list>", "ctable: comma-separated columns to print", parseList)
    .option("--json", "one JSON value (carray) or object (ctable) per line");
}

interface RowOptions {
  start?: number;
  stop?: number;
  step?: number;
  columns?: string[];
  json?: boolean;
}

async function printRows(dir: string, opts: RowOptions, out: LineSink, limit?: number): Promise<void> {
  const dataset = await openDataset(dir);
  if (opts.columns !== undefined && dataset.kind === "carray") throw new UsageError("INVALID_ARGUMENT", "--columns applies to a ctable only", { field: "columns" });
  let slice = resolveSlice(dataset.length, opts.start, opts.stop, opts.step ?? 1);
  if (limit !== undefined && slice.count > limit) slice = resolveSlice(dataset.length, slice.start, slice.start + limit * slice.step, slice.step);
  for await (const text of streamRows(dataset, slice, opts.json === true ? "json" : "text", opts.columns)) await out.write(text);
}

/**
 * Runs `bcolz-ts` with `argv` (the arguments after the program name) and resolves to the exit
 * code; output goes to `streams`.
 *
 * @example
 * ```ts
 * const code = await runCli(["info", "/data/prices.bcolz"], { stdout: process.stdout, stderr: process.stderr });
 * ```
 */
export async function runCli(argv: readonly string[], streams: CliStreams): Promise<number> {
  if (argv[0] === "adapter") {
    const { runAdapterCommand } = await import("./adapter.js");
    return runAdapterCommand(argv.slice(1));
  }
  const out = new LineSink(streams.stdout);
  const program = new Command("bcolz-ts");
  program
    .description("Inspect, dump, query, validate, export and import bcolz datasets (carray and ctable directories).")
    .version(packageVersion(), "-V, --version", "print the version")
    .exitOverride()
    .configureOutput({ writeOut: (s) => streams.stdout.write(s), writeErr: (s) => streams.stderr.write(s) })
    .showSuggestionAfterError(true)
    .addHelpText("after", `${EXIT_CODES_HELP}\n\nThe conformance adapter (spec/conformance.md): bcolz-ts adapter info | read DIR OUT | write CASE_JSON DIR`);

  program
    .command("info")
    .description("print what a dataset is: kind, format version, dtype, shape, chunks, sizes, codec, attrs; a column table for ctables")
    .argument("<dir>", "dataset directory")
    .option("--json", "print the description as JSON")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string, opts: { json?: boolean }) => {
      const info = await describeDataset(await openDataset(dir));
      await out.write(opts.json === true ? `${toStrictJson(info)}\n` : renderInfo(info));
    });

  sliceOptions(
    program
      .command("cat")
      .description("print rows (one per line, ctable columns tab-separated), optionally a slice with Python semantics")
      .argument("<dir>", "dataset directory")
      .argument("[start]", "first row (same as --start)", parseInteger)
      .argument("[stop]", "one past the last row (same as --stop)", parseInteger),
  )
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string, start: number | undefined, stop: number | undefined, opts: RowOptions) => {
      await printRows(dir, { ...opts, start: opts.start ?? start, stop: opts.stop ?? stop }, out);
    });

  sliceOptions(
    program
      .command("head")
      .description("print the first rows (10 by default)")
      .argument("<dir>", "dataset directory")
      .addOption(new Option("-n, --lines <n>", "number of rows").argParser(parseCount).default(10)),
  )
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string, opts: RowOptions & { lines: number }) => {
      await printRows(dir, opts, out, opts.lines);
    });

  program
    .command("validate")
    .description("check metadata, decode every chunk, compare sizes; report every problem (exit 3 if any)")
    .argument("<dir>", "dataset directory")
    .option("--json", "print the report as JSON")
    .option("--no-progress", "never show a progress bar")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string, opts: { json?: boolean; progress: boolean }) => {
      const progress = makeProgress("validating", opts.progress && opts.json !== true);
      let report;
      try {
        await requireDatasetDir(dir);
        report = await validateDataset(new FileSystemStore(dir), progress);
      } finally {
        progress.stop();
      }
      await out.write(opts.json === true ? `${toStrictJson(report)}\n` : renderReport(report));
      if (!report.ok) throw new ExitCode(3);
    });

  program
    .command("where")
    .description("print the rows of a ctable that satisfy an expression, e.g. 'price > 10 & qty < 5'")
    .argument("<dir>", "ctable directory")
    .argument("<expr>", "expression over column names (comparisons, & | ~, arithmetic)")
    .option("--columns <list>", "comma-separated columns to print (default: all)", parseList)
    .addOption(new Option("--limit <n>", "stop after n matches").argParser(parseCount))
    .option("--count", "print only the number of matches")
    .option("--json", "one JSON object per matching row, with its row number in _row")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string, expr: string, opts: { columns?: string[]; limit?: number; count?: boolean; json?: boolean }) => {
      await runWhereCommand(await openDataset(dir), expr, opts, out);
    });

  program
    .command("export")
    .description("write a dataset to .npy (a ctable as a structured array), .csv (a ctable with a typed header, name:dtype, that import reads back exactly), .jsonl, an Arrow IPC file (--format arrow) or Parquet (--format parquet, needs @fmt/duckdb)")
    .argument("<dir>", "dataset directory")
    .requiredOption("--to <file>", "output file; the extension (.npy, .csv, .jsonl, .arrow, .parquet) picks the format unless --format is given; - writes to standard output (with --as)")
    .addOption(new Option("--format <format>", "the output format: parquet, arrow (an Arrow IPC file), npy, csv or jsonl").choices(["parquet", "arrow", "npy", "csv", "jsonl"]))
    .addOption(new Option("--as <format>", "the format, for --to - or a file without a telling extension (same as --format)").choices(["npy", "csv", "jsonl", "arrow", "parquet"]))
    .option("--columns <list>", "ctable: comma-separated columns to write", parseList)
    .option("--force", "replace an existing output file")
    .option("--no-progress", "never show a progress bar")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string, opts: { to: string; as?: ExportFormat; format?: ExportFormat; columns?: string[]; force?: boolean; progress: boolean }) => {
      if (opts.format !== undefined && opts.as !== undefined && opts.format !== opts.as) throw new UsageError("INVALID_ARGUMENT", "--format and --as name different formats", { field: "format", actual: `${opts.format} / ${opts.as}` });
      opts.as ??= opts.format;
      const toStdout = opts.to === "-";
      if (toStdout && opts.as === undefined) throw new UsageError("INVALID_ARGUMENT", "--to - needs --as csv or --as jsonl", { field: "as", expected: "csv or jsonl" });
      // No bar while the rows themselves go to the terminal.
      const progress = makeProgress("exporting", opts.progress && !toStdout);
      try {
        const rows = await exportDataset(await openDataset(dir), {
          to: opts.to, force: opts.force === true, progress,
          ...(opts.as === undefined ? {} : { format: opts.as }),
          ...(toStdout ? { sink: out } : {}),
          ...(opts.columns === undefined ? {} : { columns: opts.columns }),
        });
        progress.stop();
        streams.stderr.write(`wrote ${rows} row(s) to ${toStdout ? "standard output" : opts.to}\n`);
      } finally {
        progress.stop();
      }
    });

  program
    .command("sql")
    .description("run a SQL query over a dataset with DuckDB (needs the optional package @fmt/duckdb); the dataset is the table t (or --name)")
    .argument("<dir>", "dataset directory")
    .argument("<query>", 'SQL, e.g. "SELECT sym, sum(qty) FROM t GROUP BY sym ORDER BY sym"')
    .option("--name <table>", "the table name of the dataset in the query", "t")
    .option("--json", "one JSON object per result row")
    .option("--no-header", "text output: no line of column names first")
    .addHelpText("after", `
The dataset is streamed into an in-memory DuckDB block by block (one block in JS memory at a
time), then the query runs there. Text output: tab-separated values after a header line; NULL as
NULL, booleans True/False, timestamps in DuckDB's text form. Columns: ints, floats, bool,
datetimes (TIMESTAMP / DATE), S (BLOB), U and vlarray utf8 (VARCHAR), trailing dimensions (ARRAY).
${EXIT_CODES_HELP}`)
    .action(async (dir: string, query: string, opts: { name: string; json?: boolean; header: boolean }) => {
      await runSqlCommand(await openDataset(dir), query, { name: opts.name, json: opts.json === true, header: opts.header }, out);
    });

  program
    .command("import")
    .description("create a carray from a .npy file, or a ctable from a structured .npy or a CSV file with a header line (typed name:dtype cells, as export writes them, keep their dtypes; other columns get one from their cells)")
    .argument("<source>", "input file: .npy or .csv")
    .argument("<dir>", "dataset directory to create")
    .addOption(new Option("--chunklen <n>", "rows per chunk (default: chosen from the length, like bcolz)").argParser(parsePositive))
    .addOption(new Option("--cname <codec>", "codec").choices(["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]))
    .addOption(new Option("--clevel <n>", "compression level 0-9").argParser(parseCount))
    .addOption(new Option("--shuffle <n>", "0 none, 1 byte shuffle, 2 bit shuffle").choices(["0", "1", "2"]))
    .option("--force", "replace a dataset already at DIR")
    .addOption(new Option("--format <version>", "format version: 1 (bcolz 1.x, default) or 2 (CSV text columns become variable-length utf8 columns)").choices(["1", "2"]))
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (source: string, dir: string, opts: { chunklen?: number; cname?: string; clevel?: number; shuffle?: string; force?: boolean; format?: string }) => {
      if (opts.clevel !== undefined && opts.clevel > 9) throw new UsageError("INVALID_ARGUMENT", "--clevel must be between 0 and 9", { field: "clevel", actual: opts.clevel });
      const cparams = {
        ...(opts.cname === undefined ? {} : { cname: opts.cname as "lz4" }),
        ...(opts.clevel === undefined ? {} : { clevel: opts.clevel }),
        ...(opts.shuffle === undefined ? {} : { shuffle: Number(opts.shuffle) as 0 | 1 | 2 }),
      };
      const dataset = await importFile(source, dir, { force: opts.force === true, cparams, ...(opts.chunklen === undefined ? {} : { chunklen: opts.chunklen }), ...(opts.format === undefined ? {} : { formatVersion: Number(opts.format) as 1 | 2 }) });
      streams.stderr.write(`created ${dataset.kind} with ${dataset.length} row(s) at ${dir}\n`);
    });

  program
    .command("verify")
    .description("read and check every chunk (checksums in format 2); report every bad chunk by file and index (exit 3 if any)")
    .argument("<dir>", "dataset directory")
    .option("--json", "print the report as JSON")
    .option("--no-progress", "never show a progress bar")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string, opts: { json?: boolean; progress: boolean }) => {
      const progress = makeProgress("verifying", opts.progress && opts.json !== true);
      let report;
      try {
        await requireDatasetDir(dir);
        report = await verifyDirectory(dir, progress);
      } finally {
        progress.stop();
      }
      await out.write(opts.json === true ? `${toStrictJson(report)}\n` : renderVerifyReport(report));
      if (!report.ok) throw new ExitCode(3);
    });

  program
    .command("compact")
    .description("format 2: rewrite superchunks that hold dead space (left by relocations), reclaiming it")
    .argument("<dir>", "dataset directory")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (dir: string) => {
      await requireDatasetDir(dir);
      const { formatVersion, reclaimed } = await compactDirectory(dir);
      await out.write(formatVersion === 1 ? "format 1: nothing to compact\n" : `reclaimed ${reclaimed} byte(s)\n`);
    });

  program
    .command("convert")
    .description("convert a dataset to format 1 or 2 in a new directory (chunks copied byte for byte)")
    .argument("<src>", "dataset directory")
    .argument("<dst>", "new dataset directory")
    .requiredOption("--format <n>", "format version to write: 1 or 2", parseInteger)
    .option("--superchunksize <n>", "format 2: chunks per superchunk file", parsePositive)
    .addOption(new Option("--checksum <name>", "format 2: checksum after each chunk").choices(["none", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512"]))
    .option("--spare <percent>", "format 2: spare room per slot, 0-100", parseInteger)
    .option("--force", "replace what is at <dst>")
    .option("--no-progress", "never show a progress bar")
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (src: string, dst: string, opts: { format: number; superchunksize?: number; checksum?: ConvertOptions["checksum"]; spare?: number; force?: boolean; progress: boolean }) => {
      await requireDatasetDir(src);
      const progress = makeProgress("converting", opts.progress);
      let result;
      try {
        result = await convertDirectory(src, dst, {
          formatVersion: opts.format as 1 | 2,
          mode: opts.force === true ? "w" : "a",
          onStart: (n) => progress.start(n),
          onChunk: () => progress.tick(),
          ...(opts.superchunksize === undefined ? {} : { superchunksize: opts.superchunksize }),
          ...(opts.checksum === undefined ? {} : { checksum: opts.checksum }),
          ...(opts.spare === undefined ? {} : { spare: opts.spare }),
        });
      } finally {
        progress.stop();
      }
      streams.stderr.write(`converted ${result.kind} to format ${opts.format} at ${dst}: ${result.copied} chunk(s) copied byte for byte, ${result.recompressed} recompressed\n`);
    });

  program
    .command("unlock")
    .description("remove the write locks a killed writer left behind (refuses while the holder runs)")
    .argument("<dir>", "dataset directory")
    .option("--force", "remove the locks even when their holder may be alive")
    .addHelpText("after", `\n${UNLOCK_HELP.split("\n").slice(2).join("\n")}${EXIT_CODES_HELP}`)
    .action(async (dir: string, opts: { force?: boolean }) => {
      await out.flush();
      const code = await runUnlockCommand([dir, ...(opts.force === true ? ["--force"] : [])], (text) => void streams.stdout.write(text));
      if (code !== 0) throw new ExitCode(code);
    });

  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return 2;
    }
    await program.parseAsync([...argv], { from: "user" });
    await out.flush();
    return 0;
  } catch (err) {
    // Whatever was printed before the failure still reaches the reader.
    if (!(err instanceof ClosedPipe)) await out.flush().catch(() => undefined);
    return handleError(err, streams);
  }
}

function handleError(err: unknown, streams: CliStreams): number {
  if (err instanceof ClosedPipe) return 0;
  if (err instanceof ExitCode) return err.code;
  if (err instanceof CommanderError) {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return 0;
    return 2; // commander already printed a one-line "error: …" message
  }
  if (isBcolzError(err)) {
    streams.stderr.write(`error ${err.code}: ${err.message}\n`);
    return err instanceof UsageError ? 2 : 3;
  }
  streams.stderr.write(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
