/* shardsh JavaScript prelude, part: cursors (find, aggregate, cursors the table returns) and it. The parts are concatenated in name order by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */
/* ---- cursors: nothing is sent until the first document is needed; then a live server cursor (a handle of the
 * shell's) gives batches on demand, as the driver's: getMore only when the documents received are used up ---- */
function Cursor(name, db, coll, args, handle) {
  hide(this, '_q', { name, db, coll, args: Array.from(args), sort: undefined, projection: undefined, limit: 0, skip: 0,
                     batch: 0, opened: false, id: 0, h: null, buf: [], pos: 0, more: true, maps: [], conn: connId });
  if (handle === undefined) {
    /* mongosh: the cursor made last is the one "it" continues */
    lastCursor = this;
    N.cursorCurrent(false);
  } else {
    this._adopt(handle);
  }
}
function notStarted(c, what) {
  if (c._q.opened) throw new Error('cannot call ' + what + '() after the cursor has been read');
  return c._q;
}
function countArg(n, what) {
  n = Number(n);
  if (!Number.isInteger(n) || n < 0 || n > 2147483647) throw new RangeError(what + ' needs an integer from 0 to 2147483647');
  return n;
}
Cursor.prototype._adopt = function (id) {
  const q = this._q;
  q.opened = true;
  if (typeof id === 'number' && id > 0) { q.id = id; q.h = N.cursorHandle(id); } else q.more = false;
};
Cursor.prototype._open = function () {
  const q = this._q;
  if (q.opened) return;
  const args = q.args.slice();
  if (q.projection !== undefined) { if (args.length < 1) args.push({}); args[1] = q.projection; }
  q.opened = true;
  this._adopt(entry(q.name, q.db, q.coll, args, q, true));
};
/* up to max more documents from the server (0: the next one and those received with it) */
Cursor.prototype._pull = function (max) {
  const q = this._q;
  if (!q.more || !q.id) { q.more = false; return; }
  const r = N.cursorNext(q.id, max);
  const d = dec(r.slice(1));
  /* the caller's place, read only on failure: a stack per document would cost more than the document */
  if (r[0] === 'E') { q.more = false; this._release(); throw shError(d, callerPos()); }
  if (q.pos > 0) { q.buf = q.buf.slice(q.pos); q.pos = 0; }
  for (const x of d.v) q.buf.push(x);
  q.more = d.more;
  if (!q.more) this._release();
};
Cursor.prototype._release = function () {
  const q = this._q;
  if (q.id) N.cursorClose(q.id);
  q.id = 0; q.h = null;
};
Cursor.prototype._left = function () { return this._q.buf.length - this._q.pos; };
Cursor.prototype._hasMore = function () { return !this._q.opened || this._left() > 0 || this._q.more; };
Cursor.prototype._apply = function (d) { for (const f of this._q.maps) d = f(d); return d; };
Cursor.prototype.sort = function (s) { notStarted(this, 'sort').sort = s; return this; };
Cursor.prototype.limit = function (n) { notStarted(this, 'limit').limit = countArg(n, 'limit'); return this; };
Cursor.prototype.skip = function (n) { notStarted(this, 'skip').skip = countArg(n, 'skip'); return this; };
Cursor.prototype.project = function (p) { notStarted(this, 'project').projection = p; return this; };
Cursor.prototype.projection = Cursor.prototype.project;
Cursor.prototype.batchSize = function (n) { notStarted(this, 'batchSize').batch = countArg(n, 'batchSize'); return this; };
Cursor.prototype.pretty = function () { return this; };
/* ---- a find cursor's options (mongosh's Cursor over the driver's FindCursor): set before the first document is read,
 * sent in the find command in the driver's order (commands/crud.c) ---- */
