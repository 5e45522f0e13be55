/**
 * AWS Signature Version 4 for the GET and HEAD requests {@link S3Store} sends itself when it has
 * a `transport` ({@link S3StoreOptions.transport}), and where those requests go: the route
 * ({@link S3Route}) is learned from a request the AWS SDK built and signed for the same bucket,
 * so that the endpoint, the addressing style (path or virtual host) and the signing region are
 * the SDK's own answers, not a second implementation of its endpoint rules. Browser-safe: no
 * `node:` imports.
 *
 * @internal
 * @packageDocumentation
 */

import { hmacSha256, sha256, toHex } from "./sha256.js";

/** SHA-256 of the empty body, the payload hash of a GET or HEAD. */
export const EMPTY_PAYLOAD_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/**
 * Credentials as the SDK's providers give them.
 *
 * @example
 * ```ts
 * const credentials: S3Credentials = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
 * ```
 */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

/**
 * Where the objects of one bucket are asked for, and how requests for them are signed.
 *
 * @example
 * ```ts
 * const route: S3Route = { origin: "http://127.0.0.1:9000", basePath: "/datasets/", region: "us-east-1", service: "s3", signed: true };
 * ```
 */
export interface S3Route {
  /** `scheme://host[:port]` of the endpoint. */
  origin: string;
  /** The path before an object's encoded key: `"/bucket/"` (path style) or `"/"` (virtual host). */
  basePath: string;
  /** The signing region (the credential scope's third part). */
  region: string;
  /** The signing service, `s3`. */
  service: string;
  /** `false` when the SDK sent the request unsigned (anonymous access): requests here are too. */
  signed: boolean;
}

/**
 * A key as S3 request paths carry it: each `/`-separated segment percent-encoded except for the
 * unreserved characters `A-Z a-z 0-9 - _ . ~`, as the SDK writes it. S3 signs the path exactly
 * as sent (no second encoding), so this is also the canonical URI's tail.
 *
 * @example
 * ```ts
 * encodeS3Key("ds/data/__0 (1).blp"); // "ds/data/__0%20%281%29.blp"
 * ```
 */
export function encodeS3Key(key: string): string {
  return key.split("/").map(encodeComponent).join("/");
}

/** Percent-encodes everything but `A-Z a-z 0-9 - _ . ~` (SigV4's URI encoding, `/` included). */
function encodeComponent(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** What {@link learnRoute} reads from a request the SDK is about to send. */
export interface SentRequest {
  protocol: string;
  hostname: string;
  port?: number | undefined;
  path: string;
  headers: Record<string, string>;
}

const CREDENTIAL_SCOPE = /^AWS4-HMAC-SHA256 Credential=[^/,\s]+\/\d{8}\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,/;

/**
 * The route to `fullKey`'s bucket, read from the SDK's signed GetObject request for it, or
 * `undefined` when that request cannot serve as a model: its path does not end in the encoded
 * key, or it is signed otherwise than with SigV4 (SigV4a, S3 Express sessions), which requests
 * sent here could not reproduce. Those stores keep sending every request through the SDK.
 *
 * @example
 * ```ts
 * learnRoute({ protocol: "http:", hostname: "127.0.0.1", port: 9000, path: "/b/ds/meta/sizes", headers: { authorization: "AWS4-HMAC-SHA256 Credential=K/20261130/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0" } }, "ds/meta/sizes");
 * // { origin: "http://127.0.0.1:9000", basePath: "/b/", region: "us-east-1", service: "s3", signed: true }
 * ```
 */
export function learnRoute(request: SentRequest, fullKey: string): S3Route | undefined {
  const tail = encodeS3Key(fullKey);
  if (!request.path.endsWith(tail) || !request.path.slice(0, -tail.length).endsWith("/")) return undefined;
  let authorization: string | undefined;
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === "authorization") authorization = value;
    // Session-based schemes (S3 Express) and anything the SDK adds to every request for
    // authentication would be missing from ours.
    if (lower === "x-amz-s3session-token" || lower === "x-amz-region-set") return undefined;
  }
  const protocol = request.protocol.endsWith(":") ? request.protocol : `${request.protocol}:`;
  if (protocol !== "http:" && protocol !== "https:") return undefined;
  let origin: string;
  try {
    origin = new URL(`${protocol}//${request.hostname}${request.port === undefined ? "" : `:${request.port}`}`).origin;
  } catch {
    return undefined; // a host this store could not address itself: reads stay on the SDK
  }
  const basePath = request.path.slice(0, -tail.length);
  if (authorization === undefined) return { origin, basePath, region: "", service: "", signed: false };
  const scope = CREDENTIAL_SCOPE.exec(authorization);
  if (scope === null) return undefined;
  return { origin, basePath, region: scope[1]!, service: scope[2]!, signed: true };
}

