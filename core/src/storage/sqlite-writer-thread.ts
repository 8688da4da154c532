/**
 * The writer thread's program, shared by every SQLite store of the process (one `lp serve` has one; a test
 * suite that opens many pays for the thread once). It keeps one connection per database it is told to
 * open. The event loop posts the changes of each of its turns in one message and goes on; the thread
 * commits, per database, every change that arrived while it was busy in one transaction (a group commit:
 * one fsync for them all, synchronous=FULL), then answers each. A group that fails is applied again one
 * change per transaction, so one bad change never fails the others. On a failure that looks like the disk
 * (full, read-only, forbidden), it asks the file system itself with a one-byte write beside the database,
 * and reports that errno (ENOSPC, EDQUOT, EROFS, EACCES), which the guarded stores turn into a 507 or 503.
 * Plain JavaScript run with `eval`: the bundles that ship lp need no separate file for it. It loads
 * `node:sqlite` as `sqlite.ts` does, with Node 22's ExperimentalWarning for it dropped.
 */
export const WRITER_SOURCE = String.raw`
const { workerData, parentPort } = require("node:worker_threads");
const { writeFileSync, rmSync } = require("node:fs");
const { join } = require("node:path");
const { DatabaseSync } = (() => {
  const emit = process.emitWarning;
  process.emitWarning = function (warning, type, ...rest) {
    const kind = typeof type === "string" ? type : type && type.type;
    if (kind === "ExperimentalWarning" && String(warning).includes("SQLite")) return;
    return emit.call(this, warning, type, ...rest);
  };
  try { return process.getBuiltinModule("node:sqlite"); } finally { process.emitWarning = emit; }
})();
const RESULT_NAMES = { 3: "SQLITE_PERM", 5: "SQLITE_BUSY", 8: "SQLITE_READONLY", 10: "SQLITE_IOERR", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 19: "SQLITE_CONSTRAINT", 23: "SQLITE_AUTH" };
// node:sqlite gives the extended result code as a number: its low byte is the primary code.
const sqliteCode = (error) => typeof (error && error.errcode) === "number" ? (RESULT_NAMES[error.errcode & 0xff] || "SQLITE_" + (error.errcode & 0xff)) : "";
function transaction(conn, work) {
  return (arg) => {
    conn.exec("BEGIN");
    try { work(arg); conn.exec("COMMIT"); } catch (error) { if (conn.isTransaction) conn.exec("ROLLBACK"); throw error; }
  };
}
const databases = new Map();
function open(db, file, dir) {
  const conn = new DatabaseSync(file);
  conn.exec("PRAGMA busy_timeout = 5000");
  conn.exec("PRAGMA synchronous = FULL");
  // The log is reused from its start once checkpointed, at the size it last reached: one large change (an
  // import) would keep it that large until the server stops. Past this size it is cut back when reused.
  conn.exec("PRAGMA journal_size_limit = " + workerData.walLimit);
  // SQLite's own page cache, 2 MB: the writer reads only the pages its writes change, and a larger cache
  // (16 MB) only kept the server's memory growing as the database grew.
  conn.exec("PRAGMA cache_size = -2000");
  const q = {
    put: conn.prepare("INSERT INTO records (key, parent, value) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET parent = excluded.parent, value = excluded.value"),
    del: conn.prepare("DELETE FROM records WHERE key = ?"),
    clearFrom: conn.prepare("DELETE FROM records WHERE key >= ? AND key < ?"),
    clearAll: conn.prepare("DELETE FROM records WHERE key >= ?"),
    media: conn.prepare("INSERT INTO media (key, bytes) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes"),
    mdel: conn.prepare("DELETE FROM media WHERE key = ?"),
    mclearFrom: conn.prepare("DELETE FROM media WHERE key >= ? AND key < ?"),
    mclearAll: conn.prepare("DELETE FROM media WHERE key >= ?"),
    wipe: conn.prepare("DELETE FROM records WHERE key < 'meta:' OR key >= 'meta;'"),
    wipeMedia: conn.prepare("DELETE FROM media"),
  };
  const apply = (ops) => {
    for (const op of ops) {
      switch (op[0]) {
        case "put": q.put.run(op[1], op[2], op[3]); break;
        case "del": q.del.run(op[1]); break;
        case "clear": op[2] === null ? q.clearAll.run(op[1]) : q.clearFrom.run(op[1], op[2]); break;
        case "media": q.media.run(op[1], op[2]); break;
        case "mdel": q.mdel.run(op[1]); break;
        case "mclear": op[2] === null ? q.mclearAll.run(op[1]) : q.mclearFrom.run(op[1], op[2]); break;
        case "wipe": q.wipe.run(); q.wipeMedia.run(); break;
        default: throw new Error("unknown write op " + op[0]);
      }
    }
  };
  databases.set(db, { conn, dir, queue: [], group: transaction(conn, (changes) => { for (const change of changes) apply(change.ops); }), one: transaction(conn, apply) });
}
function errnoOfDisk(dir) {
  const probe = join(dir, ".lp-write-probe");
  try { writeFileSync(probe, "x", { mode: 0o600 }); rmSync(probe, { force: true }); return null; } catch (error) { return error.code || null; }
}
function failure(entry, error) {
  const code = sqliteCode(error) || String((error && error.code) || "");
  let sys = null;
  if (/^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PERM|AUTH)/.test(code)) {
    sys = errnoOfDisk(entry.dir) || (code === "SQLITE_FULL" ? "ENOSPC" : code === "SQLITE_READONLY" ? "EROFS" : null);
  }
  try { if (entry.conn.isTransaction) entry.conn.exec("ROLLBACK"); } catch {}
  return [sys || code || "EUNKNOWN", String((error && error.message) || error), code];
}
let scheduled = false;
function flush() {
  scheduled = false;
  const done = [];
  const failed = [];
  for (const entry of databases.values()) {
    const changes = entry.queue;
    if (changes.length === 0) continue;
    entry.queue = [];
    try {
      entry.group(changes);
      for (const change of changes) done.push(change.id);
    } catch (error) {
      if (changes.length === 1) failed.push([changes[0].id, ...failure(entry, error)]);
      else for (const change of changes) {
        try { entry.one(change.ops); done.push(change.id); } catch (inner) { failed.push([change.id, ...failure(entry, inner)]); }
      }
    }
  }
  if (done.length > 0 || failed.length > 0) parentPort.postMessage({ done, failed });
}
parentPort.on("message", (messages) => { for (const message of messages) take(message); });
function take(message) {
  if (message.open) {
    try { open(message.db, message.open, message.dir); parentPort.postMessage({ done: [message.id], failed: [] }); }
    catch (error) { const code = sqliteCode(error) || String(error.code || ""); parentPort.postMessage({ done: [], failed: [[message.id, code || "EUNKNOWN", String(error.message), code]] }); }
    return;
  }
  const entry = databases.get(message.db);
  if (!entry) { parentPort.postMessage({ done: [], failed: [[message.id, "ENOTOPEN", "the database is not open in the writer", ""]] }); return; }
  if (message.close) {
    flush();
    databases.delete(message.db);
    try { entry.conn.close(); } catch {}
    parentPort.postMessage({ done: [message.id], failed: [] });
    return;
  }
  entry.queue.push(message);
  if (!scheduled) { scheduled = true; setImmediate(flush); }
}
`;
