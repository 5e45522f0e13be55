// The benchmarks' idle-machine check: the parsing of /proc on fixed texts; then real processes
// and real /proc files: CPU time of this process and of its children is its own, a process that
// runs beside it is another's. The assertions on live numbers hold whatever else the machine runs.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript module without type declarations
import { BUSY_OTHER_CORES, cpuSnapshot, describeMachine, LoadWindows, otherCores, parseProcessStat, parseProcStat } from "../lib/machine-load.mjs";

type Snapshot = { busy: number; ours: number; at: number };
type Window = { name: string; cores: number };
const snapshot = cpuSnapshot as (options?: { descendants?: boolean }) => Snapshot | undefined;
const others = otherCores as (before: Snapshot | undefined, after: Snapshot | undefined) => number | undefined;
const describe_ = describeMachine as (facts: {
  othersBefore?: number; othersDuring?: number; busiest?: Window; loadBefore: number; loadAfter: number; cores: number;
}) => { busy: boolean; text: string };
const procStat = parseProcStat as (text: string) => number | undefined;
const processStat = parseProcessStat as (text: string) => { ppid: number; ticks: number } | undefined;
const Windows = LoadWindows as new () => { list: Window[]; around<T>(name: string, work: () => Promise<T>): Promise<T>; busiest(): Window | undefined };

/** Keeps this thread busy for `ms` milliseconds. */
function spin(ms: number): number {
  const end = performance.now() + ms;
  let x = 0;
  while (performance.now() < end) x += Math.sqrt(x + 1);
  return x;
}

const SPIN_CHILD = "const end = Date.now() + Number(process.argv[1]); let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1);";

describe("parsing /proc", () => {
  it("counts user, nice, system, irq, softirq and steal as busy; idle, iowait and guest time not", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    expect(procStat("cpu  10 20 30 40 50 60 70 80 90 100\ncpu0 1 2 3 4 5 6 7 8 9 10\n")).toBe(10 + 20 + 30 + 60 + 70 + 80);
    expect(procStat("cpu0 1 2 3 4 5 6 7 8\n")).toBeUndefined();
    expect(procStat("cpu  1 2 3\n")).toBeUndefined();
    expect(procStat("cpu  1 2 3 4 5 x 7 8\n")).toBeUndefined();
  });

  it("reads the parent and utime + stime + cutime + cstime after the command name, whatever it holds", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const tail = "S 17 42 42 0 -1 4194560 100 200 3 4 700 300 20 10 20 0 1 0 12345";
    expect(processStat(`42 (node) ${tail}`)).toEqual({ ppid: 17, ticks: 700 + 300 + 20 + 10 });
    expect(processStat(`42 (a) b (c) ${tail}`)).toEqual({ ppid: 17, ticks: 1030 });
    expect(processStat(`42 (x y) ${tail}`)).toEqual({ ppid: 17, ticks: 1030 });
    expect(processStat("42 node S 17")).toBeUndefined();
    expect(processStat("42 (node) S 17 42")).toBeUndefined();
  });
});