function findOpt(c, what) {
  const q = c._q;
  /* an aggregate cursor has maxTimeMS too (mongosh's AbstractFiniteCursor) */
  if (q.name !== 'db.collection.find' && !(what === 'maxTimeMS' && q.name === 'db.collection.aggregate'))
    throw new TypeError('cursor.' + what + ' is not a function (it is a find cursor\'s)');
  if (q.opened) { const e = new Error('Cursor is already initialized'); e.name = 'MongoCursorInUseError'; throw e; }
  if (!q.opts) q.opts = {};
  return q.opts;
}
function optSetter(name, value) {
  return function (v) {
    if (arguments.length === 0 && value === undefined) throw new TypeError(name + '() needs an argument');
    findOpt(this, name)[name] = value === undefined ? v : value;
    return this;
  };
}
Cursor.prototype.hint = optSetter('hint');
Cursor.prototype.comment = optSetter('comment');
Cursor.prototype.collation = optSetter('collation');
Cursor.prototype.min = optSetter('min');
Cursor.prototype.max = optSetter('max');
Cursor.prototype.noCursorTimeout = optSetter('noCursorTimeout', true);
/* mongosh sets the driver's "partial" flag, which the driver's find command does not read: nothing is sent */
Cursor.prototype.allowPartialResults = function () { findOpt(this, 'allowPartialResults'); return this; };
Cursor.prototype.oplogReplay = optSetter('oplogReplay', true);
Cursor.prototype.showRecordId = optSetter('showRecordId', true);
/* the driver's returnKey(value) and allowDiskUse(allow = true) */
Cursor.prototype.returnKey = function (v) { findOpt(this, 'returnKey').returnKey = v; return this; };
Cursor.prototype.allowDiskUse = function (v) {
  const o = findOpt(this, 'allowDiskUse');
  if (this._q.sort === undefined) {
    const e = new Error('Option "allowDiskUse" requires a sort specification');
    e.name = 'MongoInvalidArgumentError';
    throw e;
  }
  o.allowDiskUse = v === undefined ? true : v;
  return this;
};
Cursor.prototype.maxTimeMS = function (n) { findOpt(this, 'maxTimeMS').maxTimeMS = countArg(n, 'maxTimeMS'); return this; };
Cursor.prototype.readConcern = function (level) { findOpt(this, 'readConcern').readConcern = { level }; return this; };
/* a read preference other than the connection's own is not sent per cursor here */
Cursor.prototype.readPref = function (mode, tags) {
  if (mode === 'primary' && tags === undefined) { findOpt(this, 'readPref'); return this; }
  return unsupported('cursor.readPref(' + JSON.stringify(mode) + ')', 'connect with readPreference=' + mode + ' in the connection string')();
};
/* tailable cursors wait on a capped collection for documents to come: not something a script here can end */
Cursor.prototype.tailable = unsupported('tailable cursors');
Cursor.prototype.maxAwaitTimeMS = unsupported('maxAwaitTimeMS (tailable cursors)');
/* mongosh's addOption(flag): the driver's cursor flags by their legacy numbers */
Cursor.prototype.addOption = function (flag) {
  const names = { 2: 'tailable', 4: 'SlaveOk', 8: 'oplogReplay', 16: 'noTimeout', 32: 'awaitData', 64: 'exhaust', 128: 'partial' };
  const e = (name, code, msg) => { const x = new Error((code ? '[' + code + '] ' : '') + msg); x.name = name; if (code) x.code = code; return x; };
  if (flag === 4) throw e('MongoshUnimplementedError', 'COMMON-90002', 'the slaveOk option is not supported.');
  const n = names[flag];
  if (!n) throw e('MongoshInvalidInputError', 'COMMON-10001', 'Unknown option flag number: ' + flag + '.');
  if (n === 'oplogReplay') return this.oplogReplay();
  if (n === 'partial') return this.allowPartialResults();
  if (n === 'tailable' || n === 'awaitData') return Cursor.prototype.tailable();
  if (n === 'exhaust') return unsupported('exhaust cursors')();
  throw e('MongoInvalidArgumentError', '', 'Flag ' + n + ' is not one of tailable,oplogReplay,noCursorTimeout,awaitData,exhaust,partial');
};
Cursor.prototype.maxScan = function () {
  const x = new Error('[COMMON-10003] `maxScan()` was removed because it was deprecated in MongoDB 4.0');
  x.name = 'MongoshDeprecatedError';
  x.code = 'COMMON-10003';
  throw x;
};
Cursor.prototype.disableBlockWarnings = function () { return this; };
/* the driver's closed (no server cursor and nothing received left) and bufferedCount() */
Cursor.prototype.isClosed = function () { return this._q.opened && !this._q.more && this._left() === 0 && !this._q.closedLeft; };
Cursor.prototype.objsLeftInBatch = function () {
  const q = this._q;
  if (!q.opened) return 0;
  if (q.closed) return q.closedLeft;
  if (q.id && q.more) this._pull(-1); /* what the shell has received of the batch, none asked for */
  return this._left();
};
Cursor.prototype.hasNext = function () {
  this._open();
  if (this._left() === 0) this._pull(1); /* one document at a time: converted as the script asks */
  return this._left() > 0;
};
Cursor.prototype.next = function () {
  if (this.hasNext()) return this._apply(this._q.buf[this._q.pos++]);
  if (this._q.closed) { const e = new Error('Cursor is exhausted'); e.name = 'MongoCursorExhaustedError'; throw e; }
  return null;
};
Cursor.prototype.tryNext = Cursor.prototype.next;
Cursor.prototype.isExhausted = function () { return this._q.opened && this._left() === 0 && !this._q.more; };
/* the driver's close: what was received stays counted (objsLeftInBatch, and isClosed false while any is left) but
 * is no longer read: hasNext is false, next throws */
