// The store bench's idle-machine check: CPU time of this process and of its exited children is
// its own; a process that still runs beside it is another's. Real processes, real /proc files.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript module without type declarations
import { BUSY_OTHER_CORES, cpuSnapshot, describeMachine, otherCores } from "../lib/machine-load.mjs";

type Snapshot = { busy: number; ours: number; at: number };
const snapshot = cpuSnapshot as () => Snapshot | undefined;
const describe_ = describeMachine as (facts: { othersBefore?: number; othersDuring?: number; loadBefore: number; loadAfter: number; cores: number }) => { busy: boolean; text: string };
const others = otherCores as (before: Snapshot | undefined, after: Snapshot | undefined) => number | undefined;

/** Keeps this thread busy for `ms` milliseconds. */
function spin(ms: number): number {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) x += Math.sqrt(x + 1);
  return x;
}

const SPIN_CHILD = "const end = Date.now() + Number(process.argv[1]); let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1);";

describe.runIf(existsSync("/proc/stat"))("otherCores", () => {
  it("works out the cores others used from two snapshots", () => {
    // 2 s apart; 300 busy ticks on the machine, 250 of them ours: others kept 0.25 cores busy.
    expect(others({ busy: 1000, ours: 100, at: 0 }, { busy: 1300, ours: 350, at: 2000 })).toBeCloseTo(0.25, 10);
    // Ours counted after a child exited can exceed what the machine counted meanwhile: never below 0.
    expect(others({ busy: 1000, ours: 100, at: 0 }, { busy: 1100, ours: 400, at: 2000 })).toBe(0);
    expect(others(undefined, { busy: 1, ours: 0, at: 2000 })).toBeUndefined();
    expect(others({ busy: 1, ours: 0, at: 0 }, { busy: 2, ours: 0, at: 100 })).toBeUndefined();
  });

  it("does not count this process's own work or that of its exited children", () => {
    const before = snapshot();
    spin(300);
    const child = spawnSync(process.execPath, ["-e", SPIN_CHILD, "1000"]);
    expect(child.status).toBe(0);
    const after = snapshot();
    expect(before).toBeDefined();
    // ~1.3 s of our own CPU time went by, most of it the child's (0.75 cores over the time taken,
    // were it counted as another's); whatever else ran on the machine stays far below that.
    expect(after!.ours - before!.ours).toBeGreaterThan(100);
    expect(others(before, after)).toBeLessThan(0.4);
  });

  it("counts a process that runs beside it", async () => {
    // Still running when the second snapshot is taken: its CPU time is not yet this process's.
    const child = spawn(process.execPath, ["-e", SPIN_CHILD, "3000"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = snapshot();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = snapshot();
      expect(others(before, after)).toBeGreaterThan(BUSY_OTHER_CORES as number);
    } finally {
      child.kill();
    }
  });
});

describe("describeMachine", () => {
  it("judges by other processes' CPU time when it was measured, the load averages only printed", () => {
    const idle = describe_({ othersBefore: 0.01, othersDuring: 0.25, loadBefore: 1.3, loadAfter: 2.6, cores: 2 });
    expect(idle.busy).toBe(false);
    expect(idle.text).toContain("(idle machine)");
    expect(idle.text).toContain("1-min load average 1.3 before, 2.6 after");
    expect(describe_({ othersBefore: 0.26, othersDuring: 0, loadBefore: 0, loadAfter: 0, cores: 2 }).busy).toBe(true);
    const busy = describe_({ othersBefore: 0, othersDuring: 0.3, loadBefore: 0, loadAfter: 0, cores: 2 });
    expect(busy.busy).toBe(true);
    expect(busy.text).toContain("busy machine: numbers are not trustworthy");
  });

  it("falls back to the load averages without /proc", () => {
    expect(describe_({ loadBefore: 1.0, loadAfter: 2.0, cores: 2 }).busy).toBe(false);
    expect(describe_({ loadBefore: 1.1, loadAfter: 0, cores: 2 }).busy).toBe(true);
    expect(describe_({ othersBefore: 0, loadBefore: 0, loadAfter: 2.1, cores: 2 }).busy).toBe(true);
  });
});
