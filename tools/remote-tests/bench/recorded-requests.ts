// The requests a read makes, recorded once and replayed without the reader: the remote rows'
// floors (`read-remote.ts`). A format-2 read asks for runs of slots out of its superchunk files
// (ranges of up to the store's `rangeRequestBytes`), not for whole files, so a floor that fetched
// every file whole measured other requests than the read's: bigger answers, the files' free
// space included, fewer of them. A replay sends what the read asked for, in its order, the
// requests the read sent alone (the open's chain: the metadata, then each superchunk's index)
// alone too, the others up to 16 at a time: what the read's requests cost with nothing decoded.
import { readRange } from "@fmt/fs-adapters";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";

/** One request of a read: a key and, when only part of it was asked for, the range. */
export interface RecordedRequest {
  key: string;
  range?: ByteRange;
  /** Whether the key was there when the read asked (an open also asks for keys that are not). */
  found?: boolean;
  /** No other request of the read was in flight when it was sent (it waited for the one before). */
  alone?: boolean;
}

/**
 * `store` seen through a recorder: every `get`, `getRange`, `getInto` and `getRanges` call is
 * appended to `requests` (a `getRanges` call as one request per range), with whether it was sent
 * alone and, once it answers, whether its key was there. Everything else (`rangeRequestBytes`,
 * `concurrency`, …) is the store's own.
 *
 * @example
 * ```ts
 * const { store, requests } = recordingStore(new HttpStore(url));
 * await (await openCarray(store, "a.bcolz")).read();
 * requests.length; // the requests of open + read
 * ```
 */
export function recordingStore(inner: ReadableStore): { store: ReadableStore; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  const record: Record<string, (args: unknown[]) => RecordedRequest[]> = {
    get: ([key]) => [{ key: key as string }],
    getRange: ([key, range]) => [{ key: key as string, range: range as ByteRange }],
    getInto: ([key, , range]) => [range === undefined ? { key: key as string } : { key: key as string, range: range as ByteRange }],
    getRanges: ([key, ranges]) => (ranges as ByteRange[]).map((range) => ({ key: key as string, range })),
  };
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver === store ? target : receiver);
      if (typeof value !== "function") return value;
      const recorder = typeof property === "string" ? record[property] : undefined;
      // Methods run on the store itself: its private fields are not the proxy's.
      return (...args: unknown[]) => {
        const recorded = recorder?.(args);
        if (recorded !== undefined) {
          for (const request of recorded) request.alone = inFlight === 0;
          requests.push(...recorded);
          inFlight++;
        }
        const answer = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (recorded === undefined) return answer;
        return (answer as Promise<unknown>).then(
          (found: unknown) => {
            inFlight--;
            for (const request of recorded) request.found = found !== undefined;
            return found;
          },
          (error: unknown) => {
            inFlight--;
            throw error;
          },
        );
      };
    },
  });
  return { store, requests };
}

// Buffers kept from one replay to the next, as a reader keeps its input buffers between passes,
// within the same budget (`idleInputs` of @fmt/store: 24 MiB): fresh ones cost page faults, 7 ms
// of a 70 ms replay on this machine. A replay takes them all, so two at once never share one.
const SPARE_BYTES = 24 * 1024 * 1024;
const spareBuffers: Uint8Array[] = [];

/**
 * Sends `requests` to `store` in their order: those the read sent alone ({@link
 * RecordedRequest.alone}) once every earlier one has answered, and before any later one; the
 * others up to `parallel` at a time. Each answer goes into a reused buffer (`getInto` where the
 * store has it; else `get` or `readRange`). Resolves to the bytes fetched; rejects when a key is
 * there that the read did not find, or the other way round.
 *
 * @example
 * ```ts
 * const bytes = await replay(new HttpStore(url), requests, 16);
 * ```
 */
