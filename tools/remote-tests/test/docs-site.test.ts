// The docs site (`pnpm api-docs`: typedoc with the spec and the guides as documents) built into a
// temporary directory, served on loopback and crawled in headless Chromium: every HTML page is
// opened, every same-origin link on it (the script-built navigation included) is followed, and a
// link fails when its target does not answer 200 or its #fragment names no element of the target
// page. Links that a Markdown linkifier made out of file names (`http://README.md`) fail too.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStaticServer } from "../src/static-server.js";
import type { StaticServer } from "../src/static-server.js";

const ROOT = new URL("../../../", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
const TABS = 4;

/** The spec pages and guides the site must contain (typedoc names them documents/<title>.html). */
const DOCUMENTS = [
  "spec_README",
  "spec_v1",
  "spec_v2",
  "spec_errors",
  "spec_conformance",
  "spec_expressions",
  "Getting_started",
  "Remote_data",
  "Format_conversion",
  "Conformance_adapter",
  "Benchmarks",
];

interface PageLinks {
  ids: string[];
  links: string[];
}

let out: string;
let server: StaticServer;
let browser: Browser;
/** Runs the pages' scripts (the script-built navigation). */
let scripted: BrowserContext;
/** No scripts, styles or images: the static HTML only, for the bulk of the pages. */
let plain: BrowserContext;

function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".html"))
    .map((f) => f.split("\\").join("/"))
    .sort();
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "docs-site-"));
  await promisify(execFile)(join(ROOT, "node_modules/.bin/typedoc"), ["--out", out, "--logLevel", "Warn"], { cwd: ROOT, maxBuffer: 16 << 20 });
  server = await startStaticServer(out);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const origin = new URL(server.url).origin;
  scripted = await browser.newContext();
  plain = await browser.newContext({ javaScriptEnabled: false });
  // Nothing leaves loopback: a request elsewhere is answered here with an empty 204.
  await scripted.route((url) => url.origin !== origin, (route) => route.fulfill({ status: 204, body: "" }));
  await plain.route((url) => url.origin !== origin || !url.pathname.endsWith(".html"), (route) => route.fulfill({ status: 204, body: "" }));
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (out !== undefined) rmSync(out, { recursive: true, force: true });
});

/** Opens one page in a tab; returns the ids of its elements and the absolute URLs of its links. */
async function visit(page: Page, path: string, waitForNavigation: boolean): Promise<PageLinks> {
  const response = await page.goto(server.url + path, { waitUntil: waitForNavigation ? "load" : "domcontentloaded" });
  expect(response?.status(), path).toBe(200);
  // The site menu is built by script from assets/navigation.js after load.
  if (waitForNavigation) await page.waitForFunction(() => document.querySelectorAll(".site-menu a").length > 20, undefined, { timeout: 20_000 });
  return await page.evaluate(() => ({
    ids: Array.from(document.querySelectorAll("[id]"), (e) => e.id).concat(Array.from(document.querySelectorAll("a[name]"), (e) => e.getAttribute("name") ?? "")),
    links: Array.from(document.querySelectorAll("a[href]"), (a) => (a as HTMLAnchorElement).href),
  }));
}

describe("the docs site", () => {
  it("has the spec pages and the guides, and every internal link and anchor resolves", async () => {
    const pages = htmlFiles(out);
    for (const name of DOCUMENTS) expect(pages).toContain(`documents/${name}.html`);
    expect(pages).toContain("index.html");

    const origin = new URL(server.url).origin;
    const seen = new Map<string, PageLinks>();
    const queue = [...pages];
    // The index and the documents are opened with scripts (their menus link to every page); the
    // API pages, hundreds of them, as static HTML.
    const withScripts = (path: string): boolean => path === "index.html" || path.startsWith("documents/");
    const worker = async (): Promise<void> => {
      const tabs = new Map<boolean, Page>();
      try {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          const js = withScripts(path);
          let tab = tabs.get(js);
          if (tab === undefined) {
            tab = await (js ? scripted : plain).newPage();
            tabs.set(js, tab);
          }
          seen.set(path, await visit(tab, path, js));
        }
      } finally {
        for (const tab of tabs.values()) await tab.close();
      }
    };
    await Promise.all(Array.from({ length: TABS }, worker));

    const bogus: string[] = [];
    const broken: string[] = [];
    const status = new Map<string, number>();
    // Every link, grouped by target path: [source page, fragment].
    const targets = new Map<string, [string, string][]>();
    for (const [source, { links }] of seen) {
      for (const href of links) {
        const url = new URL(href);
        if (url.origin !== origin) {
          // A file name taken for a host name (`http://README.md`, `https://index.ts`).
          if (/\.(md|ts|js|mjs|json|html)$/i.test(url.hostname)) bogus.push(`${source} → ${href}`);
          continue;
        }
        const list = targets.get(url.pathname) ?? [];
        list.push([source, decodeURIComponent(url.hash.slice(1))]);
        targets.set(url.pathname, list);
      }
    }
    await Promise.all(
      Array.from(targets.keys(), async (pathname) => {
        const response = await fetch(origin + pathname);
        await response.arrayBuffer();
        status.set(pathname, response.status);
      }),
    );
    for (const [pathname, list] of targets) {
      const path = pathname.replace(/^\//, "");
      if (status.get(pathname) !== 200) {
        broken.push(`${list[0]![0]} → ${pathname} (HTTP ${status.get(pathname)}; ${list.length} links)`);
        continue;
      }
      const ids = new Set(seen.get(path === "" ? "index.html" : path)?.ids ?? []);
      for (const [source, fragment] of new Map(list.map(([s, f]) => [`${s}#${f}`, [s, f] as const])).values()) {
        if (fragment !== "" && !ids.has(fragment)) broken.push(`${source} → ${path}#${fragment} (no such anchor)`);
      }
    }
    expect({ bogus, broken }).toEqual({ bogus: [], broken: [] });
    // The crawl covered the whole site and the spec links to its rule anchors.
    expect(seen.size).toBe(pages.length);
    expect([...targets.keys()].map((p) => relative("/", p))).toEqual(expect.arrayContaining(DOCUMENTS.map((d) => `documents/${d}.html`)));
    expect(seen.get("documents/spec_v1.html")?.ids).toEqual(expect.arrayContaining(["v1-5.8-1"]));
  });
});