/**
 * SigV4's canonical query string of `url`: each name and value percent-encoded (`/` too), the
 * pairs sorted by name, then value, joined by `&`; a name without a value gets `=`.
 *
 * @example
 * ```ts
 * canonicalQuery(new URL("https://h/k?prefix=a/b&flag")); // "flag=&prefix=a%2Fb"
 * ```
 */
export function canonicalQuery(url: URL): string {
  return [...url.searchParams]
    .map(([name, value]) => [encodeComponent(name), encodeComponent(value)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

/**
 * Where a signer keeps the signing key of its last day, region, service and secret (deriving one
 * takes four HMACs): one per store, so that a secret lives no longer than the store that uses it.
 *
 * @example
 * ```ts
 * const cache: SigningKeyCache = {};
 * signS3Request("GET", url, {}, credentials, "us-east-1", "s3", new Date(), cache);
 * ```
 */
export interface SigningKeyCache {
  last?: { secret: string; scope: string; key: Uint8Array };
}

function signingKey(secret: string, day: string, region: string, service: string, cache: SigningKeyCache): Uint8Array {
  const scope = `${day}/${region}/${service}`;
  const last = cache.last;
  if (last !== undefined && last.secret === secret && last.scope === scope) return last.key;
  const key = hmacSha256(hmacSha256(hmacSha256(hmacSha256(`AWS4${secret}`, day), region), service), "aws4_request");
  cache.last = { secret, scope, key };
  return key;
}

/**
 * The headers of a signed S3 GET or HEAD of `url` (SigV4, `Authorization` header, empty payload):
 * `host`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` with a session token, the
 * given `headers` (such as `range`), all signed, and `authorization`. `url`'s path must already be
 * encoded as S3 wants it ({@link encodeS3Key}); S3 signs it as it is. `cache` keeps the signing
 * key between calls ({@link SigningKeyCache}).
 *
 * @example
 * ```ts
 * const headers = signS3Request("GET", new URL("https://examplebucket.s3.amazonaws.com/test.txt"), { range: "bytes=0-9" },
 *   { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }, "us-east-1", "s3", new Date("2013-05-24T00:00:00Z"));
 * headers.authorization; // "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8…"
 * ```
 */
export function signS3Request(
  method: "GET" | "HEAD",
  url: URL,
  headers: Record<string, string>,
  credentials: S3Credentials,
  region: string,
  service: string,
  date: Date = new Date(),
  cache: SigningKeyCache = {},
): Record<string, string> {
  const stamp = date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, ""); // 20130524T000000Z
  const day = stamp.slice(0, 8);
  const all: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) all[name.toLowerCase()] = value.trim().replace(/\s+/g, " ");
  all.host = url.host;
  all["x-amz-date"] = stamp;
  all["x-amz-content-sha256"] = EMPTY_PAYLOAD_SHA256;
  if (credentials.sessionToken !== undefined && credentials.sessionToken !== "") all["x-amz-security-token"] = credentials.sessionToken;
  const names = Object.keys(all).sort();
  const signedHeaders = names.join(";");
  const query = canonicalQuery(url);
  const canonical = `${method}\n${url.pathname}\n${query}\n${names.map((name) => `${name}:${all[name]!}\n`).join("")}\n${signedHeaders}\n${EMPTY_PAYLOAD_SHA256}`;
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${stamp}\n${scope}\n${toHex(sha256(canonical))}`;
  const signature = toHex(hmacSha256(signingKey(credentials.secretAccessKey, day, region, service, cache), toSign));
  all.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return all;
}
