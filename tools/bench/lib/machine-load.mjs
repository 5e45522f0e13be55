// How much of the machine other processes took while a benchmark ran, from Linux's CPU
// accounting: the busy time of every core (/proc/stat, steal included: a hypervisor's other
// guests) minus this process's own, that of its children once they have exited and been waited
// for (/proc/self/stat: the native floor's Python, the remote and RSS children), and, for a window
// taken while children still run, theirs and their descendants' (/proc/PID/stat).
//
// Why not the load average: the benchmark itself keeps two or three threads busy for two
// minutes, so the 1-minute load average after a run reads 2–3 on a 2-core machine whatever else
// ran, and still ~1 when the next run starts a minute later; judged by it, nearly no run on this
// kind of machine could read as idle. What matters is whether anything else competed for the cores.
//
// Units: USER_HZ ticks (100 per second on Linux, the unit of all these files).
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** Other processes using more cores than this on average (over the run or one of its windows) make a run "busy". */
export const BUSY_OTHER_CORES = 0.25;

/**
 * Busy ticks of all cores from the text of /proc/stat (its first, "cpu" line): user, nice,
 * system, irq, softirq and steal; idle and iowait are not busy, and guest time is already inside
 * user and nice. `undefined` when the line is not there or not numbers.
 *
 * @example
 * parseProcStat("cpu  10 20 30 40 50 60 70 80 90 100\n"); // 270
 */
export function parseProcStat(text) {
  const line = text.split("\n", 1)[0] ?? "";
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== "cpu" || fields.length < 9) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = fields.slice(1, 9).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return Number.isFinite(busy) ? busy : undefined;
}

/**
 * The parent and the CPU ticks of a process from the text of its /proc/PID/stat: its own
 * (`utime`, `stime`) and those of its children it has waited for (`cutime`, `cstime`). The
 * command name (field 2) may hold spaces and parentheses: the fields are counted from its last
 * ")". `undefined` when the text does not parse.
 *
 * @example
 * parseProcessStat("42 (a) b (c) S 1 42 42 0 -1 0 0 0 0 0 7 3 2 1 20 0 1 0 0 0 0"); // { ppid: 1, ticks: 13 }
 */
export function parseProcessStat(text) {
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  // From field 3 (state) on.
  const fields = text.slice(close + 2).trim().split(/\s+/);
  const ppid = Number(fields[1]);
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  const ticks = utime + stime + cutime + cstime;
  return Number.isInteger(ppid) && Number.isFinite(ticks) ? { ppid, ticks } : undefined;
}

/** Ticks of every process below `pid` that still runs (or has exited and not been waited for). */
function liveDescendantTicks(pid) {
  const byParent = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = parseProcessStat(readFileSync(`/proc/${name}/stat`, "utf8"));
    } catch {
      continue; // gone meanwhile
    }
    if (stat === undefined) continue;
    const siblings = byParent.get(stat.ppid) ?? [];
    siblings.push({ pid: Number(name), ticks: stat.ticks });
    byParent.set(stat.ppid, siblings);
  }
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    for (const child of byParent.get(pending.pop()) ?? []) {
      total += child.ticks;
      pending.push(child.pid);
    }
  }
  return total;
}

/**
 * Busy ticks of all cores and ticks of this process and its waited-for children (with
 * `descendants`, also of every process below it that still runs), with the time they were
 * read; `undefined` without /proc (not Linux) or when a file does not parse.
 *
 * @example
 * const before = cpuSnapshot(); await work(); const cores = otherCores(before, cpuSnapshot());
 */
export function cpuSnapshot({ descendants = false } = {}) {
  try {
    const busy = parseProcStat(readFileSync("/proc/stat", "utf8"));
    const self = parseProcessStat(readFileSync("/proc/self/stat", "utf8"));
    if (busy === undefined || self === undefined) return undefined;
    const ours = self.ticks + (descendants ? liveDescendantTicks(process.pid) : 0);
    return { busy, ours, at: performance.now() };
  } catch {
    return undefined;
  }
}

/**
 * The cores other processes kept busy on average between two snapshots (0 when none did);
 * `undefined` when either snapshot is missing or they are too close together to tell.
 *
 * @example
 * otherCores(before, after); // 0.03: nothing else ran
 */
export function otherCores(before, after) {
  if (before === undefined || after === undefined) return undefined;
  const seconds = (after.at - before.at) / 1000;
  if (seconds < 0.5) return undefined;
  const others = after.busy - before.busy - (after.ours - before.ours);
  return Math.max(0, others) / TICKS_PER_SECOND / seconds;
}

/**
 * {@link otherCores} over the next `ms` milliseconds, this process idle meanwhile: whether
 * something else runs before the benchmark starts.
 *
 * @example
 * const cores = await otherCoresNow(1000);
 */
export async function otherCoresNow(ms = 1000) {
  const before = cpuSnapshot();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return otherCores(before, cpuSnapshot());
}

/**
 * Windows of a run (one per operation measured), each with the cores other processes used
 * meanwhile: `await windows.around("readall", () => measure())`.
 *
 * @example
 * const windows = new LoadWindows();
 * const cells = await windows.around("sum", () => interleaved(sides, runs));
 * windows.busiest(); // { name: "sum", cores: 0.02 }
 */
export class LoadWindows {
  /** @type {{ name: string, cores: number }[]} */
  list = [];

  async around(name, work) {
    const before = cpuSnapshot({ descendants: true });
    try {
      return await work();
    } finally {
      const cores = otherCores(before, cpuSnapshot({ descendants: true }));
      if (cores !== undefined) this.list.push({ name, cores });
    }
  }

  /** The window where others used the most cores, if any was measured. */
  busiest() {
    return this.list.reduce((top, w) => (top === undefined || w.cores > top.cores ? w : top), undefined);
  }
}

/**
 * The header's words on the machine and whether the run counts as busy: by {@link otherCores}
 * before the run, over the whole run and in its busiest window when they were measured, else by
 * the load averages (busy above half the cores before or all of them after, since the run's own
 * threads count there).
 *
 * @example
 * const { busy, text } = describeMachine({ othersBefore: 0, othersDuring: 0.02, loadBefore: 1.2, loadAfter: 2.4, cores: 2 });
 */
export function describeMachine({ othersBefore, othersDuring, busiest, loadBefore, loadAfter, cores }) {
  const measured = othersBefore !== undefined && othersDuring !== undefined;
  const busy = measured
    ? othersBefore > BUSY_OTHER_CORES || othersDuring > BUSY_OTHER_CORES || (busiest?.cores ?? 0) > BUSY_OTHER_CORES
    : loadBefore > cores / 2 || loadAfter > cores;
  const peak = busiest === undefined ? "" : `, ${busiest.cores.toFixed(2)} in the busiest window (${busiest.name})`;
  const others = measured
    ? `other processes kept ${othersBefore.toFixed(2)} cores busy in the second before and ${othersDuring.toFixed(2)} on average during the run${peak} ` +
      `(CPU time outside this benchmark's processes; busy above ${BUSY_OTHER_CORES}); `
    : "";
  const load = `1-min load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (the benchmark's own threads included)`;
  return { busy, text: others + load + (busy ? " (**busy machine: numbers are not trustworthy**)" : " (idle machine)") };
}
