// Two processes on one dataset on disk: while one writer holds the dataset, a second writer is
// refused with LOCKED (naming the lock file) and a reader still opens it; once the first closes,
// the next writer gets in and sees the first one's rows. Both format versions.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, openCarray } from "@fmt/store";

const CONTENDER = fileURLToPath(new URL("./kill/contender.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "bcolz-two-writers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(root: string, mode: "a" | "r"): { child: ChildProcessWithoutNullStreams; next: () => Promise<string> } {
  const child = spawn(process.execPath, [CONTENDER, root, mode], { stdio: ["pipe", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffer = "";
  child.stdout.on("data", (d: Buffer) => {
    buffer += d.toString();
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const next = (): Promise<string> =>
    lines.length > 0
      ? Promise.resolve(lines.shift()!)
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no answer from the ${mode} process`)), 60_000);
          waiters.push((line) => {
            clearTimeout(timer);
            resolve(line);
          });
        });
  return { child, next };
}

for (const format of [1, 2] as const) {
  describe(`format ${format}: two writers in two processes`, () => {
    it("the second writer is refused with LOCKED while the first holds the dataset", async () => {
      const root = join(dir, `v${format}`);
      const options = format === 1 ? {} : { formatVersion: 2 as const, superchunksize: 2 };
      const created = await createCarray(new FileSystemStore(root), "ds", new Int32Array([1, 2, 3, 4]), { dtype: "<i4", chunklen: 3, ...options });
      await created.close();
      expect(created.formatVersion).toBe(format);

      const first = start(root, "a");
      expect(await first.next()).toBe("GOT");

      const second = start(root, "a");
      expect(await second.next()).toBe("REFUSED LOCKED ds/.lock");

      // Format 2: the append rewrites the partial chunk 1 and adds chunk 2, in superchunk 2.
      first.child.stdin.write("append\n");
      expect(await first.next()).toBe("APPENDED");
      const reader = start(root, "r");
      expect(await reader.next()).toBe("READ 7");

      first.child.stdin.write("close\n");
      expect(await first.next()).toBe("CLOSED");

      const third = start(root, "a");
      expect(await third.next()).toBe("GOT");
      third.child.stdin.write("close\n");
      expect(await third.next()).toBe("CLOSED");

      const final = await openCarray(new FileSystemStore(root), "ds");
      expect(final.formatVersion).toBe(format);
      expect(Array.from((await final.read()) as Int32Array)).toEqual([1, 2, 3, 4, 7, 8, 9]);
    }, 180_000);
  });
}
