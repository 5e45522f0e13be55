// What the kill tests (write-kill.test.ts, write-kill-v2.test.ts) share: starting a writer child
// and SIGKILLing it at a random moment, reading its fsynced log, running many kills with a
// summary, and the checks every kill of a carray or ctable must pass:
// 1. the dataset opens read-only (no recovery) and holds the state before the interrupted
//    operation or the state after it (committed prefix for a carray, whole table for a ctable);
// 2. it opens for writing (recovery, breaking the dead writer's lock) and holds the same values;
// 3. recovery left no journal, staged `.next`, `.compact` or temporary file, and (format 2) no
//    superchunk beyond the last required one;
// 4. a further append works and reads back after a reopen.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { openCarray, openCtable, openVLArray } from "@fmt/store";
// @ts-expect-error: a plain ES module shared with the children, without type declarations
import { bundleStore } from "./kill/bundle-store.mjs";

export const CARRAY_WRITER = fileURLToPath(new URL("./kill/writer.mjs", import.meta.url));
export const CTABLE_WRITER = fileURLToPath(new URL("./kill/ctable-writer.mjs", import.meta.url));
export const VLARRAY_WRITER = fileURLToPath(new URL("./kill/vlarray-writer.mjs", import.meta.url));

/** One line of the carray writer's log: the state after `op`, and the length on disk after it. */
export interface CarrayEntry {
  op: string;
  state: number[];
  committed: number;
}
export interface TableState {
  names: string[];
  columns: { [name: string]: number[] };
}
export interface CtableEntry {
  op: string;
  state: TableState;
}

/**
 * Bundles the store's sources once for the children (kill/load-store.mjs imports the bundle named
 * by FMT_STORE_BUNDLE); resolves to the environment to start them with.
 */
export async function childEnvironment(dir: string): Promise<NodeJS.ProcessEnv> {
  const out = join(dir, "bundle");
  mkdirSync(out, { recursive: true });
  await (bundleStore as (outDir: string) => Promise<void>)(out);
  return { ...process.env, FMT_STORE_BUNDLE: out };
}

/** The kill moment for `seed`: `min` to `max` ms after the writer is ready, spread by a hash of the seed. */
export function killDelay(seed: number, min = 40, max = 700): number {
  const h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return min + (((h ^ (h >>> 13)) >>> 0) % (max - min));
}

export function runAndKill(writer: string, args: string[], delayMs: number, env?: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, ...args], { stdio: ["ignore", "pipe", "pipe"], env: env ?? process.env });
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      if (timer === undefined && d.toString().includes("ready")) timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`writer exited by itself (${code}): ${stderr}`));
    });
  });
}

export function readLog<T>(path: string): T[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const out: T[] = [];
  // The last line may be cut by the kill: the operation it announces had not started.
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      break;
    }
  }
  return out;
}

export const sameNumbers = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

export function sameTable(a: TableState, b: TableState): boolean {
  return a.names.length === b.names.length && a.names.every((n, i) => n === b.names[i] && sameNumbers(a.columns[n]!, b.columns[n]!));
}

/** Every file under `root`, as paths relative to it. */
export function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else out.push(relative(root, join(dir, e.name)));
    }
  };
  walk(root);
  return out.sort();
}

/** Files an interrupted writer leaves and recovery must remove: journals, staged chunks, compaction and put temporaries. */
export const isLeftover = (file: string): boolean => /(^|\/)(\.journal|\.append)$|\.next$|\.compact$|\.fmt-tmp-/.test(file);

/** What a trial reports: the operation it interrupted, and what the kill left before recovery. */
export interface TrialResult {
  op: string;
  /** Leftover kinds found before recovery (journal, next, compact, tmp, append). */
  leftovers: string[];
  /** Operations the writer logged after its opening state. */
  operations: number;
}

function leftoverKinds(files: string[]): string[] {
  const kinds = new Set<string>();
  for (const f of files) {
    if (/\.journal$/.test(f)) kinds.add("journal");
    else if (/\.append$/.test(f)) kinds.add("append-journal");
    else if (/\.next$/.test(f)) kinds.add("next");
    else if (/\.compact$/.test(f)) kinds.add("compact");
    else if (/\.fmt-tmp-/.test(f)) kinds.add("tmp");
  }
  return [...kinds];
}

/**
 * Runs `count` kills, `parallel` datasets at a time, a fresh dataset every `perDataset` kills (the
 * logged states, whole contents, stay small). A trial returns what it interrupted, or throws when
 * the dataset is not in an allowed state. Every kill runs even after a failure (the next writer's
 * open rolls the dataset back), so a failing run says how many kills went wrong, not only the first.
 * Resolves to the number of operations the writers logged.
 */
