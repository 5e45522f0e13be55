/**
 * Worker thread of the fuzz driver: loads one target and its seeds, then runs generated inputs
 * or replays given ones, recording progress and outcomes in the shared status array.
 *
 * @example
 * ```ts
 * new Worker(new URL("./worker-node.js", import.meta.url), { workerData: setup });
 * ```
 * @packageDocumentation
 */
import { parentPort, workerData } from "node:worker_threads";
import { loadCorpus } from "./corpus-node.js";
import { classifyError, type Outcome } from "./outcome.js";
import { CODES, SLOT, type FromWorker, type ToWorker, type WorkerSetup } from "./protocol.js";
import { inputRng } from "./rng.js";
import type { FuzzInput } from "./input.js";
import type { FuzzTarget } from "./target.js";
import { findTarget } from "./targets/index.js";

const setup = workerData as WorkerSetup;
const port = parentPort!;
const status = new Int32Array(setup.status);
const target = setup.targetModule !== undefined ? ((await import(setup.targetModule)) as { target: FuzzTarget }).target : findTarget(setup.target);
if (target === undefined) throw new Error(`unknown target ${setup.target}`);
await target.init?.();
let seeds: FuzzInput[] | undefined;

function send(message: FromWorker): void {
  port.postMessage(message);
}

async function runOne(input: FuzzInput, index: number): Promise<Outcome> {
  Atomics.store(status, SLOT.index, index);
  Atomics.store(status, SLOT.busy, 1);
  Atomics.add(status, SLOT.started, 1);
  let outcome: Outcome;
  try {
    await target!.run(input);
    outcome = { kind: "ok" };
  } catch (error) {
    outcome = classifyError(error);
  }
  Atomics.store(status, SLOT.busy, 0);
  return outcome;
}

function count(outcome: Outcome): void {
  if (outcome.kind === "ok") Atomics.add(status, SLOT.ok, 1);
  else if (outcome.kind === "untyped") Atomics.add(status, SLOT.untyped, 1);
  else if (outcome.kind === "memory") Atomics.add(status, SLOT.memory, 1);
  else if (outcome.kind === "typed") {
    const at = CODES.indexOf(outcome.code ?? "");
    Atomics.add(status, at < 0 ? SLOT.otherTyped : SLOT.typed + at, 1);
  }
}

const onMessage = async (message: ToWorker): Promise<void> => {
  if (message.type === "replay") {
    send({ type: "outcome", outcome: await runOne(new Map(message.files), -1) });
    return;
  }
  try {
    seeds ??= target.seeds(loadCorpus(setup.corpusDir));
    if (seeds.length === 0) throw new Error("the target has no seed inputs");
  } catch (error) {
    send({ type: "fatal", message: `target ${target.name}: ${String(error)}` });
    return;
  }
  let ran = 0;
  let index = message.start;
  for (; ran < message.count; ran++, index += message.stride) {
    if (message.deadline !== 0 && (ran & 15) === 0 && Date.now() >= message.deadline) break;
    // The index is published before generation too: a generator that hangs is also caught.
    Atomics.store(status, SLOT.index, index);
    let outcome: Outcome;
    try {
      const input = target.generate(inputRng(message.seed, target.name, index), seeds);
      outcome = await runOne(input, index);
    } catch (error) {
      // A bug of the fuzzer itself; still a failed run, but never blamed on the code under test.
      outcome = { kind: "untyped", message: `fuzzer generator failed: ${String(error)}` };
    }
    count(outcome);
    if (outcome.kind === "untyped" || outcome.kind === "memory") send({ type: "finding", index, outcome });
  }
  send({ type: "done", next: index, ran });
};

// A failure inside the handler stays an unhandled rejection, which ends the worker as before.
port.on("message", (message: ToWorker) => void onMessage(message));

send({ type: "ready", seeds: 0 });
