// Redirects that leave the configured origin, against misbehaving servers on loopback that serve
// the same real bcolz 1.2.1 dataset on two ports ("front" is the configured one, "foreign" the
// other origin):
// - the S3 store with `redirects.allowCrossOrigin` follows a 307 to the other port, reads the
//   right values, and what reaches the other host is signed for that host alone (checked by
//   recomputing SigV4 from what that server received); a 301 PermanentRedirect without Location
//   (wrong region) ends in a typed error naming the region and endpoint to use; both when every
//   request goes through the AWS SDK and when the store signs and sends its reads itself;
// - the HTTP store in headless Chromium (where `fetch` hides redirects as `opaqueredirect`):
//   same-origin redirects are followed with the configured headers, cross-origin ones are refused
//   by default, and no configured header reaches the other origin unless it is named.
// - the HTTP store in Node, with each of its transports (fetch, node:http), where redirects are
//   seen as they are: the same policy, and a redirect loop ends after redirects.maxRedirects.
// What the foreign server received in the browser cases goes to artifacts/redirects-browser.json.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadableStore } from "@fmt/fs-adapters";
import { HttpStore, fetchTransport } from "@fmt/fs-adapters/http";
import type { HttpStoreOptions } from "@fmt/fs-adapters/http";
import { nodeHttpTransport } from "@fmt/fs-adapters/http-node";
import { S3Store } from "@fmt/fs-adapters/s3";
import type { S3StoreOptions } from "@fmt/fs-adapters/s3";
import { openCarray } from "@fmt/store";
import { startMisbehavingServer } from "../src/misbehaving-server.js";
import type { MisbehavingServer, MisbehaviourPlan, SeenRequest } from "../src/misbehaving-server.js";
import { sentBySdk, sigV4Holds } from "../src/sigv4-check.js";
import { TEST_BUCKET, makeClient } from "../src/s3-server.js";
import { HTTP_TRANSPORTS } from "../src/transports.js";
import { storageRejection as rejection } from "../src/rejection.js";

const CORPUS = new URL("../../../conformance/corpus/v1/bcolz-real/", import.meta.url).pathname;
const ARTIFACTS = new URL("../artifacts/", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
// clevel 0: chunks stored uncompressed, so bytes from the wrong place would decode as wrong values.
const DATASET = "codec_lz4_c0_s1_i4";
const SECRET = "S3RVER"; // the secret key of makeClient's credentials
const RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 10, timeoutMs: 5000 };
// `cookie` is left out: a page cannot set it on fetch.
const SECRETS = { authorization: "Bearer secret-token", "x-api-key": "secret-key" };

let root: string;
let front: MisbehavingServer;
let foreign: MisbehavingServer;
let expected: Uint8Array;
let largest: { key: string; bytes: Uint8Array };

function largestFile(dataset: string): { key: string; bytes: Uint8Array } {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
  const file = walk(join(root, dataset)).sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
  return { key: file.slice(root.length + 1), bytes: new Uint8Array(readFileSync(file)) };
}

/** Opens the dataset and reads single elements, everything, a middle range and a suffix of its largest file. */
async function readAndCompare(store: ReadableStore): Promise<void> {
  const a = await openCarray(store, DATASET);
  const itemsize = expected.length / a.length;
  for (const i of [0, 1, Math.floor(a.length / 2), a.length - 1]) {
    expect(Array.from(await a.getBytes(i)), `element ${i}`).toEqual(Array.from(expected.subarray(i * itemsize, (i + 1) * itemsize)));
  }
  expect(Array.from(await a.readBytes())).toEqual(Array.from(expected));
  const mid = await store.getRange!(largest.key, { offset: 100, length: 37 });
  expect(Array.from(mid ?? [])).toEqual(Array.from(largest.bytes.subarray(100, 137)));
  const tail = await store.getRange!(largest.key, { suffixLength: 50 });
  expect(Array.from(tail ?? [])).toEqual(Array.from(largest.bytes.subarray(largest.bytes.length - 50)));
}

