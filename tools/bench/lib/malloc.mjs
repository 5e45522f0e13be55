// Both benchmarks run our side with glibc's malloc handing out transparent huge pages, as numpy
// gets for its large arrays (it madvises them itself): a fresh 80 MB array buffer costs ~25 ms of
// 4 KiB page faults on its first write without it, ~5 ms with it. The native side runs with the
// environment the bench was started with. README "Malloc" says more.
import { spawn } from "node:child_process";

export const TUNABLE = "glibc.malloc.hugetlb=1";

/**
 * Re-runs `script` (this process's entry point) under GLIBC_TUNABLES=glibc.malloc.hugetlb=1
 * unless it is set already, `plain` (--plain-malloc) is given or this is not Linux.
 *
 * @param {string} script absolute path of the entry script
 * @param {boolean} plain
 * @returns {string | undefined} the setting's description, or undefined after starting the re-run
 *   (this process then exits with the re-run's status)
 */
export function mallocSetting(script, plain) {
  const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
  const lib = glibc ? `glibc ${glibc}` : "no glibc";
  if (process.platform !== "linux") return `the platform's malloc (${process.platform})`;
  const current = process.env.GLIBC_TUNABLES;
  if (current?.includes("glibc.malloc.hugetlb=")) return `GLIBC_TUNABLES=${current} (${lib})`;
  if (plain) return `plain malloc, GLIBC_TUNABLES ${current === undefined ? "unset" : `=${current}`} (--plain-malloc; ${lib})`;
  const env = { ...process.env, GLIBC_TUNABLES: current ? `${current}:${TUNABLE}` : TUNABLE, BENCH_NATIVE_GLIBC_TUNABLES: JSON.stringify(current ?? null) };
  const child = spawn(process.execPath, [...process.execArgv, script, ...process.argv.slice(2)], { stdio: "inherit", env });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => {
    console.error(error);
    process.exit(1);
  });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return undefined;
}

/** The native side's environment: as the user started the bench (the re-run's variable removed). */
export function nativeEnv() {
  const saved = process.env.BENCH_NATIVE_GLIBC_TUNABLES;
  if (saved === undefined) return process.env;
  const env = { ...process.env };
  delete env.BENCH_NATIVE_GLIBC_TUNABLES;
  const original = JSON.parse(saved);
  if (original === null) delete env.GLIBC_TUNABLES;
  else env.GLIBC_TUNABLES = original;
  return env;
}
