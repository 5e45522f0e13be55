// `bcolz-ts unlock DIR`: the CLI way to break the stale lock of a killed writer (issue 9). It must
// refuse while the holder runs on this host, unless --force.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BcolzError } from "@fmt/errors";
import { FileSystemStore } from "@fmt/fs-adapters/node";
import { createCarray, createCtable, openCarray, openCtable } from "@fmt/store";
import { runUnlockCommand, UNLOCK_HELP, unlockDataset } from "../src/unlock.js";

const root = mkdtempSync(join(tmpdir(), "unlock-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let serial = 0;

async function failure(p: Promise<unknown>): Promise<BcolzError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BcolzError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

const lockText = (pid: number, host = hostname()): string => `{"owner": "0123", "pid": ${pid}, "hostname": "${host}", "created": "2026-01-01T00:00:00.000Z"}\n`;

describe("bcolz-ts unlock", () => {
  it("refuses while the writer holding the lock is running on this host, removes nothing", async () => {
    const dir = join(root, `d${++serial}`);
    const a = await createCarray(new FileSystemStore(dir), "", [1, 2], { dtype: "<i4" }); // holds .lock, pid = this process
    const e = await failure(unlockDataset(dir));
    expect([e.code, e.path]).toEqual(["LOCKED", ".lock"]);
    expect(e.message).toContain(`process ${process.pid} on this host is still running`);
    expect(existsSync(join(dir, ".lock"))).toBe(true);
    await a.close();
  });

  it("removes a lock whose process is gone, after which a writer gets in", async () => {
    const dir = join(root, `d${++serial}`);
    const a = await createCarray(new FileSystemStore(dir), "", [1, 2], { dtype: "<i4" });
    await a.close();
    writeFileSync(join(dir, ".lock"), lockText(deadPid()));
    expect((await failure(openCarray(new FileSystemStore(dir), "", { mode: "a" }))).code).toBe("LOCKED");
    const out: string[] = [];
    expect(await runUnlockCommand([dir], (s) => out.push(s))).toBe(0);
    expect(out.join("")).toMatch(/^removed \.lock \(process \d+ on this host is gone\)\n$/);
    const w = await openCarray(new FileSystemStore(dir), "", { mode: "a" });
    await w.close();
  });

  it("removes the locks of a ctable and of its columns; refuses one from another host unless --force", async () => {
    const dir = join(root, `d${++serial}`);
    const t = await createCtable(new FileSystemStore(dir), "", [{ name: "a", data: [1] }, { name: "b", data: [2] }]);
    await t.close();
    const dead = deadPid();
    for (const key of [".lock", "a/.lock", "b/.lock"]) writeFileSync(join(dir, key), lockText(dead));
    writeFileSync(join(dir, "b/.lock"), lockText(dead, "elsewhere.example"));
    const e = await failure(unlockDataset(dir));
    expect([e.code, e.path]).toEqual(["LOCKED", "b/.lock"]);
    expect(e.message).toContain("host elsewhere.example");
    expect(existsSync(join(dir, ".lock"))).toBe(true);
    const removed = await unlockDataset(dir, { force: true });
    expect(removed.map((l) => l.key)).toEqual([".lock", "a/.lock", "b/.lock"]);
    for (const key of [".lock", "a/.lock", "b/.lock"]) expect(existsSync(join(dir, key))).toBe(false);
    const w = await openCtable(new FileSystemStore(dir), "", { mode: "a" });
    await w.close();
  });

  it("--force also breaks a live lock; a lock that is not JSON needs --force", async () => {
    const dir = join(root, `d${++serial}`);
    const a = await createCarray(new FileSystemStore(dir), "", [1], { dtype: "<i4" });
    const out: string[] = [];
    expect(await runUnlockCommand([dir, "--force"], (s) => out.push(s))).toBe(0);
    expect(out.join("")).toContain("forced: process");
    expect(existsSync(join(dir, ".lock"))).toBe(false);
    await a.close();
    writeFileSync(join(dir, ".lock"), "garbage");
    expect((await failure(unlockDataset(dir))).message).toContain("not JSON");
    expect((await unlockDataset(dir, { force: true })).length).toBe(1);
    expect(await runUnlockCommand([dir], () => undefined)).toBe(0);
  });

  it("explains itself: help text, and usage errors exit 2", async () => {
    const out: string[] = [];
    expect(await runUnlockCommand(["--help"], (s) => out.push(s))).toBe(0);
    expect(out.join("")).toBe(UNLOCK_HELP);
    expect(UNLOCK_HELP).toContain("--force");
    expect(UNLOCK_HELP).toContain("still running on this host");
    expect(await runUnlockCommand([], () => undefined)).toBe(2);
    expect(await runUnlockCommand(["a", "b"], () => undefined)).toBe(2);
  });

  it("runs from the built bin with exit 3 and the code on a refusal", () => {
    const bin = new URL("../dist/bin.js", import.meta.url).pathname;
    expect(existsSync(bin), "run `pnpm build` first").toBe(true);
    const dir = join(root, `d${++serial}`);
    execFileSync(process.execPath, ["-e", "require('node:fs').mkdirSync(process.argv[1]); require('node:fs').writeFileSync(process.argv[1] + '/.lock', process.argv[2])", dir, lockText(process.pid)]);
    const refused = spawnSync(process.execPath, [bin, "unlock", dir], { encoding: "utf8" });
    expect([refused.status, refused.stderr]).toEqual([3, expect.stringContaining("error LOCKED")]);
    const forced = spawnSync(process.execPath, [bin, "unlock", dir, "--force"], { encoding: "utf8" });
    expect([forced.status, forced.stdout]).toEqual([0, expect.stringContaining("removed .lock")]);
  });
});
