// An HttpTransport that counts what it sends, so that a test can tell requests an S3 store sent
// itself (its direct reads) from those that went through the AWS SDK.
import type { HttpTransport } from "@fmt/fs-adapters/http";

/**
 * `inner`, with `sent` listing each request it sent as `METHOD /path`.
 *
 * @example
 * ```ts
 * const transport = countingTransport(nodeHttpTransport());
 * await new S3Store({ client, bucket, transport }).get("k");
 * console.log(transport.sent); // [] (the first GET goes through the SDK)
 * ```
 */
export function countingTransport(inner: HttpTransport): HttpTransport & { sent: string[] } {
  const sent: string[] = [];
  return Object.assign(async (request: Parameters<HttpTransport>[0]) => {
    sent.push(`${request.method} ${new URL(request.url).pathname}`);
    return inner(request);
  }, { sent });
}
