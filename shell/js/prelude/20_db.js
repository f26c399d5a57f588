/* shardsh JavaScript prelude, part: Database, Collection (db.<coll> through a Proxy), second connections, Explainable, Bulk. The parts are concatenated in name order by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */
/* ---- Database and Collection (db.<coll> through a Proxy) ---- */
function checkName(n, what) {
  if (typeof n !== 'string' || n === '') throw new TypeError(what + ' needs a name string');
  return n;
}
function Database(name, conn) { hide(this, '_name', name); hide(this, '_conn', conn || 0); }
Database.prototype.getName = function () { return this._name; };
Database.prototype.getSiblingDB = function (n) { return makeDb(checkName(n, 'getSiblingDB'), this._conn); };
Database.prototype.getSisterDB = Database.prototype.getSiblingDB;
Database.prototype.getCollection = function (n) { return makeColl(this._name, checkName(n, 'getCollection'), this._conn); };
/* no toString: as in mongosh, "'" + db + "'" and `${coll}` are '[object Object]' (print and the shell show the name) */
function makeDb(name, conn) {
  return new Proxy(new Database(name, conn), {
    get(t, p, r) { return typeof p === 'symbol' || p in t || p.startsWith('_') ? onConnGet(t, p, r, t._conn) : makeColl(t._name, p, t._conn); },
  });
}
/* ---- second connections (new Mongo(uri)): connId is the connection a call goes to (0: the session's); a Database,
 * Collection, Cursor, Bulk or explain of a second connection sets it while its methods run ---- */
let connId = 0;
function onConn(c, f, self, a) {
  if (c === connId) return f.apply(self, a);
  const saved = connId;
  connId = c;
  try { return f.apply(self, a); } finally { connId = saved; }
}
function onConnGet(t, p, r, c) {
  const v = Reflect.get(t, p, r);
  return c && typeof v === 'function' && !p.startsWith('_') ? function (...a) { return onConn(c, v, this, a); } : v;
}
/* the methods names of proto (all when names is null) run on conn(this): only those that send, so a cursor's
 * hasNext/next cost nothing more */
function bindConn(proto, conn, names) {
  for (const k of names || Object.getOwnPropertyNames(proto)) {
    const f = proto[k];
    if (k === 'constructor' || typeof f !== 'function') continue;
    proto[k] = named(function (...a) { return onConn(conn(this), f, this, a); }, k);
  }
}
function Collection(db, name, conn) { hide(this, '_db', db); hide(this, '_name', name); hide(this, '_conn', conn || 0); }
Collection.prototype.getName = function () { return this._name; };
Collection.prototype.getFullName = function () { return this._db + '.' + this._name; };
Collection.prototype.getDB = function () { return makeDb(this._db, this._conn); };
/* db.<coll>.explain(verbosity): mongosh's Explainable; find gives a cursor whose value is its explain */
function Explainable(coll, verbosity) { hide(this, '_c', coll); hide(this, '_v', explainVerbosity(verbosity)); }
Explainable.prototype.getVerbosity = function () { return this._v; };
Explainable.prototype.find = function (...a) {
  const c = this._c.find(...a);
  c._q.explain = this._v;
  /* mongosh's ExplainableCursor: finish() gives the explain the cursor prints as */
  hide(c, 'finish', function () { return this.explain(this._q.explain); });
  return c;
};
Explainable.prototype.aggregate = function (pipeline, opts) { return explainRun(this._c._db, explainAggregate(this._c._name, pipeline, opts), this._v); };
Explainable.prototype.count = function (query, opts) {
  return explainRun(this._c._db, Object.assign({ count: this._c._name, query: query === undefined ? {} : query }, opts || {}), this._v);
};
Explainable.prototype.distinct = function (key, query, opts) {
  const inner = { distinct: this._c._name, key };
  if (query !== undefined) inner.query = query;
  return explainRun(this._c._db, Object.assign(inner, opts || {}), this._v);
};
/* the write explains mongosh's Explainable has: the request the driver would send, inside explain (no writes) */
Explainable.prototype.update = function (filter, update, opts) {
  const o = opts !== null && typeof opts === 'object' ? opts : {}, st = { q: filter, u: update };
  if (typeof o.upsert === 'boolean') st.upsert = o.upsert;
  if (o.multi) st.multi = true; /* mongosh's update is updateMany with multi, else updateOne (no multi field) */
  for (const k of ['hint', 'arrayFilters', 'collation']) if (o[k] !== undefined) st[k] = o[k];
  return explainRun(this._c._db, { update: this._c._name, updates: [st], ordered: true }, this._v);
};
Explainable.prototype.remove = function (query, justOne) {
  const o = justOne !== null && typeof justOne === 'object' ? justOne : { justOne: !!justOne }, st = { q: query, limit: o.justOne ? 1 : 0 };
  for (const k of ['collation', 'hint']) if (o[k] !== undefined) st[k] = o[k];
  return explainRun(this._c._db, { delete: this._c._name, deletes: [st], ordered: true }, this._v);
};
/* findAndModify and the findOneAnd* forms: { findAndModify, query, remove, new, upsert[, sort][, fields][, update] } */
Explainable.prototype._fam = function (query, update, remove, o) {
  const inner = { findAndModify: this._c._name, query, remove, new: !!(o.new || o.returnNewDocument || o.returnDocument === 'after'), upsert: !!o.upsert };
  if (o.sort !== undefined) inner.sort = o.sort;
  const fields = o.projection !== undefined ? o.projection : o.fields;
  if (fields !== undefined) inner.fields = fields;
  /* in the driver's order, as writes.c's findAndModify builder */
  for (const k of ['maxTimeMS', 'collation', 'hint']) if (o[k] !== undefined) inner[k] = o[k];
  if (!remove) inner.update = update;
  for (const k of ['bypassDocumentValidation', 'arrayFilters']) if (o[k] !== undefined) inner[k] = o[k];
  return explainRun(this._c._db, inner, this._v);
};
Explainable.prototype.findAndModify = function (spec) {
  const o = spec || {};
  return this._fam(o.query === undefined ? {} : o.query, o.update, !!o.remove, o);
};
Explainable.prototype.findOneAndDelete = function (filter, opts) { return this._fam(filter, undefined, true, opts || {}); };
Explainable.prototype.findOneAndUpdate = function (filter, update, opts) { return this._fam(filter, update, false, opts || {}); };
Explainable.prototype.findOneAndReplace = function (filter, replacement, opts) { return this._fam(filter, replacement, false, opts || {}); };
Collection.prototype.explain = function (verbosity) { return new Explainable(this, verbosity); };
/* initializeOrderedBulkOp / initializeUnorderedBulkOp: mongosh's Bulk, whose operations execute() hands to the
 * db.collection.bulkWrite entry (the driver batches both alike) */
