// Replays every input kept in conformance/corpus/regressions/blosc/: each must decode to bytes or
// fail with a BcolzError (the code in the sidecar <name>.json when there is one), quickly and
// without allocating what the chunk claims.
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BcolzError } from "@fmt/errors";
import { decompress, getitem } from "../src/index.js";
import { BACKENDS, useBackend } from "./backends.js";

const DIR = fileURLToPath(new URL("../../../conformance/corpus/regressions/blosc/", import.meta.url));
const files = readdirSync(DIR).filter((f) => f.endsWith(".bin")).sort();

describe.each(BACKENDS)("blosc regression inputs (%s backend)", (backend) => {
  useBackend(backend);
  it("the folder holds regression inputs", () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const file of files) {
    it(file, () => {
      const chunk = new Uint8Array(readFileSync(join(DIR, file)));
      const sidecar = join(DIR, file.replace(/\.bin$/, ".json"));
      const expected = existsSync(sidecar) ? (JSON.parse(readFileSync(sidecar, "utf8")) as { expect?: string }).expect : undefined;
      for (const run of [() => decompress(chunk), () => getitem(chunk, 0, 1)]) {
        const before = process.memoryUsage().arrayBuffers;
        let outcome = "ok";
        try {
          run();
        } catch (e) {
          if (!(e instanceof BcolzError)) throw e;
          outcome = e.code;
        }
        expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 2 ** 20);
        if (expected !== undefined) expect(outcome).toBe(expected);
      }
    });
  }
});
