// The requests a read makes, recorded once and replayed without the reader: the remote rows'
// floors (`read-remote.ts`). A format-2 read asks for runs of slots out of its superchunk files
// (ranges of up to the store's `rangeRequestBytes`), not for whole files, so a floor that fetched
// every file whole measured other requests than the read's: bigger answers, the files' free
// space included, fewer of them. Replaying what the read asked for, the floor and the read differ
// only by what the reader does with the bytes.
import { readRange } from "@fmt/fs-adapters";
import type { ByteRange, ReadableStore } from "@fmt/fs-adapters";

/** One request of a read: a key and, when only part of it was asked for, the range. */
export interface RecordedRequest {
  key: string;
  range?: ByteRange;
  /** Whether the key was there when the read asked (an open also asks for keys that are not). */
  found?: boolean;
}

/**
 * `store` seen through a recorder: every `get`, `getRange`, `getInto` and `getRanges` call is
 * appended to `requests` (a `getRanges` call as one request per range), with whether its key was
 * there once it answers. Everything else (`rangeRequestBytes`, `concurrency`, …) is the store's own.
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
        const answer = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (recorder === undefined) return answer;
        const recorded = recorder(args);
        requests.push(...recorded);
        return (answer as Promise<unknown>).then((found: unknown) => {
          for (const request of recorded) request.found = found !== undefined;
          return found;
        });
      };
    },
  });
  return { store, requests };
}

/**
 * Fetches `requests` from `store`, `parallel` at a time, in their order, each into a buffer its
 * worker reuses (`getInto` where the store has it; else `get` or `readRange`): what the read's
 * requests cost with nothing decoded. Resolves to the bytes fetched.
 *
 * @example
 * ```ts
 * const bytes = await replay(new HttpStore(url), requests, 16);
 * ```
 */
export async function replay(store: ReadableStore, requests: readonly RecordedRequest[], parallel: number): Promise<number> {
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      let buffer = new Uint8Array(1 << 20);
      while (next < requests.length) {
        const { key, range, found } = requests[next++]!;
        let value: Uint8Array | undefined;
        if (store.getInto !== undefined) value = await store.getInto(key, buffer, range);
        else value = range === undefined ? await store.get(key) : await readRange(store, key, range);
        if ((value !== undefined) !== (found ?? true)) throw new Error(`${key}: ${value === undefined ? "missing" : "present"} on replay, not as in the read`);
        if (value === undefined) continue;
        // A value that did not fit came in memory of its own: the next one of its size fits.
        if (value.buffer !== buffer.buffer && value.length > buffer.length) buffer = new Uint8Array(value.length);
        bytes += value.length;
      }
    }),
  );
  return bytes;
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
