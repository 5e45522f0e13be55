// The write check as a test: the reference adapter writes every valid real-bcolz case from its
// description, and the result must match what bcolz wrote (files, headers, deterministic
// metadata bytes, values read back). Requires the build (`pnpm test` builds).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { fileSetExemption, formatTable, judgeWriteAll, runAdapter } from "../src/index.js";

const root = resolve(import.meta.dirname, "../../..");
const adapter = join(root, "conformance/adapters/reference/adapter");
const corpus = join(root, "conformance/corpus");

describe("write check", () => {
  it("the adapter is built and lists write", async () => {
    expect(existsSync(join(root, "packages/cli/dist/adapter-main.js")), "run `pnpm build` first").toBe(true);
    const info = JSON.parse((await runAdapter(adapter, ["info"])).stdout) as { operations: string[] };
    expect(info.operations).toContain("write");
  });

  it("cases produced by later operations are exempt from the file-set comparison, with a reason", () => {
    expect(fileSetExemption({ ops: ["create len 5000 chunklen 1000", "trim(1700)", "flush"] })).toMatch(/trim\(1700\)/);
    expect(fileSetExemption({ ops: ["create mode='w' (all defaults)", "flush"] })).toBeUndefined();
  });

  it("writes every valid v1 case like bcolz", async () => {
    const results = await judgeWriteAll(adapter, corpus);
    expect(results.length).toBeGreaterThanOrEqual(60);
    const failed = results.filter((r) => r.status !== "PASS");
    if (failed.length > 0) console.log(formatTable(failed));
    const exempt = results.filter((r) => r.detail.includes("produced by"));
    // Recorded, not hidden: the operation-derived cases and why their file sets are not compared.
    console.log(exempt.map((r) => `${r.name}: ${r.detail}`).join("\n"));
    expect(exempt.map((r) => r.name).sort()).toEqual(
      ["append_after_reopen_i4", "ctable_addcol", "ctable_append_after_reopen", "dflt_float32_and_attrs", "modified_setitem_f8", "resize_grow_dflt_i8", "trim_f4"].sort(),
    );
    expect(failed.map((r) => `${r.set}/${r.name}: ${r.status} ${r.detail}`)).toEqual([]);
  }, 600_000);
});
