// SHA-256, HMAC-SHA256 and the SigV4 signature of the S3 store's direct reads, against node:crypto
// (an independent implementation) and against the signed example in AWS's S3 API reference
// ("Signature Calculations for the Authorization Header", GET Object with a Range), and the route
// read off the SDK's requests.
import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hmacSha256, sha256, toHex } from "../src/sha256.js";
import { EMPTY_PAYLOAD_SHA256, canonicalQuery, encodeS3Key, learnRoute, signS3Request } from "../src/s3-sign.js";
import type { SigningKeyCache } from "../src/s3-sign.js";

const AWS_EXAMPLE = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };

describe("sha256 and hmacSha256", () => {
  it("agree with node:crypto on any bytes, across the padding boundaries", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        expect(toHex(sha256(data))).toBe(createHash("sha256").update(data).digest("hex"));
      }),
      { seed: 1127, numRuns: 400 },
    );
    for (let n = 50; n < 140; n++) {
      const data = new Uint8Array(n).fill(n);
      expect(toHex(sha256(data)), `${n} bytes`).toBe(createHash("sha256").update(data).digest("hex"));
    }
  });

  it("hash text as UTF-8", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (text) => {
        expect(toHex(sha256(text))).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
      }),
      { seed: 1128, numRuns: 200 },
    );
    expect(toHex(sha256(""))).toBe(EMPTY_PAYLOAD_SHA256);
  });

  it("HMAC agrees with node:crypto for keys shorter and longer than a block", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 150 }), fc.uint8Array({ maxLength: 200 }), (key, data) => {
        expect(toHex(hmacSha256(key, data))).toBe(createHmac("sha256", key).update(data).digest("hex"));
      }),
      { seed: 1129, numRuns: 300 },
    );
  });
});

describe("signS3Request", () => {
  it("reproduces the signature of AWS's documented GET Object example", () => {
    const headers = signS3Request("GET", new URL("https://examplebucket.s3.amazonaws.com/test.txt"), { range: "bytes=0-9" }, AWS_EXAMPLE, "us-east-1", "s3", new Date("2013-05-24T00:00:00Z"));
    expect(headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
    expect(headers["x-amz-date"]).toBe("20130524T000000Z");
    expect(headers["x-amz-content-sha256"]).toBe(EMPTY_PAYLOAD_SHA256);
    expect(headers.host).toBe("examplebucket.s3.amazonaws.com");
    expect(headers.range).toBe("bytes=0-9");
  });

  it("signs a session token and the port of the host, and changes with every signed part", () => {
    const url = new URL("http://127.0.0.1:9000/bucket/ds/meta/sizes");
    const date = new Date("2026-11-30T12:34:56.789Z");
    const base = signS3Request("HEAD", url, {}, { ...AWS_EXAMPLE, sessionToken: "token/1" }, "eu-west-3", "s3", date);
    expect(base.host).toBe("127.0.0.1:9000");
    expect(base["x-amz-security-token"]).toBe("token/1");
    expect(base.authorization).toContain("/20261130/eu-west-3/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,");
    const variants = [
      signS3Request("GET", url, {}, { ...AWS_EXAMPLE, sessionToken: "token/1" }, "eu-west-3", "s3", date),
      signS3Request("HEAD", new URL("http://127.0.0.1:9001/bucket/ds/meta/sizes"), {}, { ...AWS_EXAMPLE, sessionToken: "token/1" }, "eu-west-3", "s3", date),
      signS3Request("HEAD", new URL("http://127.0.0.1:9000/bucket/ds/meta/sizez"), {}, { ...AWS_EXAMPLE, sessionToken: "token/1" }, "eu-west-3", "s3", date),
      signS3Request("HEAD", url, {}, { ...AWS_EXAMPLE, sessionToken: "token/2" }, "eu-west-3", "s3", date),
      signS3Request("HEAD", url, {}, { ...AWS_EXAMPLE, secretAccessKey: "other", sessionToken: "token/1" }, "eu-west-3", "s3", date),
      signS3Request("HEAD", url, {}, { ...AWS_EXAMPLE, sessionToken: "token/1" }, "eu-west-1", "s3", date),
      signS3Request("HEAD", url, {}, { ...AWS_EXAMPLE, sessionToken: "token/1" }, "eu-west-3", "s3", new Date(date.getTime() + 1000)),
    ];
    const signatures = new Set([base, ...variants].map((h) => h.authorization!.slice(-64)));
    expect(signatures.size).toBe(variants.length + 1);
  });

  it("keeps the signing key of a day and region in the store's cache, and derives a new one for another secret", () => {
    const url = new URL("https://b.s3.amazonaws.com/k");
    const date = new Date("2013-05-24T00:00:00Z");
    const other = { ...AWS_EXAMPLE, secretAccessKey: "another" };
    const cache: SigningKeyCache = {};
    const first = signS3Request("GET", url, {}, AWS_EXAMPLE, "us-east-1", "s3", date, cache).authorization;
    const firstKey = cache.last?.key;
    // With the cache holding the first secret's key, another secret still signs as it would alone.
    const second = signS3Request("GET", url, {}, other, "us-east-1", "s3", date, cache).authorization;
    expect(second).toBe(signS3Request("GET", url, {}, other, "us-east-1", "s3", date, {}).authorization);
    expect(second).not.toBe(first);
    expect(cache.last?.key).not.toEqual(firstKey);
    expect(signS3Request("GET", url, {}, AWS_EXAMPLE, "us-east-1", "s3", date, cache).authorization).toBe(first);
    // Another day or region derives anew too.
    expect(signS3Request("GET", url, {}, AWS_EXAMPLE, "us-east-1", "s3", new Date("2013-05-25T00:00:00Z"), cache).authorization).toBe(
      signS3Request("GET", url, {}, AWS_EXAMPLE, "us-east-1", "s3", new Date("2013-05-25T00:00:00Z"), {}).authorization,
    );
  });

  it("encodes the query as SigV4 wants it: every reserved character, slashes included, pairs sorted", () => {
    expect(canonicalQuery(new URL("https://h/k?prefix=a/b&x=1&flag&a=%2B%20"))).toBe("a=%2B%20&flag=&prefix=a%2Fb&x=1");
    expect(canonicalQuery(new URL("https://h/k?b=2&b=1&a=z~"))).toBe("a=z~&b=1&b=2");
    expect(canonicalQuery(new URL("https://h/k"))).toBe("");
  });
});

describe("encodeS3Key", () => {
  it("leaves only the unreserved characters and slashes unencoded, as S3's canonical URI wants", () => {
    expect(encodeS3Key("ds/data/__0.blp")).toBe("ds/data/__0.blp");
    expect(encodeS3Key("a b/(c)!*'~é")).toBe("a%20b/%28c%29%21%2A%27~%C3%A9");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }), (segment) => {
        const encoded = encodeS3Key(segment.replaceAll("/", "_"));
        expect(encoded).toMatch(/^([A-Za-z0-9\-._~]|%[0-9A-F]{2})*$/);
        expect(decodeURIComponent(encoded)).toBe(segment.replaceAll("/", "_"));
      }),
      { seed: 1130, numRuns: 300 },
    );
  });
});

