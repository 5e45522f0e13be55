/**
 * The body of a GetObject answer as the SDK gives it, made readable by `readCapped`; used by
 * {@link S3Store}'s SDK path. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import type { GetObjectCommandOutput } from "@aws-sdk/client-s3";

/** A body as `readCapped` reads it. */
export type BodySource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * A GetObject body as `readCapped` reads it: a web stream (browsers) as it is; a Node stream
 * (async iterable) read directly, without the SDK's conversion into a web stream, which cost a
 * stream adapter per object and showed in profiles of many-object reads; anything else through
 * the SDK's `transformToWebStream`.
 */
export function bodyOf(body: GetObjectCommandOutput["Body"]): BodySource | undefined {
  if (body === undefined) return undefined;
  const source = body as unknown as Partial<ReadableStream<Uint8Array>> & Partial<AsyncIterable<Uint8Array>>;
  if (typeof source.getReader === "function") return source as ReadableStream<Uint8Array>;
  if (typeof source[Symbol.asyncIterator] === "function") return source as AsyncIterable<Uint8Array>;
  return body.transformToWebStream();
}

/** Stops reading a body that will not be used (its connection is not reused). */
export async function discardBody(body: BodySource | undefined): Promise<void> {
  if (body === undefined) return;
  if ("getReader" in body) {
    await body.cancel().catch(() => undefined);
    return;
  }
  const destroy = (body as { destroy?: unknown }).destroy;
  if (typeof destroy === "function") (destroy as () => void).call(body);
  else await body[Symbol.asyncIterator]().return?.()?.catch(() => undefined);
}
