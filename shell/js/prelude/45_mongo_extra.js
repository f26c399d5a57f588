/* shardsh JavaScript prelude, part: what mongosh's Mongo (db.getMongo()) and Database compute client-side from other calls: the database list (getDBNames, getDBs), the connection's read preference, read concern and write concern, printCollectionStats. The parts are concatenated in name order by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */
/* getDBs(options) / getDBNames(options): mongosh's _listDatabases, { listDatabases: 1, ...options } on admin */
function listDatabases(conn, opts) {
  const cmd = Object.assign({ listDatabases: 1 }, opts || {});
  const r = onConn(conn, entry, null, ['db.adminCommand', 'admin', null, [cmd], null]);
  if (!r || typeof r !== 'object' || !('databases' in r)) {
    const e = new Error('Got invalid result from "listDatabases"');
    e.name = 'MongoshRuntimeError';
    throw e;
  }
  return r;
}
MongoClient.prototype.getDBs = function (opts) { return listDatabases(this._conn, opts); };
MongoClient.prototype.getDBNames = function (opts) { return listDatabases(this._conn, opts).databases.map((d) => d.name); };
/* the connection's read preference: its connection string's readPreference (primary when it names none); shardsh
 * sends every read with it, so changing it per connection is not something it does yet */
function ReadPreference(mode) {
  this.mode = mode;
  this.tags = undefined;
  this.hedge = undefined;
  this.maxStalenessSeconds = undefined;
}
function uriOption(conn, name) {
  const uri = onConn(conn, entry, null, ['Mongo.uri', null, null, [], null]);
  const m = new RegExp('[?&]' + name + '=([^&]*)', 'i').exec(String(uri));
  return m ? decodeURIComponent(m[1]) : undefined;
}
MongoClient.prototype.getReadPrefMode = function () { return uriOption(this._conn, 'readPreference') || 'primary'; };
MongoClient.prototype.getReadPref = function () { return new ReadPreference(this.getReadPrefMode()); };
MongoClient.prototype.getReadConcern = function () { return uriOption(this._conn, 'readConcernLevel'); };
MongoClient.prototype.getWriteConcern = function () {
  const w = uriOption(this._conn, 'w');
  if (w === undefined) return undefined;
  return { w: /^\d+$/.test(w) ? Number(w) : w };
};
MongoClient.prototype.setReadPref = function (mode, tags) {
  if (mode === this.getReadPrefMode() && tags === undefined) return undefined;
  return unsupported('setReadPref()', 'connect with readPreference=' + mode + ' in the connection string')();
};
MongoClient.prototype.setReadConcern = unsupported('setReadConcern()', 'connect with readConcernLevel=<level> in the connection string');
MongoClient.prototype.setWriteConcern = unsupported('setWriteConcern()', 'connect with w=<value> in the connection string');
/* printCollectionStats(scale): each collection's stats(), an error's message where one fails, as a StatsResult */
Database.prototype.printCollectionStats = function (scale) {
  if (scale === undefined) scale = 1;
  if (typeof scale !== 'number' || scale < 1) {
    const e = new Error('[COMMON-10001] scale has to be a number >=1, got ' + scale);
    e.name = 'MongoshInvalidInputError';
    e.code = 'COMMON-10001';
    throw e;
  }
  const out = {};
  for (const c of this.getCollectionNames()) {
    try { out[c] = this.getCollection(c).stats({ scale }); } catch (e) { out[c] = { ok: 0, errmsg: e.message }; }
  }
  hide(out, '__shStats', ''); /* shown as mongosh shows a StatsResult: each name, its document, --- */
  return out;
};