describe.runIf(existsSync("/proc/stat"))("otherCores on this machine", () => {
  it("works out the cores others used from two snapshots", () => {
    // 2 s apart; 300 busy ticks on the machine, 250 of them ours: others kept 0.25 cores busy.
    expect(others({ busy: 1000, ours: 100, at: 0 }, { busy: 1300, ours: 350, at: 2000 })).toBeCloseTo(0.25, 10);
    // Ours counted after a child exited can exceed what the machine counted meanwhile: never below 0.
    expect(others({ busy: 1000, ours: 100, at: 0 }, { busy: 1100, ours: 400, at: 2000 })).toBe(0);
    expect(others(undefined, { busy: 1, ours: 0, at: 2000 })).toBeUndefined();
    expect(others({ busy: 1, ours: 0, at: 0 }, { busy: 2, ours: 0, at: 100 })).toBeUndefined();
  });

  it("counts this process's own CPU time as its own, and its children's once they exited", () => {
    const s0 = snapshot()!;
    spin(600);
    const s1 = snapshot()!;
    const child = spawnSync(process.execPath, ["-e", SPIN_CHILD, "600"]);
    expect(child.status).toBe(0);
    const s2 = snapshot()!;
    // 0.6 s of CPU each: 60 ticks, whatever else runs on the machine (it can only add to `busy`).
    expect(s1.ours - s0.ours).toBeGreaterThan(45);
    expect(s2.ours - s1.ours).toBeGreaterThan(45);
    expect(s1.busy - s0.busy).toBeGreaterThanOrEqual(s1.ours - s0.ours - 2);
  });

  it("counts a process that runs beside it as another's, unless asked to count its descendants", async () => {
    const child = spawn(process.execPath, ["-e", SPIN_CHILD, "3000"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const plain = snapshot();
      const withChildren = snapshot({ descendants: true });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const plainAfter = snapshot();
      const withChildrenAfter = snapshot({ descendants: true });
      // The child spins a whole core: another's to a plain snapshot (it has not exited yet) …
      expect(others(plain, plainAfter)).toBeGreaterThan(BUSY_OTHER_CORES as number);
      // … and ours with its descendants: they take nearly all of the child's ~150 ticks off.
      expect(withChildrenAfter!.ours - withChildren!.ours).toBeGreaterThan(100);
      expect(others(withChildren, withChildrenAfter)!).toBeLessThan(others(plain, plainAfter)! - 0.5);
    } finally {
      child.kill();
    }
  });

  it("counts the descendants of its children too (a server a child started)", async () => {
    // The child only waits for its own child, which spins: the grandchild's time must be found.
    const parent = `require("node:child_process").spawnSync(process.execPath, ["-e", ${JSON.stringify(SPIN_CHILD)}, "2500"], { stdio: "ignore" });`;
    const child = spawn(process.execPath, ["-e", parent], { stdio: "ignore" });
    try {
      await new Promise((resolve) => setTimeout(resolve, 400));
      const before = snapshot({ descendants: true });
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const after = snapshot({ descendants: true });
      expect(after!.ours - before!.ours).toBeGreaterThan(80);
    } finally {
      child.kill();
    }
  });

  it("keeps one window per piece of work, failed ones too, and names the busiest", async () => {
    const windows = new Windows();
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    expect(await windows.around("first", async () => {
      await wait(600);
      return 7;
    })).toBe(7);
    await expect(windows.around("failing", async () => {
      await wait(600);
      throw new Error("boom");
    })).rejects.toThrow("boom");
    // Too short to tell: no window.
    await windows.around("short", () => wait(10));
    expect(windows.list.map((w) => w.name)).toEqual(["first", "failing"]);
    for (const w of windows.list) expect(w.cores).toBeGreaterThanOrEqual(0);
    windows.list.push({ name: "made up", cores: 5 });
    expect(windows.busiest()).toEqual({ name: "made up", cores: 5 });
    expect(new Windows().busiest()).toBeUndefined();
  });
});

describe("describeMachine", () => {
  it("judges by other processes' CPU time when it was measured, the load averages only printed", () => {
    const idle = describe_({ othersBefore: 0.01, othersDuring: 0.25, busiest: { name: "sum", cores: 0.2 }, loadBefore: 1.3, loadAfter: 2.6, cores: 2 });
    expect(idle.busy).toBe(false);
    expect(idle.text).toContain("(idle machine)");
    expect(idle.text).toContain("0.20 in the busiest window (sum)");
    expect(idle.text).toContain("1-min load average 1.3 before, 2.6 after");
    expect(describe_({ othersBefore: 0.26, othersDuring: 0, loadBefore: 0, loadAfter: 0, cores: 2 }).busy).toBe(true);
    const busy = describe_({ othersBefore: 0, othersDuring: 0.3, loadBefore: 0, loadAfter: 0, cores: 2 });
    expect(busy.busy).toBe(true);
    expect(busy.text).toContain("busy machine: numbers are not trustworthy");
    // A burst in one window makes the run busy even when the average over the run is low.
    expect(describe_({ othersBefore: 0, othersDuring: 0.1, busiest: { name: "readall", cores: 0.9 }, loadBefore: 0, loadAfter: 0, cores: 2 }).busy).toBe(true);
  });

  it("falls back to the load averages without /proc", () => {
    expect(describe_({ loadBefore: 1.0, loadAfter: 2.0, cores: 2 }).busy).toBe(false);
    expect(describe_({ loadBefore: 1.1, loadAfter: 0, cores: 2 }).busy).toBe(true);
    expect(describe_({ othersBefore: 0, loadBefore: 0, loadAfter: 2.1, cores: 2 }).busy).toBe(true);
  });
});