export async function replay(store: ReadableStore, requests: readonly RecordedRequest[], parallel: number): Promise<number> {
  const free = spareBuffers.splice(0);
  let bytes = 0;
  const inFlight = new Set<Promise<void>>();
  const send = (request: RecordedRequest): Promise<void> => {
    const buffer = free.pop() ?? new Uint8Array(1 << 20);
    const sent = fetchInto(store, request, buffer).then((value) => {
      bytes += value?.length ?? 0;
      // A value that did not fit came in memory of its own: the next one of its size fits.
      free.push(value !== undefined && value.buffer !== buffer.buffer && value.length > buffer.length ? new Uint8Array(value.length) : buffer);
      inFlight.delete(sent);
    });
    inFlight.add(sent);
    return sent;
  };
  try {
    for (const request of requests) {
      if (request.alone === true) {
        await Promise.all(inFlight);
        await send(request);
        continue;
      }
      while (inFlight.size >= parallel) await Promise.race(inFlight);
      void send(request).catch(() => undefined); // its failure is seen by the await that waits for it
    }
    await Promise.all(inFlight);
  } finally {
    let kept = spareBuffers.reduce((sum, b) => sum + b.length, 0);
    for (const buffer of free.sort((a, b) => b.length - a.length)) {
      if (kept + buffer.length > SPARE_BYTES) continue;
      spareBuffers.push(buffer);
      kept += buffer.length;
    }
  }
  return bytes;
}

async function fetchInto(store: ReadableStore, { key, range, found }: RecordedRequest, buffer: Uint8Array): Promise<Uint8Array | undefined> {
  let value: Uint8Array | undefined;
  if (store.getInto !== undefined) value = await store.getInto(key, buffer, range);
  else value = range === undefined ? await store.get(key) : await readRange(store, key, range);
  if ((value !== undefined) !== (found ?? true)) throw new Error(`${key}: ${value === undefined ? "missing" : "present"} on replay, not as in the read`);
  return value;
}

/**
 * curl's `Range` for a recorded range (`offset-last` or `-suffixLength`); `undefined` for a whole
 * value.
 *
 * @example
 * ```ts
 * curlRange({ key: "data/__1__.bin", range: { offset: 4096, length: 100 } }); // "4096-4195"
 * ```
 */
export function curlRange({ range }: RecordedRequest): string | undefined {
  if (range === undefined) return undefined;
  if ("suffixLength" in range) return `-${range.suffixLength}`;
  return `${range.offset}-${range.offset + range.length - 1}`;
}

/**
 * The arguments of `curl` for {@link curlConfig} on its standard input: transfers in parallel,
 * `parallel` at a time, no progress meter (curl 7.88 prints one for parallel transfers even with
 * `--silent`, and it would hide the error line), and no `--fail` here: given on the command line
 * it would apply to the config's first transfer, which may be a key the read did not find.
 *
 * @example
 * ```ts
 * spawn("curl", curlArguments(16)).stdin.end(curlConfig(transfers));
 * ```
 */
export function curlArguments(parallel: number): string[] {
  return ["--silent", "--show-error", "--no-progress-meter", "--parallel", "--parallel-max", String(parallel), "--config", "-"];
}

/**
 * A curl config sending `requests` to `base` + key, each a transfer of its own (`next` between
 * them) with its own `range`, its body to /dev/null, failing only for keys the read found.
 *
 * @example
 * ```ts
 * curlConfig("http://127.0.0.1:8080/", requests);
 * // url = "http://127.0.0.1:8080/a.bcolz/meta/storage"\noutput = "/dev/null"\nfail\nnext\n…
 * ```
 */
export function curlConfig(base: string, requests: readonly RecordedRequest[]): string {
  return requests
    .map((request) => {
      const url = base + request.key.split("/").map(encodeURIComponent).join("/");
      const range = curlRange(request);
      return `url = "${url}"\noutput = "/dev/null"\n${range === undefined ? "" : `range = "${range}"\n`}${request.found ?? true ? "fail\n" : ""}`;
    })
    .join("next\n");
}
