// The browser demo: opens a bcolz dataset over HTTP with @fmt/store and the HTTP store, decodes
// it (Blosc through the WebAssembly kernels of @fmt/blosc), and shows the first values and a
// summary. The page URL says what to open: `?base=<url of a directory>&dataset=<path in it>`.
// The result is also left on `window.bcolzDemo` so that a test driving the page can check it.
import { CachingStore } from "@fmt/fs-adapters";
import { HttpStore } from "@fmt/fs-adapters/http";
import { open } from "@fmt/store";
import type { Values } from "@fmt/store";

/** What the page shows, also exposed to tests. */
export interface DemoResult {
  kind: "carray" | "ctable";
  length: number;
  columns: { name: string; dtype: string; first: string[]; nan: number; min: number | null; max: number | null; mean: number | null }[];
  requests: number;
  bytes: number;
  error?: string;
}

const SHOWN = 10;

function plain(values: Values): (number | string)[] {
  if (Array.isArray(values)) return values.map((v) => (v instanceof Uint8Array ? new TextDecoder().decode(v) : String(v)));
  return Array.from(values as ArrayLike<number | bigint>, (v) => (typeof v === "bigint" ? Number(v) : v));
}

function describeColumn(name: string, dtype: string, values: Values): DemoResult["columns"][number] {
  const all = plain(values);
  const numeric = all.length > 0 && all.every((v) => typeof v === "number");
  // NaN is counted apart: it would make min, max and mean NaN and say nothing about the rest.
  const numbers = all.filter((v): v is number => typeof v === "number" && !Number.isNaN(v));
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of numbers) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return {
    name,
    dtype,
    first: all.slice(0, SHOWN).map(String),
    nan: all.length - numbers.length,
    min: numeric ? min : null,
    max: numeric ? max : null,
    mean: numeric ? sum / numbers.length : null,
  };
}

async function run(): Promise<DemoResult> {
  const params = new URLSearchParams(location.search);
  const http = new HttpStore(params.get("base") ?? location.href, { concurrency: 6 });
  const dataset = await open(new CachingStore(http), params.get("dataset") ?? "");
  const columns: DemoResult["columns"] = [];
  if (dataset.kind === "carray") {
    columns.push(describeColumn("values", dataset.dtype.str, await dataset.read()));
  } else if (dataset.kind === "ctable") {
    for (const name of dataset.names) {
      const column = dataset.column(name);
      // The demo summarises fixed-size columns; variable-length ones are listed without numbers.
      if (column.kind === "carray") columns.push(describeColumn(name, column.dtype.str, await dataset.readColumn(name) as Values));
    }
  } else {
    throw new Error("the demo reads carrays and ctables, not a bare vlarray");
  }
  return { kind: dataset.kind, length: dataset.length, columns, requests: http.stats.requests, bytes: http.stats.bytes };
}

function render(result: DemoResult): void {
  const out = document.getElementById("out");
  if (out === null) return;
  out.replaceChildren();
  const summary = document.createElement("p");
  summary.id = "summary";
  summary.textContent = result.error ?? `${result.kind}, ${result.length} rows, ${result.columns.length} column(s); ${result.requests} HTTP requests, ${result.bytes} bytes`;
  out.append(summary);
  for (const column of result.columns) {
    const table = document.createElement("table");
    const caption = table.createCaption();
    caption.textContent = `${column.name} (${column.dtype})` + (column.mean === null ? "" : ` min ${column.min} max ${column.max} mean ${column.mean.toPrecision(6)}, ${column.nan} NaN`);
    for (const [i, value] of column.first.entries()) {
      const row = table.insertRow();
      row.insertCell().textContent = String(i);
      row.insertCell().textContent = value;
    }
    out.append(table);
  }
}

run().then(
  (result) => {
    (window as unknown as { bcolzDemo: DemoResult }).bcolzDemo = result;
    render(result);
    document.body.dataset.state = "done";
  },
  (error: unknown) => {
    const result: DemoResult = { kind: "carray", length: 0, columns: [], requests: 0, bytes: 0, error: String(error) };
    (window as unknown as { bcolzDemo: DemoResult }).bcolzDemo = result;
    render(result);
    document.body.dataset.state = "error";
  },
);
