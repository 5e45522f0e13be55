// What every writer child of write-kill.test.ts needs besides the store: a seeded random source
// (the parent derives the seed, so a failing trial replays) and a log whose lines are fsynced
// before the operation they announce, so that a SIGKILL can never lose a line.
import { fsyncSync, openSync, writeSync } from "node:fs";

/** `rand(n)`: an integer in [0, n) from a small xorshift-multiply generator seeded by `seedText`. */
export function seededRandom(seedText) {
  let seed = Number(seedText) >>> 0 || 1;
  return (n) => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return seed % n;
  };
}

/** Opens LOG for appending; `record(entry)` writes one JSON line and fsyncs it; `fd` for closing. */
export function fsyncedLog(logPath) {
  const fd = openSync(logPath, "a");
  return {
    fd,
    record(entry) {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    },
  };
}
