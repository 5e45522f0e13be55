/**
 * The fuzz driver: runs one target's generated inputs on watched workers, counts outcomes,
 * and minimizes and writes each distinct finding as a reproducer.
 *
 * @example
 * ```ts
 * const report = await fuzzTarget("dtype", { seed: 1, inputs: 10_000, seconds: 0, jobs: 1, corpusDir, outDir, limits: {} });
 * console.log(report.inputsPerSecond);
 * ```
 * @packageDocumentation
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadCorpus } from "./corpus-node.js";
import { inputSize, SINGLE, type FuzzInput } from "./input.js";
import { minimizeInput } from "./minimize.js";
import { signature, type Outcome } from "./outcome.js";
import { CODES, SLOT } from "./protocol.js";
import { inputRng } from "./rng.js";
import { findTarget } from "./targets/index.js";
import { WatchedWorker, type Limits } from "./watched-worker-node.js";

/**
 * Options of one target's run.
 *
 * @example
 * ```ts
 * const options: FuzzOptions = { seed: 1, inputs: 1000, seconds: 0, jobs: 2, corpusDir: "conformance/corpus", outDir: "findings", limits: { timeoutMs: 1000 } };
 * ```
 */
export interface FuzzOptions {
  seed: number;
  /** Inputs to run (0: no count limit, `seconds` must then be set). */
  inputs: number;
  /** Time budget in seconds (0: none). */
  seconds: number;
  /** Parallel worker threads. */
  jobs: number;
  corpusDir: string;
  outDir: string;
  /** Limits; the time limit defaults to the target's own. */
  limits: Partial<Limits>;
  /** Replays allowed to minimize one finding. Default 400 (untyped) / 40 (hang, memory; a candidate that does not reproduce costs little, one that does costs the time limit). */
  minimizeTries?: number;
}

/**
 * One written finding.
 *
 * @example
 * ```ts
 * console.log(`${finding.outcome.kind} at input ${finding.index}: ${finding.dir}`);
 * ```
 */
export interface FindingRecord {
  index: number;
  outcome: Outcome;
  /** Same-signature findings of this run (the first is written). */
  occurrences: number;
  dir: string;
  originalBytes: number;
  minimizedBytes: number;
  /** Whether the written (minimized) input reproduced the finding when replayed alone. */
  reproduced: boolean;
}

/**
 * What one target's run did.
 *
 * @example
 * ```ts
 * if (report.findings.length > 0) process.exitCode = 1;
 * ```
 */
export interface TargetReport {
  target: string;
  inputs: number;
  seconds: number;
  inputsPerSecond: number;
  counts: { ok: number; typed: number; untyped: number; hang: number; memory: number };
  typedByCode: { [code: string]: number };
  findings: FindingRecord[];
}

function resolveLimits(targetTimeout: number | undefined, limits: Partial<Limits>): Limits {
  return { timeoutMs: limits.timeoutMs ?? targetTimeout ?? 2000, memoryMb: limits.memoryMb ?? 512, rssMb: limits.rssMb ?? 4096 };
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "finding";
}

/**
 * Writes a finding's input and description into `dir`: a single-buffer input as `input.bin`,
 * a dataset as its files under `files/`.
 *
 * @example
 * ```ts
 * writeFinding("findings/dtype/x", "dtype", input, { kind: "untyped" }, {});
 * ```
 */
