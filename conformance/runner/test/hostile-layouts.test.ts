// Replays conformance/corpus/regressions/fs/: datasets whose directory holds a FIFO, a link to a
// device, a link loop or an over-long name. The reference adapter, run as its own process, must
// exit 3 with the recipe's code: never 1 with a stack trace, never hang. Requires the build.
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdapter } from "../src/index.js";

const root = resolve(import.meta.dirname, "../../..");
const adapter = join(root, "conformance/adapters/reference/adapter");
const corpus = join(root, "conformance/corpus");
const recipes = join(corpus, "regressions/fs");

type Step = { fifo: string } | { symlink: string; target: string } | { rootdirs: string[] };
interface Recipe {
  why: string;
  expect: string;
  base: string;
  plant: Step[];
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "fmt-hostile-layouts-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function build(name: string, recipe: Recipe): Promise<string> {
  const dir = join(scratch, name);
  await cp(join(corpus, recipe.base), dir, { recursive: true });
  for (const step of recipe.plant) {
    if ("fifo" in step) {
      await rm(join(dir, step.fifo), { recursive: true, force: true });
      execFileSync("mkfifo", [join(dir, step.fifo)]);
    } else if ("symlink" in step) {
      await rm(join(dir, step.symlink), { recursive: true, force: true });
      await symlink(step.target, join(dir, step.symlink));
    } else {
      await writeFile(join(dir, "__rootdirs__"), `${JSON.stringify({ names: step.rootdirs })}\n`);
    }
  }
  return dir;
}

const names = (await readdir(recipes)).filter((f) => f.endsWith(".json")).sort();

describe("reference adapter on hostile directory layouts", () => {
  it("has the recipes", () => {
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  it.each(names)("%s exits 3 with its code", async (file) => {
    const recipe = JSON.parse(await readFile(join(recipes, file), "utf8")) as Recipe;
    const dataset = await build(file.replace(/\.json$/, ""), recipe);
    const run = await runAdapter(adapter, ["read", dataset, join(scratch, `${file}-out`)], 30_000);
    expect(run.timedOut, "the adapter hung").toBe(false);
    expect({ exit: run.code, stderr: run.stderr }).toEqual({ exit: 3, stderr: "" });
    const reported = JSON.parse(run.stdout.trim()) as { code: string; message: string };
    expect(reported.code).toBe(recipe.expect);
  }, 60_000);
});