export async function trials(
  label: string,
  count: number,
  trial: (root: string, round: number, logPath: string) => Promise<TrialResult>,
  options: { perDataset?: number; parallel?: number } = {},
): Promise<number> {
  const perDataset = options.perDataset ?? 8;
  const dir = mkdtempSync(join(tmpdir(), `kill-${label}-`));
  const hit = new Map<string, number>();
  const seen = new Map<string, number>();
  const failures: string[] = [];
  let operations = 0;
  const started = Date.now();
  const group = async (first: number): Promise<void> => {
    for (let round = first; round < Math.min(count, first + perDataset); round++) {
      const root = join(dir, `root-${Math.floor(round / perDataset)}`);
      try {
        const result = await trial(root, round, join(dir, `log-${round}.jsonl`));
        operations += result.operations;
        hit.set(result.op, (hit.get(result.op) ?? 0) + 1);
        for (const k of result.leftovers) seen.set(k, (seen.get(k) ?? 0) + 1);
      } catch (error) {
        failures.push(`round ${round}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  try {
    const groups: number[] = [];
    for (let first = 0; first < count; first += perDataset) groups.push(first);
    const workers = Array.from({ length: Math.min(options.parallel ?? 1, groups.length) }, async () => {
      for (let g = groups.shift(); g !== undefined; g = groups.shift()) await group(g);
    });
    await Promise.all(workers);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The operation each kill interrupted (or was about to start), and what the kills left for
  // recovery, for the record of long runs.
  const list = (m: Map<string, number>): string => [...m].sort().map(([k, n]) => `${k} ${n}`).join(", ") || "nothing";
  console.log(`kill ${label}: ${count} kills in ${((Date.now() - started) / 1000).toFixed(1)} s, ${failures.length} failed; interrupted ${list(hit)}; left for recovery ${list(seen)}`);
  if (failures.length > 0) throw new Error(`${failures.length} of ${count} kills left a dataset that is not a state the writer reached:\n${failures.join("\n").slice(0, 6000)}`);
  return operations;
}

/**
 * The checks after a kill of the carray writer (see the top of this file). `extra` is appended
 * after recovery; the next writer starts from that state.
 */
export async function checkCarrayAfterKill(root: string, logPath: string, extra: number[]): Promise<TrialResult> {
  const entries = readLog<CarrayEntry>(logPath);
  if (entries.length === 0) throw new Error("the writer did not log its opening state");
  const last = entries[entries.length - 1]!;
  const before = entries[entries.length - 2] ?? last;
  const allowed = [before.state.slice(0, before.committed), last.state.slice(0, last.committed)];
  const where = `after "${last.op}"`;
  const files = filesUnder(join(root, "ds"));
  const fs = new FileSystemStore(root);

  const reader = await openCarray(fs, "ds").catch((error: unknown) => {
    throw new Error(`${where} the dataset does not open read-only: ${String(error)}`);
  });
  const content = Array.from((await reader.read().catch((error: unknown) => {
    throw new Error(`${where} the dataset does not read: ${String(error)} (files: ${files.join(" ")})`);
  })) as Int32Array);
  if (!allowed.some((a) => sameNumbers(a, content))) {
    throw new Error(`${where} the dataset holds ${JSON.stringify(content)}; allowed ${JSON.stringify(allowed)}`);
  }

  const writer = await openCarray(fs, "ds", { mode: "a", breakLock: true }).catch((error: unknown) => {
    throw new Error(`${where} the dataset does not open for writing: ${String(error)} (files: ${files.join(" ")})`);
  });
  try {
    const recovered = Array.from((await writer.read()) as Int32Array);
    if (!sameNumbers(recovered, content)) throw new Error(`${where} recovery changed the values from ${JSON.stringify(content)} to ${JSON.stringify(recovered)}`);
    const after = filesUnder(join(root, "ds"));
    // Both formats: recovery removes every staged or temporary file (spec v1 §8.5, v2 §13.1).
    const stale = after.filter(isLeftover);
    if (stale.length > 0) throw new Error(`${where} recovery left ${stale.join(", ")}`);
    if (writer.formatVersion === 2) {
      const superchunks = after.filter((f) => /^data\/__\d+__\.bin$/.test(f));
      const n = Math.ceil(content.length / writer.chunklen);
      const required = Math.ceil(n / writer.superchunks!.superchunksize);
      const expected = Array.from({ length: required }, (_, s) => `data/__${s + 1}__.bin`).sort();
      if (!sameStrings(superchunks, expected)) throw new Error(`${where} recovery left superchunks ${superchunks.join(" ")}; the length needs ${expected.join(" ") || "none"}`);
    }
    await writer.append(extra);
  } finally {
    await writer.close();
  }
  const again = Array.from((await (await openCarray(fs, "ds")).read()) as Int32Array);
  if (!sameNumbers(again, [...content, ...extra])) throw new Error(`${where} the append after recovery reads back as ${JSON.stringify(again)}, not ${JSON.stringify([...content, ...extra])}`);
  return { op: last.op.split(" ")[0]!, leftovers: leftoverKinds(files), operations: entries.length - 1 };
}

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

async function tableState(table: Awaited<ReturnType<typeof openCtable>>): Promise<TableState> {
  const rows = await table.readRows();
  return { names: [...table.names], columns: Object.fromEntries(table.names.map((n) => [n, Array.from(rows[n] as ArrayLike<number>, Number)])) };
}

/** The checks after a kill of the ctable writer: the whole old or the whole new table, before and after recovery; then an append. */
export async function checkCtableAfterKill(root: string, logPath: string): Promise<TrialResult> {
  const entries = readLog<CtableEntry>(logPath);
  if (entries.length === 0) throw new Error("the writer did not log its opening state");
  const last = entries[entries.length - 1]!;
  const before = entries[entries.length - 2] ?? last;
  const where = `after "${last.op}"`;
  const files = filesUnder(join(root, "tb"));
  const fs = new FileSystemStore(root);
  const table = await openCtable(fs, "tb").catch((error: unknown) => {
    throw new Error(`${where} the table does not open read-only: ${String(error)}`);
  });
  const content = await tableState(table);
  if (!sameTable(content, before.state) && !sameTable(content, last.state)) {
    throw new Error(`${where} the table holds ${JSON.stringify(content).slice(0, 2000)}; allowed ${JSON.stringify([before.state, last.state]).slice(0, 4000)}`);
  }
  const writer = await openCtable(fs, "tb", { mode: "a", breakLock: true }).catch((error: unknown) => {
    throw new Error(`${where} the table does not open for writing: ${String(error)} (files: ${files.join(" ")})`);
  });
  const extra = 1000 + entries.length;
  try {
    const recovered = await tableState(writer);
    if (!sameTable(recovered, content)) throw new Error(`${where} recovery changed the table from ${JSON.stringify(content).slice(0, 2000)} to ${JSON.stringify(recovered).slice(0, 2000)}`);
    // A column half-written by a killed addColumn may stay as a directory outside __rootdirs__;
    // only the table's own files and its columns' must be clean.
    const stale = filesUnder(join(root, "tb")).filter((f) => isLeftover(f) && writer.names.some((n) => f.startsWith(`${n}/`) || f.startsWith(`data/${n}/`) || !f.includes("/")));
    if (stale.length > 0) throw new Error(`${where} recovery left ${stale.join(", ")}`);
    await writer.append(Object.fromEntries(writer.names.map((n) => [n, n === "half" ? new Float64Array([extra / 2]) : new Int32Array([extra])])));
  } finally {
    await writer.close();
  }
  const again = await tableState(await openCtable(fs, "tb"));
  const expected: TableState = { names: content.names, columns: Object.fromEntries(content.names.map((n) => [n, [...content.columns[n]!, n === "half" ? extra / 2 : extra]])) };
  if (!sameTable(again, expected)) throw new Error(`${where} the append after recovery reads back as ${JSON.stringify(again).slice(0, 2000)}`);
  return { op: last.op.split(" ")[0]!, leftovers: leftoverKinds(files), operations: entries.length - 1 };
}

/**
 * The checks after a kill of the vlarray writer: the old or the new list of elements, before and
 * after recovery, which must also cut `values/` back to `offsets[n]` (spec/v2.md §12) and leave no
 * leftover file; then an append.
 */
export async function checkVlarrayAfterKill(root: string, logPath: string): Promise<TrialResult> {
  const entries = readLog<{ op: string; state: string[] }>(logPath);
  if (entries.length === 0) throw new Error("the writer did not log its opening state");
  const last = entries[entries.length - 1]!;
  const before = entries[entries.length - 2] ?? last;
  const where = `after "${last.op}"`;
  const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
  const files = filesUnder(join(root, "vl"));
  const fs = new FileSystemStore(root);
  const reader = await openVLArray(fs, "vl").catch((error: unknown) => {
    throw new Error(`${where} the vlarray does not open read-only: ${String(error)} (files: ${files.join(" ")})`);
  });
  const content = [...((await reader.read()) as string[])];
  if (!same(content, before.state) && !same(content, last.state)) {
    throw new Error(`${where} the vlarray holds ${JSON.stringify(content)}; allowed ${JSON.stringify([before.state, last.state])}`);
  }
  const writer = await openVLArray(fs, "vl", { mode: "a", breakLock: true }).catch((error: unknown) => {
    throw new Error(`${where} the vlarray does not open for writing: ${String(error)} (files: ${files.join(" ")})`);
  });
  const extra = [`é${entries.length}`, ""];
  try {
    const recovered = [...((await writer.read()) as string[])];
    if (!same(recovered, content)) throw new Error(`${where} recovery changed the elements from ${JSON.stringify(content)} to ${JSON.stringify(recovered)}`);
    const stale = filesUnder(join(root, "vl")).filter(isLeftover);
    if (stale.length > 0) throw new Error(`${where} recovery left ${stale.join(", ")}`);
    const bytes = content.reduce((n, e) => n + new TextEncoder().encode(e).length, 0);
    const values = await openCarray(fs, "vl/values");
    if (values.length !== bytes) throw new Error(`${where} after recovery values/ holds ${values.length} bytes, offsets[n] is ${bytes}`);
    await writer.append(extra);
  } finally {
    await writer.close();
  }
  const again = [...((await (await openVLArray(fs, "vl")).read()) as string[])];
  if (!same(again, [...content, ...extra])) throw new Error(`${where} the append after recovery reads back as ${JSON.stringify(again)}`);
  return { op: last.op.split(" ")[0]!, leftovers: leftoverKinds(files), operations: entries.length - 1 };
}