Cursor.prototype.close = function () {
  const q = this._q;
  q.closedLeft = q.closed ? q.closedLeft : this.objsLeftInBatch();
  q.closed = true;
  q.opened = true; this._release(); q.more = false; q.buf = []; q.pos = 0;
};
Cursor.prototype.toArray = function () {
  this._open();
  while (this._q.more && this._q.id) this._pull(2147483647);
  const q = this._q, d = q.buf.slice(q.pos);
  q.buf = []; q.pos = 0;
  return d.map((x) => this._apply(x));
};
Cursor.prototype.forEach = function (f) { while (this.hasNext()) f(this.next()); };
Cursor.prototype.map = function (f) { this._q.maps.push(f); return this; };
Cursor.prototype.itcount = function () { let n = 0; while (this.hasNext()) { this.next(); n++; } return n; };
/* mongosh's cursor.count() and size(): the driver's count command on the filter with the cursor's skip and limit
 * (mongosh 2.12's count applies them too), through db.runCommand */
Cursor.prototype._count = function (what) {
  const q = this._q;
  if (q.name !== 'db.collection.find') throw new TypeError(what + '() is for find cursors');
  const cmd = { count: q.coll, query: q.args[0] === undefined ? {} : q.args[0] };
  if (q.limit) cmd.limit = q.limit;
  if (q.skip) cmd.skip = q.skip;
  /* the driver's count keeps these of the cursor's options */
  for (const k of ['hint', 'maxTimeMS', 'collation']) if (q.opts && q.opts[k] !== undefined) cmd[k] = q.opts[k];
  const r = entry('db.runCommand', q.db, null, [cmd], null);
  return r && typeof r === 'object' ? Number(r.n) : r;
};
/* mongosh's explain(verbosity) of a find or aggregate cursor: the explain command of the find or aggregate it would
 * send, through db.runCommand, trimmed as mongosh trims it (aggregate-or-find-cursor.ts) */