export function writeFinding(dir: string, target: string, input: FuzzInput, outcome: Outcome, extra: object): void {
  mkdirSync(dir, { recursive: true });
  const single = input.size === 1 && input.has(SINGLE);
  for (const [key, bytes] of input) {
    const path = single ? join(dir, "input.bin") : join(dir, "files", key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
  const description = { target, class: outcome.kind, message: outcome.message, stack: outcome.stack, layout: single ? "input.bin" : "files/", replay: `pnpm fuzz --replay ${dir}`, ...extra };
  writeFileSync(join(dir, "finding.json"), `${JSON.stringify(description, null, 2)}\n`);
}

/**
 * Runs one target and returns its report (findings minimized and written under `outDir/target`).
 *
 * @example
 * ```ts
 * const r = await fuzzTarget("codec-lz4", options);
 * ```
 */
export async function fuzzTarget(name: string, options: FuzzOptions): Promise<TargetReport> {
  const target = findTarget(name);
  if (target === undefined) throw new Error(`unknown target ${name}`);
  const limits = resolveLimits(target.timeoutMs, options.limits);
  const jobs = Math.max(1, Math.floor(options.jobs));
  const deadline = options.seconds > 0 ? Date.now() + options.seconds * 1000 : 0;
  const total = options.inputs > 0 ? options.inputs : Number.MAX_SAFE_INTEGER;
  const workers = Array.from({ length: jobs }, () => new WatchedWorker(name, options.corpusDir, limits));
  const found = new Map<string, { index: number; outcome: Outcome; occurrences: number }>();
  let hang = 0;
  let memoryKills = 0;
  const note = (index: number, outcome: Outcome): void => {
    const key = signature(outcome);
    const seen = found.get(key);
    if (seen === undefined) found.set(key, { index, outcome, occurrences: 1 });
    else seen.occurrences++;
  };
  const started = Date.now();
  let ran = 0;
  await Promise.all(
    workers.map(async (worker, job) => {
      let next = job;
      let remaining = Math.ceil(Math.max(0, total - job) / jobs);
      while (remaining > 0 && (deadline === 0 || Date.now() < deadline)) {
        const end = await worker.run({ type: "range", seed: options.seed, start: next, stride: jobs, count: remaining, deadline }, note);
        if (end.kind === "done") {
          ran += end.ran;
          break;
        }
        if (end.kind === "fatal") {
          await worker.stop();
          throw new Error(end.message);
        }
        if (end.kind !== "killed") break;
        const done = Math.floor((end.index - next) / jobs) + 1;
        ran += done;
        remaining -= done;
        next = end.index + jobs;
        if (end.outcome.kind === "hang") hang++;
        else if (end.outcome.kind === "memory") memoryKills++;
        else Atomics.add(worker.status, SLOT.untyped, 1);
        note(end.index, end.outcome);
      }
      await worker.stop();
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const counts = { ok: 0, typed: 0, untyped: 0, hang, memory: memoryKills };
  const typedByCode: { [code: string]: number } = {};
  for (const worker of workers) {
    const s = worker.status;
    counts.ok += s[SLOT.ok]!;
    counts.untyped += s[SLOT.untyped]!;
    counts.memory += s[SLOT.memory]!;
    CODES.forEach((code, i) => {
      const n = s[SLOT.typed + i]!;
      if (n > 0) typedByCode[code] = (typedByCode[code] ?? 0) + n;
    });
  }
  counts.typed = Object.values(typedByCode).reduce((a, b) => a + b, 0);
  const findings = found.size === 0 ? [] : await writeFindings(name, options, limits, found);
  return { target: name, inputs: ran, seconds, inputsPerSecond: ran / Math.max(seconds, 1e-9), counts, typedByCode, findings };
}

async function writeFindings(name: string, options: FuzzOptions, limits: Limits, found: Map<string, { index: number; outcome: Outcome; occurrences: number }>): Promise<FindingRecord[]> {
  const target = findTarget(name)!;
  const seeds = target.seeds(loadCorpus(options.corpusDir));
  const replayer = new WatchedWorker(name, options.corpusDir, limits);
  const records: FindingRecord[] = [];
  try {
    for (const [key, { index, outcome, occurrences }] of found) {
      const original = target.generate(inputRng(options.seed, name, index), seeds);
      const same = async (candidate: FuzzInput): Promise<boolean> => signature(await replayer.replay(candidate)) === key;
      const slow = outcome.kind === "hang" || outcome.kind === "memory";
      const { input } = await minimizeInput(original, same, options.minimizeTries ?? (slow ? 40 : 400));
      const reproduced = await same(input);
      const dir = join(options.outDir, name, `${slug(key)}-seed${options.seed}-i${index}`);
      const record: FindingRecord = { index, outcome, occurrences, dir, originalBytes: inputSize(original), minimizedBytes: inputSize(input), reproduced };
      writeFinding(dir, name, input, outcome, { seed: options.seed, index, occurrences, originalBytes: record.originalBytes, minimizedBytes: record.minimizedBytes, reproduced, limits });
      records.push(record);
    }
  } finally {
    await replayer.stop();
  }
  return records;
}
