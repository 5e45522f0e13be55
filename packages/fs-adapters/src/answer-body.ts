/**
 * The body of a 200 or 206 answer read under the checks every remote store makes: the cap of
 * what the request can return (an answer announcing more is refused unread, one streaming past
 * it is cut off) and the announced length (a shorter body is retried). `HttpStore` and the S3
 * store's direct reads both read their bodies here. Browser-safe: no `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import type { HttpAnswer } from "./http.js";
import { InconsistentAnswer, RetryableFailure, bodyCap, rangeHeader } from "./remote.js";
import type { Asked, BodyLimits, RemoteStats } from "./remote.js";

/**
 * Reads the body of `answer` (status `status`) to the request `asked`, into `into` when it fits.
 * `counted`, when given, counts the body's bytes as soon as they are read, whatever the checks
 * after say. Throws {@link InconsistentAnswer} past the cap and {@link RetryableFailure} for a
 * body shorter or longer than its `Content-Length` (compared only when the body was not
 * content-encoded: the header then counts the encoded bytes).
 *
 * @example
 * ```ts
 * const { body, contentRange } = await readAnswerBody(answer, 206, { kind: "range", offset: 0, length: 100 }, limits);
 * ```
 */
export async function readAnswerBody(
  answer: HttpAnswer,
  status: number,
  asked: Asked,
  limits: Required<BodyLimits>,
  into?: Uint8Array,
  counted?: RemoteStats,
): Promise<{ body: Uint8Array; contentRange: string | null }> {
  const announcedHeader = answer.header("content-length");
  const announced = announcedHeader === null ? undefined : Number(announcedHeader);
  const encoded = (answer.header("content-encoding") ?? "identity") !== "identity";
  const cap = bodyCap(asked, status, limits);
  const contentRange = answer.header("content-range");
  const askedText = rangeHeader(asked) ?? "the whole value";
  const received = (n: number) => `${status} ${contentRange ?? "without Content-Range"}, ${n} body bytes`;
  if (announced !== undefined && !encoded && announced > cap) {
    await answer.discard();
    throw new InconsistentAnswer(`the answer announces ${announced} bytes, more than the ${cap} this request can return`, askedText, received(announced));
  }
  const body = await answer.body(cap, (n) => new InconsistentAnswer(`the body runs past the ${cap} bytes this request can return`, askedText, received(n)), into);
  if (counted !== undefined) counted.bytes += body.length;
  if (announced !== undefined && !encoded && announced !== body.length) throw new RetryableFailure(`body of ${body.length} bytes, ${announced} announced`);
  return { body, contentRange };
}