function explainVerbosity(v) {
  if (v === undefined || v === false) return 'queryPlanner';
  if (v === true) return 'allPlansExecution';
  return v;
}
function explainRun(db, inner, verbosity) {
  const r = entry('db.runCommand', db, null, [{ explain: inner, verbosity }], null);
  if (r && typeof r === 'object') {
    if (verbosity !== 'executionStats' && verbosity !== 'allPlansExecution') delete r.executionStats;
    else if (verbosity === 'executionStats' && r.executionStats) delete r.executionStats.allPlansExecution;
  }
  return r;
}
/* the aggregate command the driver sends inside explain, its options in the driver's order (AggregateOperation, then
 * collation and maxTimeMS), batchSize in cursor */
function explainAggregate(coll, pipeline, opts) {
  const o = Object.assign({}, opts || {}), inner = { aggregate: coll, pipeline: pipeline === undefined ? [] : pipeline };
  for (const k of ['bypassDocumentValidation', 'allowDiskUse', 'hint', 'let', 'comment']) if (o[k] !== undefined) inner[k] = o[k];
  inner.cursor = Object.assign({}, o.cursor || {});
  if (o.batchSize) inner.cursor.batchSize = o.batchSize;
  for (const k of ['collation', 'maxTimeMS']) if (o[k] !== undefined) inner[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in inner) && k !== 'batchSize' && k !== 'explain') inner[k] = o[k];
  return inner;
}
Cursor.prototype.explain = function (verbosity) {
  const q = this._q;
  if (q.name === 'db.collection.aggregate') return explainRun(q.db, explainAggregate(q.coll, q.args[0], q.args[1]), explainVerbosity(verbosity));
  if (q.name !== 'db.collection.find') throw new TypeError('explain() is for find and aggregate cursors');
  const inner = { find: q.coll, filter: q.args[0] === undefined ? {} : q.args[0] };
  if (q.sort !== undefined) inner.sort = q.sort;
  const proj = q.projection !== undefined ? q.projection : q.args[1];
  if (proj !== undefined) inner.projection = proj;
  if (q.skip) inner.skip = q.skip;
  if (q.limit) inner.limit = q.limit;
  return explainRun(q.db, inner, explainVerbosity(verbosity));
};
Cursor.prototype.count = function () { return this._count('count'); };
Cursor.prototype.size = function () { return this._count('size'); };
/* up to n documents for display, asking the server for no more than they need */
Cursor.prototype._batch = function (n) {
  this._open();
  if (this._left() < n && this._q.more) this._pull(n - this._left());
  const q = this._q, b = q.buf.slice(q.pos, q.pos + n);
  q.pos += b.length;
  return b.map((x) => this._apply(x));
};
Cursor.prototype[Symbol.iterator] = function* () { while (this.hasNext()) yield this.next(); };
Cursor.prototype.toString = function () { return '[Cursor ' + this._q.db + '.' + this._q.coll + ']'; };
/* a cursor mongosh returns from an entry the table flags as one (db.aggregate, sh.getShardedDataDistribution,
 * checkMetadataConsistency: CMD_CURSOR_AGG / CMD_CURSOR_CMD), its documents read whole by the shell; kind 'cmd' is a
 * RunCommandCursor, shown as its iteration result { cursorHasMore, documents } */
function docsCursor(name, docs, kind) {
  const c = new Cursor(name, null, null, [], 0);
  c._q.buf = docs;
  c._q.kind = kind;
  lastCursor = c;
  N.cursorCurrent(false);
  return c;
}
/* what print() and the shell show for a cursor: its next batch of 20, or a RunCommandCursor's iteration result */
Cursor.prototype._printable = function () {
  const b = this._batch(20);
  return this._q.kind === 'cmd' ? { cursorHasMore: this._hasMore(), documents: b } : b;
};
/* what "it" read: printed as mongosh prints a CursorIterationResult ("no cursor" when empty) */
function ItResult(docs, more) { hide(this, '_docs', docs); hide(this, '_more', more); }