describe("learnRoute", () => {
  const signed = { authorization: "AWS4-HMAC-SHA256 Credential=AKID/20261130/eu-west-3/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc" };

  it("reads the origin, the path before the key and the signing scope of a path-style request", () => {
    expect(learnRoute({ protocol: "http:", hostname: "127.0.0.1", port: 9000, path: "/bucket/p/ds/meta/sizes", headers: signed }, "p/ds/meta/sizes")).toEqual({
      origin: "http://127.0.0.1:9000",
      basePath: "/bucket/",
      region: "eu-west-3",
      service: "s3",
      signed: true,
    });
  });

  it("reads a virtual-hosted request with an encoded key, and an unsigned (anonymous) one", () => {
    expect(learnRoute({ protocol: "https:", hostname: "bucket.s3.eu-west-3.amazonaws.com", path: "/a%20b/c", headers: signed }, "a b/c")).toMatchObject({ origin: "https://bucket.s3.eu-west-3.amazonaws.com", basePath: "/" });
    expect(learnRoute({ protocol: "https", hostname: "h", port: 443, path: "/b/k", headers: {} }, "k")).toEqual({ origin: "https://h", basePath: "/b/", region: "", service: "", signed: false });
  });

  it("refuses requests that cannot serve as a model: another path, another signature scheme, S3 Express sessions", () => {
    expect(learnRoute({ protocol: "http:", hostname: "h", path: "/b/other", headers: signed }, "k")).toBeUndefined();
    expect(learnRoute({ protocol: "http:", hostname: "h", path: "/b/xk", headers: signed }, "k")).toBeUndefined();
    expect(learnRoute({ protocol: "http:", hostname: "h", path: "/b/k", headers: { authorization: "AWS4-ECDSA-P256-SHA256 Credential=AKID/20261130/s3/aws4_request, SignedHeaders=host, Signature=abc" } }, "k")).toBeUndefined();
    expect(learnRoute({ protocol: "http:", hostname: "h", path: "/b/k", headers: { ...signed, "x-amz-s3session-token": "t" } }, "k")).toBeUndefined();
    expect(learnRoute({ protocol: "ftp:", hostname: "h", path: "/b/k", headers: signed }, "k")).toBeUndefined();
    expect(learnRoute({ protocol: "http:", hostname: "bad host", path: "/b/k", headers: signed }, "k")).toBeUndefined();
    expect(learnRoute({ protocol: "http:", hostname: "[::1]", port: 9000, path: "/b/k", headers: signed }, "k")).toMatchObject({ origin: "http://[::1]:9000" });
  });
});