/** Every request that is not a CORS preflight or one of the test page's own files. */
const dataRequests = (server: MisbehavingServer): SeenRequest[] => server.seen.filter((r) => r.method !== "OPTIONS" && !PAGE_PATHS.has(new URL(r.url, "http://x").pathname));

const toForeign: MisbehaviourPlan = () => ({ kind: "redirect", status: 307, location: (p) => `${foreign.origin}${p}` });

let pageScript = "";
const PAGE_PATHS = new Set(["/page.html", "/fmt.js", "/favicon.ico"]);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "redirects-"));
  cpSync(join(CORPUS, DATASET, "data.bcolz"), join(root, DATASET), { recursive: true });
  expected = new Uint8Array(readFileSync(join(CORPUS, DATASET, "expected", "values.bin")));
  largest = largestFile(DATASET);
  // The HTTP store and openCarray for the page, bundled from their sources.
  const bundled = await build({
    stdin: {
      contents: `import { HttpStore, fetchTransport } from "@fmt/fs-adapters/http"; import { openCarray } from "@fmt/store"; globalThis.fmt = { HttpStore, openCarray };`,
      resolveDir: dirname(fileURLToPath(import.meta.url)),
      loader: "js",
    },
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
    conditions: ["development"],
    logLevel: "silent",
  });
  pageScript = bundled.outputFiles[0]!.text;
  const pages = {
    "/page.html": { type: "text/html; charset=utf-8", body: `<!doctype html><meta charset="utf-8"><title>redirects</title><script src="/fmt.js"></script>` },
    "/fmt.js": { type: "text/javascript; charset=utf-8", body: pageScript },
    "/favicon.ico": { type: "image/x-icon", body: "" },
  };
  front = await startMisbehavingServer(root, { bucket: TEST_BUCKET, cors: true, pages });
  foreign = await startMisbehavingServer(root, { bucket: TEST_BUCKET, cors: true, pages });
});
afterAll(async () => {
  await front?.stop();
  await foreign?.stop();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

/**
 * The S3 store's two ways of reading: every request through the AWS SDK, and its own signed
 * requests through a transport (the `transport` option) once the SDK's first GET showed the route.
 */
const S3_READS: { name: string; options: () => Partial<S3StoreOptions>; direct: boolean }[] = [
  { name: "through the SDK", options: () => ({}), direct: false },
  { name: "direct, node sockets", options: () => ({ transport: nodeHttpTransport() }), direct: true },
  { name: "direct, fetch", options: () => ({ transport: fetchTransport() }), direct: true },
];

describe.each(S3_READS)("S3 store ($name): redirects that leave the configured endpoint", ({ options, direct }) => {
  const makeS3 = (extra: Partial<S3StoreOptions> = {}) => new S3Store({ client: makeClient(front.origin), bucket: TEST_BUCKET, retry: RETRY, ...options(), ...extra });
  /** A store that has read one value without faults, so that its direct reads have their route. */
  const ready = async (extra: Partial<S3StoreOptions> = {}): Promise<S3Store> => {
    const store = makeS3(extra);
    front.setPlan(() => ({ kind: "pass" }));
    await store.get(largest.key);
    return store;
  };

  it("with allowCrossOrigin, a 307 to another port is followed, and each request there is signed for that host alone", async () => {
    // (A direct store learns its route from an answer that is not a redirect: read once first.)
    const store = await ready({ redirects: { allowCrossOrigin: true } });
    front.setPlan(toForeign);
    front.seen.length = 0;
    foreign.seen.length = 0;
    await readAndCompare(store);
    const frontHost = new URL(front.origin).host;
    const foreignHost = new URL(foreign.origin).host;
    expect(front.seen.length).toBeGreaterThan(0);
    expect(foreign.seen).toHaveLength(front.seen.length);
    // A direct store sent every read itself.
    expect(foreign.seen.filter((r) => !sentBySdk(r)).length).toBe(direct ? foreign.seen.length : 0);
    for (const request of foreign.seen) {
      expect(new URL(request.url, "http://x").pathname.startsWith(`/${TEST_BUCKET}/${DATASET}/`)).toBe(true);
      expect(request.headers.host).toBe(foreignHost);
      expect(String(request.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request, ?SignedHeaders=[^,]*\bhost\b/);
      // The signature holds for the request as the foreign host received it…
      expect(sigV4Holds(request, SECRET), `${request.method} ${request.url}`).toBe(true);
      // …and for no other host: not the configured endpoint, where it cannot be replayed.
      expect(sigV4Holds(request, SECRET, frontHost)).toBe(false);
    }
    // The first attempts, to the configured endpoint, were signed for it.
    for (const request of front.seen) expect(sigV4Holds(request, SECRET)).toBe(true);
  });

  it("without allowCrossOrigin the same 307 is refused and nothing reaches the other port", async () => {
    const store = await ready();
    front.setPlan(toForeign);
    front.seen.length = 0;
    foreign.seen.length = 0;
    const error = await rejection(openCarray(store, DATASET));
    expect(error.code).toBe("IO_ERROR");
    expect(error.field).toBe("redirects.allowCrossOrigin");
    expect(String(error.actual)).toContain(foreign.origin);
    expect(foreign.seen).toHaveLength(0);
    expect(front.seen.every((r) => sentBySdk(r) !== direct)).toBe(true);
  });

  for (const allowCrossOrigin of [false, true]) {
    it(`a 301 PermanentRedirect without Location (wrong region) is a typed error naming the region and endpoint${allowCrossOrigin ? ", also with allowCrossOrigin" : ""}`, async () => {
      const store = await ready({ redirects: { allowCrossOrigin } });
      const endpoint = `${TEST_BUCKET}.s3.eu-west-3.amazonaws.com`;
      front.setPlan(() => ({ kind: "wrong-region", region: "eu-west-3", endpoint }));
      front.seen.length = 0;
      foreign.seen.length = 0;
      // GET: the XML body names the endpoint, the header the region.
      const error = await rejection(store.get(largest.key));
      expect(error.code).toBe("IO_ERROR");
      expect(error.path).toBe(largest.key);
      expect(error.field).toBe("client.region");
      expect(error.message).toContain("PermanentRedirect");
      expect(error.message).toContain('region to "eu-west-3"');
      expect(error.message).toContain(endpoint);
      expect(String(error.actual)).toBe(`301 PermanentRedirect (region eu-west-3, endpoint ${endpoint})`);
      expect(front.seen).toHaveLength(1); // not retried
      // HEAD (an empty range): no body, the region alone.
      const head = await rejection(store.getRange(largest.key, { offset: 0, length: 0 }));
      expect(head.code).toBe("IO_ERROR");
      expect(head.field).toBe("client.region");
      expect(head.message).toContain('region to "eu-west-3"');
      expect(front.seen.map((r) => r.method)).toEqual(["GET", "HEAD"]);
      expect(front.seen.every((r) => sentBySdk(r) !== direct)).toBe(true);
      expect(foreign.seen).toHaveLength(0);
    });
  }
});

describe.each(HTTP_TRANSPORTS)("HTTP store in Node ($name): redirects", (transport) => {
  const makeHttp = (extra: HttpStoreOptions = {}) => new HttpStore(`${front.origin}/`, { headers: { ...SECRETS }, retry: RETRY, ...extra, ...transport.options() });

  it("a same-origin redirect is followed with every configured header, and the values are right", async () => {
    // The redirect target answers 403 to a request without the API key, as an authenticated
    // server would.
    front.setPlan(({ path, headers }) => {
      if (!path.startsWith("/moved/")) return { kind: "redirect", status: 307, location: (p) => `/moved${p}` };
      return headers["x-api-key"] === SECRETS["x-api-key"] ? { kind: "pass" } : { kind: "refuse", status: 403 };
    });
    front.seen.length = 0;
    foreign.seen.length = 0;
    await readAndCompare(makeHttp());
    const moved = front.seen.filter((r) => r.url.startsWith("/moved/"));
    expect(moved.length).toBeGreaterThan(0);
    expect(moved).toHaveLength(front.seen.length - moved.length); // one redirect, one answer per read
    for (const request of moved) {
      expect(request.headers.authorization).toBe(SECRETS.authorization);
      expect(request.headers["x-api-key"]).toBe(SECRETS["x-api-key"]);
    }
    expect(foreign.seen).toHaveLength(0);
  });

  it("a cross-origin redirect is refused by default with IO_ERROR, and nothing reaches the other origin", async () => {
    front.setPlan(toForeign);
    foreign.seen.length = 0;
    const error = await rejection(openCarray(makeHttp(), DATASET));
    expect(error.code).toBe("IO_ERROR");
    expect(error.field).toBe("redirects.allowCrossOrigin");
    expect(error.message).toMatch(/another origin/);
    expect(String(error.actual)).toContain(foreign.origin);
    expect(foreign.seen).toHaveLength(0);
  });

  it("with allowCrossOrigin the redirect is followed with no configured header, or only the named ones with forwardHeaders", async () => {
    front.setPlan(toForeign);
    foreign.seen.length = 0;
    await readAndCompare(makeHttp({ redirects: { allowCrossOrigin: true } }));
    expect(foreign.seen.length).toBeGreaterThan(0);
    for (const request of foreign.seen) for (const name of Object.keys(SECRETS)) expect(request.headers[name], name).toBeUndefined();

    foreign.seen.length = 0;
    await readAndCompare(makeHttp({ redirects: { allowCrossOrigin: true, forwardHeaders: ["X-Api-Key"] } }));
    expect(foreign.seen.length).toBeGreaterThan(0);
    for (const request of foreign.seen) {
      expect(request.headers["x-api-key"]).toBe(SECRETS["x-api-key"]);
      expect(request.headers.authorization).toBeUndefined();
    }
  });

  it("a redirect loop ends after redirects.maxRedirects with IO_ERROR, not retried", async () => {
    front.setPlan(() => ({ kind: "redirect", status: 302, location: (p) => `/moved${p}` }));
    front.seen.length = 0;
    const store = makeHttp({ redirects: { maxRedirects: 2 } });
    const error = await rejection(store.get(largest.key));
    expect(error.code).toBe("IO_ERROR");
    expect(error.path).toBe(largest.key);
    expect(error.field).toBe("redirects.maxRedirects");
    expect(String(error.actual)).toContain("/moved/moved/moved/");
    expect(front.seen).toHaveLength(3);
    expect(store.stats.snapshot()).toMatchObject({ requests: 3, retries: 0 });
  });
});

interface PageOutcome {
  ok: boolean;
  values?: number[];
  mid?: number[];
  tail?: number[];
  error?: { name: string; code: string; message: string; field: string; actual: string };
}

describe("HTTP store in headless Chromium: redirects hidden by fetch (opaqueredirect)", () => {
  let browser: Browser;
  const observed: Record<string, unknown> = {};

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  });
  afterAll(async () => {
    await browser?.close();
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, "redirects-browser.json"), `${JSON.stringify(observed, null, 2)}\n`);
  });

  /**
   * Loads the page from `pageOrigin` (default the front server's, so the store's base URL is
   * same-origin with the page) and reads the dataset from the front server with an HttpStore made
   * with `options`.
   */
  async function readInPage(options: HttpStoreOptions, pageOrigin = front.origin): Promise<PageOutcome> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on("pageerror", (e) => pageErrors.push(String(e)));
      await page.goto(`${pageOrigin}/page.html`);
      const outcome = await page.evaluate(
        async ({ base, options, dataset, key }) => {
          const fmt = (globalThis as unknown as { fmt: { HttpStore: typeof HttpStore; openCarray: typeof openCarray } }).fmt;
          const store = new fmt.HttpStore(base, options);
          try {
            const values = await (await fmt.openCarray(store, dataset)).readBytes();
            const mid = await store.getRange(key, { offset: 100, length: 37 });
            const tail = await store.getRange(key, { suffixLength: 50 });
            return { ok: true, values: Array.from(values), mid: Array.from(mid ?? []), tail: Array.from(tail ?? []) };
          } catch (e) {
            const error = e as { name: string; code: string; message: string; field: string; actual: unknown };
            return { ok: false, error: { name: error.name, code: error.code, message: error.message, field: error.field, actual: String(error.actual) } };
          }
        },
        { base: `${front.origin}/`, options: { ...options, retry: RETRY }, dataset: DATASET, key: largest.key },
      );
      expect(pageErrors).toEqual([]);
      return outcome;
    } finally {
      await context.close();
    }
  }

  function expectRightValues(outcome: PageOutcome): void {
    expect(outcome.error).toBeUndefined();
    expect(outcome.values).toEqual(Array.from(expected));
    expect(outcome.mid).toEqual(Array.from(largest.bytes.subarray(100, 137)));
    expect(outcome.tail).toEqual(Array.from(largest.bytes.subarray(largest.bytes.length - 50)));
  }

  /** What a server received: method, path, and the configured or CORS headers it carried. */
  const summary = (requests: SeenRequest[]) =>
    requests.map((r) => ({
      method: r.method,
      url: r.url,
      headers: Object.fromEntries(Object.entries(r.headers).filter(([name]) => name in SECRETS || name === "range" || name === "origin" || name.startsWith("access-control-"))),
    }));

  for (const pageOn of ["the store's origin", "another origin (CORS)"] as const) {
    it(`a same-origin redirect is followed with every configured header, and the values are right (page on ${pageOn})`, async () => {
      // The redirect target answers 403 to a request without the API key, as an authenticated
      // server would.
      front.setPlan(({ path, headers }) => {
        if (!path.startsWith("/moved/")) return { kind: "redirect", status: 307, location: (p) => `/moved${p}` };
        return headers["x-api-key"] === SECRETS["x-api-key"] ? { kind: "pass" } : { kind: "refuse", status: 403 };
      });
      front.seen.length = 0;
      foreign.seen.length = 0;
      const outcome = await readInPage({ headers: { ...SECRETS } }, pageOn === "the store's origin" ? front.origin : foreign.origin);
      observed[`same-origin redirect, page on ${pageOn}: front`] = summary(front.seen);
      expectRightValues(outcome);
      const moved = dataRequests(front).filter((r) => r.url.startsWith("/moved/"));
      // Observed: per read, the store's request with its headers (redirected; the browser hides
      // where to), the browser following it without them to /moved/… (403 there), and the store
      // asking /moved/… again with every configured header.
      const asked = dataRequests(front).filter((r) => !r.url.startsWith("/moved/") && r.headers["x-api-key"] === SECRETS["x-api-key"]);
      const withHeaders = moved.filter((r) => r.headers.authorization === SECRETS.authorization && r.headers["x-api-key"] === SECRETS["x-api-key"]);
      expect(asked.length).toBeGreaterThan(0);
      expect(withHeaders.length).toBe(asked.length);
      expect(dataRequests(foreign)).toHaveLength(0);
    });
  }

  it("a cross-origin redirect is refused by default with IO_ERROR, and no configured header reaches the other origin", async () => {
    front.setPlan(toForeign);
    foreign.seen.length = 0;
    const outcome = await readInPage({ headers: { ...SECRETS } });
    observed["cross-origin redirect, default: foreign"] = summary(foreign.seen);
    observed["cross-origin redirect, default: error"] = outcome.error;
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.name).toBe("StorageError");
    expect(outcome.error?.code).toBe("IO_ERROR");
    expect(outcome.error?.field).toBe("redirects.allowCrossOrigin");
    expect(outcome.error?.message).toMatch(/another origin/);
    expect(outcome.error?.actual).toContain(foreign.origin);
    // Observed in Chromium: the browser follows the header-less request there (a GET with no
    // configured header, no preflight as it carries no header that needs one) before the store
    // sees where it ended and refuses the answer.
    expect(foreign.seen.length).toBeGreaterThan(0);
    for (const request of foreign.seen) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers["x-api-key"]).toBeUndefined();
      expect(String(request.headers["access-control-request-headers"] ?? "")).not.toMatch(/authorization|x-api-key/);
    }
  });

  it("a cross-origin redirect to a server that does not speak CORS fails with IO_ERROR, and no configured header reaches it", async () => {
    const plain = await startMisbehavingServer(root);
    try {
      front.setPlan(() => ({ kind: "redirect", status: 307, location: (p) => `${plain.origin}${p}` }));
      for (const redirects of [{}, { allowCrossOrigin: true }]) {
        plain.seen.length = 0;
        const outcome = await readInPage({ headers: { ...SECRETS }, redirects });
        observed[`cross-origin redirect to a server without CORS, ${JSON.stringify(redirects)}: that server`] = summary(plain.seen);
        observed[`cross-origin redirect to a server without CORS, ${JSON.stringify(redirects)}: error`] = outcome.error;
        // Observed in Chromium: the browser sends the header-less GET there, then refuses to hand
        // its answer to the page (no Access-Control-Allow-Origin): fetch fails with a TypeError
        // and the store reports IO_ERROR (it cannot tell where the redirect went).
        expect(outcome.error?.name).toBe("StorageError");
        expect(outcome.error?.code).toBe("IO_ERROR");
        expect(plain.seen.length).toBeGreaterThan(0);
        expect(plain.seen.length).toBeLessThanOrEqual(RETRY.maxAttempts);
        for (const request of plain.seen) {
          expect(request.method).toBe("GET");
          expect(request.headers.authorization).toBeUndefined();
          expect(request.headers["x-api-key"]).toBeUndefined();
        }
      }
    } finally {
      await plain.stop();
    }
  });

  it("with allowCrossOrigin the redirect is followed with no configured header, or only the named ones with forwardHeaders", async () => {
    front.setPlan(toForeign);
    foreign.seen.length = 0;
    expectRightValues(await readInPage({ headers: { ...SECRETS }, redirects: { allowCrossOrigin: true } }));
    observed["cross-origin redirect, allowCrossOrigin: foreign"] = summary(foreign.seen);
    expect(dataRequests(foreign).length).toBeGreaterThan(0);
    for (const request of foreign.seen) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers["x-api-key"]).toBeUndefined();
    }

    foreign.seen.length = 0;
    expectRightValues(await readInPage({ headers: { ...SECRETS }, redirects: { allowCrossOrigin: true, forwardHeaders: ["X-Api-Key"] } }));
    observed["cross-origin redirect, allowCrossOrigin + forwardHeaders [X-Api-Key]: foreign"] = summary(foreign.seen);
    const data = dataRequests(foreign);
    expect(data.length).toBeGreaterThan(0);
    for (const request of data) expect(request.headers["x-api-key"]).toBe(SECRETS["x-api-key"]);
    for (const request of foreign.seen) expect(request.headers.authorization).toBeUndefined();
    // A custom header makes Chromium ask the other origin first (CORS preflight): it names the
    // header, never its value, and never authorization.
    const preflights = foreign.seen.filter((r) => r.method === "OPTIONS");
    expect(preflights.length).toBeGreaterThan(0);
    for (const request of preflights) expect(String(request.headers["access-control-request-headers"])).not.toMatch(/authorization/);
  });
});
