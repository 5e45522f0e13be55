// Recomputes an AWS Signature Version 4 from what a server received, with node:crypto: the tests'
// own check of the signatures our S3 store sends (through the AWS SDK or signed by the store
// itself), independent of both.
import { createHash, createHmac } from "node:crypto";
import type { SeenRequest } from "./misbehaving-server.js";

const hmac = (key: string | Buffer, data: string): Buffer => createHmac("sha256", key).update(data, "utf8").digest();

/**
 * Whether the SigV4 `Authorization` of a request the server received is right for it, computed
 * from what the server saw (canonical request, string to sign, signing key derived from the
 * secret). `host` replaces the received Host header: would the same signature hold for a request
 * to that host?
 *
 * @example
 * ```ts
 * for (const request of server.seen) expect(sigV4Holds(request, "S3RVER")).toBe(true);
 * ```
 */
export function sigV4Holds(request: SeenRequest, secret: string, host?: string): boolean {
  const auth = /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(String(request.headers.authorization ?? ""));
  if (auth === null) return false;
  const [, date, region, service, signedHeaders, signature] = auth as unknown as [string, string, string, string, string, string];
  const headers: Record<string, string | string[] | undefined> = { ...request.headers, ...(host === undefined ? {} : { host }) };
  const url = new URL(request.url, "http://x");
  const query = url.search.slice(1).split("&").filter((p) => p !== "").map((p) => (p.includes("=") ? p : `${p}=`)).sort().join("&");
  const canonicalHeaders = signedHeaders.split(";").map((name) => `${name}:${String(headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const canonical = [request.method, url.pathname, query, canonicalHeaders, signedHeaders, String(headers["x-amz-content-sha256"])].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", String(headers["x-amz-date"]), scope, createHash("sha256").update(canonical, "utf8").digest("hex")].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
  return hmac(key, toSign).toString("hex") === signature;
}

/**
 * Whether a request came through the AWS SDK (which tags each with `amz-sdk-invocation-id`) rather
 * than from the S3 store's own direct reads.
 *
 * @example
 * ```ts
 * const direct = server.seen.filter((r) => !sentBySdk(r));
 * ```
 */
export function sentBySdk(request: SeenRequest): boolean {
  return request.headers["amz-sdk-invocation-id"] !== undefined;
}
