// Child process of write-kill.test.ts: opens (or creates) the ctable `tb` in DIR and, forever,
// appends rows (FOCUS=append) or adds and deletes columns (FOCUS=addColumn), with an occasional
// reopen. Before each operation it appends one fsynced JSON line to LOG: the operation and the
// whole table (column names in order, every column's values) as it will be once the operation
// is done. A ctable operation is all-or-nothing, so after a SIGKILL the table must read as the
// state of the last line or of the one before. A fifth argument 2 creates a format-2 table
// (spec/v2.md §11: columns under data/, superchunks of 2 chunks) instead of a bcolz 1.x one.
import { fsyncedLog, seededRandom } from "./child-kit.mjs";
import { loadStore } from "./load-store.mjs";

const [dir, seedText, logPath, focus, formatText = "1"] = process.argv.slice(2);
const rand = seededRandom(seedText);

const { store, fsAdapters } = await loadStore();
const fs = new fsAdapters.FileSystemStore(dir);
// The log stays open until the parent kills this process.
const { record } = fsyncedLog(logPath);

let table;
try {
  table = await store.openCtable(fs, "tb", { mode: "a", breakLock: true });
} catch {
  table = await store.createCtable(fs, "tb", [{ name: "id", data: new Int32Array(0) }, { name: "half", data: new Float64Array(0) }], {
    chunklen: 8,
    mode: "w",
    breakLock: true,
    ...(formatText === "2" ? { formatVersion: 2, superchunksize: 2, spare: [0, 20, 100][Number(seedText) % 3] } : {}),
  });
}
async function snapshot() {
  const rows = await table.readRows();
  return { names: [...table.names], columns: Object.fromEntries(table.names.map((n) => [n, Array.from(rows[n])])) };
}
let state = await snapshot();
record({ op: "open", state });
process.stdout.write("ready\n");

// Column names must differ across runs: a column half-written by a killed addColumn stays on disk
// as a directory that is not in __rootdirs__, and may not be reused without overwrite.
let nextColumn = 0;
const freshName = () => `c${seedText}_${nextColumn++}`;

for (;;) {
  const n = state.columns.id.length;
  const choice = focus === "addColumn" && n > 0 ? rand(10) : rand(10) < 9 ? 0 : 9;
  if (choice === 0 || (focus === "addColumn" && choice <= 1)) {
    const count = 1 + rand(30);
    const ids = Array.from({ length: count }, () => rand(2_000_000) - 1_000_000);
    const next = { names: state.names, columns: { ...state.columns } };
    for (const name of state.names) {
      const old = state.columns[name];
      next.columns[name] = name === "half" ? [...old, ...ids.map((v) => v / 2)] : [...old, ...ids];
    }
    record({ op: `append ${count}`, state: next });
    await table.append(Object.fromEntries(state.names.map((name) => [name, name === "half" ? new Float64Array(ids.map((v) => v / 2)) : new Int32Array(ids)])));
    state = next;
  } else if (choice <= 6) {
    const name = freshName();
    const values = Array.from({ length: n }, () => rand(1000));
    const next = { names: [...state.names, name], columns: { ...state.columns, [name]: values } };
    record({ op: `addColumn ${name}`, state: next });
    await table.addColumn(name, new Int32Array(values), { dtype: "<i4" });
    state = next;
  } else if (choice <= 8 && state.names.length > 2) {
    const name = state.names[2 + rand(state.names.length - 2)];
    const columns = { ...state.columns };
    delete columns[name];
    const next = { names: state.names.filter((x) => x !== name), columns };
    record({ op: `deleteColumn ${name}`, state: next });
    await table.deleteColumn(name);
    state = next;
  } else {
    record({ op: "reopen", state });
    await table.close();
    table = await store.openCtable(fs, "tb", { mode: "a" });
  }
}
