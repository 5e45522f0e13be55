/**
 * The command line of `fmt-conformance`: parsing and checking it, and the help text. Kept apart
 * from the program so that every bad argument can be tested to give a message and exit status 2.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { REPORTERS, type ReporterName } from "./report.js";
import { parseKnownFailures, type KnownFailure } from "./select.js";

/** The program name used in messages. */
export const PROGRAM = "fmt-conformance";

/** Everything a run needs, checked. */
export interface RunnerOptions {
  adapter: string;
  corpus: string;
  /** Format versions to run; `undefined` = every version the corpus has. */
  formats: number[] | undefined;
  filters: string[];
  reporter: ReporterName;
  /** File the json/junit/table report is written to; stdout when undefined. */
  output: string | undefined;
  jobs: number;
  timeoutMs: number;
  only: "read" | "write" | "where" | undefined;
  knownFailures: KnownFailure[];
  knownFailuresFile: string | undefined;
  /** One adapter process per call even when the adapter offers `serve`. */
  isolated: boolean;
}

/** What the command line asks for. */
export type ParsedCommand = { kind: "help" } | { kind: "version" } | { kind: "run"; options: RunnerOptions } | { kind: "error"; message: string };

/** Help text of `--help`. */
export const HELP = `Usage: ${PROGRAM} --adapter CMD [options]

Checks an implementation of the bcolz format through its adapter (spec/conformance.md).

Options:
  --adapter CMD          the adapter executable (required)
  --corpus DIR           corpus root holding v1/, v2/ (default: the corpus shipped with this package)
  --format 1|2           run only this format version (default: every version in the corpus)
  --filter GLOB          run only cases whose "set/case" name matches; * and ? are wildcards, a
                         pattern without them matches as a substring; repeat to match any of several
  --only read|write|where
                         run only the read cases, only the write check or only the query cases
  --reporter NAME        table (default), json or junit
  --output FILE          write the report to FILE instead of standard output
  --jobs N               cases run at the same time (default 2)
  --timeout MS           limit per adapter call; a call still running is killed and fails (default 60000)
  --isolated             one adapter process per call, even when the adapter's info lists "serve"
                         (by default such an adapter answers through --jobs long-lived processes)
  --known-failures FILE  cases expected to fail: they are reported as KNOWN and do not fail the run;
                         a listed case that passes fails the run (the list is stale)
  --help                 print this text
  --version              print the runner's version

Exit status: 0 every case passed, 1 a case failed (or adapter info failed, or no case matched),
2 bad arguments.
The last line printed is "N passed, M failed" (", K skipped" when cases were skipped).
`;

/**
 * The runner package's own version, from its package.json.
 *
 * @example
 * ```ts
 * runnerVersion(); // "0.1.0"
 * ```
 */
export function runnerVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/**
 * The corpus shipped with the package: `corpus/` inside the installed package (copied there when
 * packing), or `conformance/corpus` next to the runner in a clone of the repository.
 *
 * @example
 * ```ts
 * defaultCorpusDir(); // "/…/node_modules/@fmt/conformance/corpus"
 * ```
 */
export function defaultCorpusDir(): string {
  const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const candidates = [join(packageRoot, "corpus"), join(packageRoot, "..", "corpus")];
  return candidates.find((dir) => existsSync(join(dir, "v1")) || existsSync(join(dir, "v2"))) ?? candidates[0]!;
}

function positiveInteger(name: string, text: string | undefined, fallback: number): number | string {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) return `--${name} wants a positive integer, got ${JSON.stringify(text)}`;
  return Number(text);
}

/**
 * Parse and check the arguments (without the `node` and script entries). Never throws: a problem
 * is returned as `{ kind: "error", message }`.
 *
 * @example
 * ```ts
 * const parsed = parseCommandLine(["--adapter", "./adapter", "--jobs", "4"]);
 * if (parsed.kind === "run") console.log(parsed.options.jobs); // 4
 * ```
 */
export function parseCommandLine(argv: string[]): ParsedCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        adapter: { type: "string" },
        corpus: { type: "string" },
        format: { type: "string" },
        filter: { type: "string", multiple: true },
        only: { type: "string" },
        reporter: { type: "string" },
        output: { type: "string" },
        jobs: { type: "string" },
        timeout: { type: "string" },
        "known-failures": { type: "string" },
        isolated: { type: "boolean" },
        help: { type: "boolean" },
        version: { type: "boolean" },
      },
    }));
  } catch (err) {
    // parseArgs' messages name the option; its trailing advice about "--" does not apply here.
    return { kind: "error", message: String((err as Error).message).replace(/\. To specify a positional argument.*$/s, "") };
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  if (values.adapter === undefined || values.adapter === "") return { kind: "error", message: "--adapter CMD is required" };
  const adapter = resolve(values.adapter);
  if (!existsSync(adapter) || !statSync(adapter).isFile()) return { kind: "error", message: `--adapter: no such file: ${adapter}` };
  const corpus = resolve(values.corpus ?? defaultCorpusDir());
  if (!existsSync(corpus)) return { kind: "error", message: `--corpus: no such directory: ${corpus}` };
  if (!readdirSync(corpus).some((name) => /^v\d+$/.test(name))) return { kind: "error", message: `--corpus: ${corpus} holds no format folder (v1/, v2/, …)` };
  let formats: number[] | undefined;
  if (values.format !== undefined) {
    if (values.format !== "1" && values.format !== "2") return { kind: "error", message: `--format wants 1 or 2, got ${JSON.stringify(values.format)}` };
    formats = [Number(values.format)];
    if (!existsSync(join(corpus, `v${values.format}`))) return { kind: "error", message: `--format ${values.format}: the corpus ${corpus} has no v${values.format}/ directory` };
  }
  const reporter = values.reporter ?? "table";
  if (!(REPORTERS as readonly string[]).includes(reporter)) return { kind: "error", message: `--reporter wants one of ${REPORTERS.join(", ")}, got ${JSON.stringify(reporter)}` };
  const only = values.only;
  if (only !== undefined && only !== "read" && only !== "write" && only !== "where") return { kind: "error", message: `--only wants read, write or where, got ${JSON.stringify(only)}` };
  const jobs = positiveInteger("jobs", values.jobs, 2);
  if (typeof jobs === "string") return { kind: "error", message: jobs };
  const timeoutMs = positiveInteger("timeout", values.timeout, 60_000);
  if (typeof timeoutMs === "string") return { kind: "error", message: timeoutMs };
  let knownFailures: KnownFailure[] = [];
  const knownFile = values["known-failures"];
  if (knownFile !== undefined) {
    try {
      knownFailures = parseKnownFailures(readFileSync(knownFile, "utf8"), knownFile);
    } catch (err) {
      return { kind: "error", message: `--known-failures: ${(err as Error).message}` };
    }
  }
  const options: RunnerOptions = {
    adapter,
    corpus,
    formats,
    filters: values.filter ?? [],
    reporter: reporter as ReporterName,
    output: values.output,
    jobs,
    timeoutMs,
    only,
    isolated: values.isolated === true,
    knownFailures,
    knownFailuresFile: knownFile,
  };
  return { kind: "run", options };
}
