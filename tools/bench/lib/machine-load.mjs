// How much of the machine other processes took while the store benchmark ran, from Linux's
// CPU accounting: the busy time of every core (/proc/stat, steal included: a hypervisor's other
// guests) minus this process's own and that of its children once they have exited and been
// waited for (/proc/self/stat: the native floor's Python, the remote and RSS children).
//
// Why not the load average: the benchmark itself keeps two or three threads busy for two
// minutes, so the 1-minute load average after a run reads 2–3 on a 2-core machine whatever else
// ran, and still ~1 when the next run starts a minute later; judged by it, no run on this kind of
// machine could ever read as idle. What matters is whether anything else competed for the cores.
//
// Units: USER_HZ ticks (100 per second on Linux, the unit of both files).
import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** Other processes using more cores than this on average make a run "busy". */
export const BUSY_OTHER_CORES = 0.25;

/**
 * Busy ticks of all cores and ticks of this process and its waited-for children, with the time
 * they were read; `undefined` without /proc (not Linux).
 *
 * @example
 * const before = cpuSnapshot(); await work(); const cores = otherCores(before, cpuSnapshot());
 */
export function cpuSnapshot() {
  try {
    const all = readFileSync("/proc/stat", "utf8").split("\n", 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
    const [user, nice, system, , , irq, softirq, steal = 0] = all;
    const self = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which may hold spaces and parentheses): state is field 3.
    const fields = self.slice(self.lastIndexOf(")") + 2).split(" ").map(Number);
    const [utime, stime, cutime, cstime] = fields.slice(11, 15);
    return { busy: user + nice + system + irq + softirq + steal, ours: utime + stime + cutime + cstime, at: performance.now() };
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
 * The header's words on the machine and whether the run counts as busy: by {@link otherCores}
 * when both figures exist, else by the load averages (busy above half the cores before or all of
 * them after, since the run's own threads count there).
 *
 * @example
 * const { busy, text } = describeMachine({ othersBefore: 0, othersDuring: 0.02, loadBefore: 1.2, loadAfter: 2.4, cores: 2 });
 */
export function describeMachine({ othersBefore, othersDuring, loadBefore, loadAfter, cores }) {
  const measured = othersBefore !== undefined && othersDuring !== undefined;
  const busy = measured ? othersBefore > BUSY_OTHER_CORES || othersDuring > BUSY_OTHER_CORES : loadBefore > cores / 2 || loadAfter > cores;
  const others = measured
    ? `other processes kept ${othersBefore.toFixed(2)} cores busy in the second before and ${othersDuring.toFixed(2)} on average during the run ` +
      `(CPU time outside this benchmark's processes; busy above ${BUSY_OTHER_CORES}); `
    : "";
  const load = `1-min load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (the benchmark's own threads included)`;
  return { busy, text: others + load + (busy ? " (**busy machine: numbers are not trustworthy**)" : " (idle machine)") };
}