function Bulk(coll, ordered) { hide(this, '_c', coll); hide(this, '_ordered', ordered); hide(this, '_ops', []); hide(this, '_done', false); }
Bulk.prototype.insert = function (doc) { this._ops.push({ insertOne: { document: doc } }); return this; };
Bulk.prototype.find = function (query) {
  if (query === undefined) throw new TypeError('Missing required argument at position 0 (Bulk.find)');
  return new BulkFindOp(this, query);
};
/* execute(writeConcern): mongosh 2.12 does not send the write concern given here (bulk.ts only logs it) */
Bulk.prototype.execute = function () {
  if (this._done) throw new Error('MongoBatchReExecutionError: Batch cannot be re-executed');
  const r = entry('db.collection.bulkWrite', this._c._db, this._c._name, [this._ops, { ordered: this._ordered }], null);
  this._done = true;
  return r;
};
Bulk.prototype.getOperations = function () { return this._ops.slice(); };
function BulkFindOp(bulk, query) { hide(this, '_b', bulk); hide(this, '_o', { filter: query }); }
BulkFindOp.prototype._add = function (kind, extra) { this._b._ops.push({ [kind]: Object.assign({}, this._o, extra) }); return this._b; };
BulkFindOp.prototype.upsert = function () { this._o.upsert = true; return this; };
BulkFindOp.prototype.collation = function (c) { this._o.collation = c; return this; };
BulkFindOp.prototype.arrayFilters = function (f) { this._o.arrayFilters = f; return this; };
BulkFindOp.prototype.hint = function (h) { this._o.hint = h; return this; };
BulkFindOp.prototype.updateOne = function (u) { return this._add('updateOne', { update: u }); };
BulkFindOp.prototype.update = function (u) { return this._add('updateMany', { update: u }); };
BulkFindOp.prototype.replaceOne = function (r) { return this._add('replaceOne', { replacement: r }); };
BulkFindOp.prototype.deleteOne = function () { delete this._o.upsert; return this._add('deleteOne', {}); };
BulkFindOp.prototype.removeOne = BulkFindOp.prototype.deleteOne;
BulkFindOp.prototype.delete = function () { delete this._o.upsert; return this._add('deleteMany', {}); };
BulkFindOp.prototype.remove = BulkFindOp.prototype.delete;
Collection.prototype.initializeOrderedBulkOp = function () { return new Bulk(this, true); };
Collection.prototype.initializeUnorderedBulkOp = function () { return new Bulk(this, false); };
function makeColl(db, name, conn) {
  return new Proxy(new Collection(db, name, conn), {
    get(t, p, r) { return typeof p === 'symbol' || p in t || p.startsWith('_') ? onConnGet(t, p, r, t._conn) : makeColl(t._db, t._name + '.' + p, t._conn); },
  });
}

