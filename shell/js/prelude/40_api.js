/* shardsh JavaScript prelude, part: the API installed from the command table's names, MONGOSH_API, rs, Mongo. The parts are concatenated in name order by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */
/* ---- the API, generated from the command table's names ---- */
const sh = {};
let lastCursor = null;
let dbOverride = null;
function currentDb() { return dbOverride || makeDb(N.currentDb()); }
function named(f, n) { Object.defineProperty(f, 'name', { value: n }); return f; }
function install(names) {
  for (const name of names) {
    let m;
    if ((m = /^rs\.(\w+)$/.exec(name))) {
      rs[m[1]] = named(function (...a) { return entry(name, null, null, a, null); }, m[1]);
    } else if ((m = /^sh\.(\w+)$/.exec(name))) {
      sh[m[1]] = named(function (...a) { return entry(name, null, null, a, null); }, m[1]);
    } else if ((m = /^db\.collection\.(\w+)$/.exec(name))) {
      const cursor = m[1] === 'find' || m[1] === 'aggregate';
      Collection.prototype[m[1]] = named(cursor ? function (...a) { return new Cursor(name, this._db, this._name, a); }
                                                : function (...a) { return entry(name, this._db, this._name, a, null); }, m[1]);
    } else if ((m = /^db\.(\w+)$/.exec(name))) {
      if (!(m[1] in Database.prototype))
        Database.prototype[m[1]] = named(function (...a) { return entry(name, this._name, null, a, null); }, m[1]);
    } else if (/^\w+$/.test(name)) {
      global[name] = named(function (...a) {
        const r = entry(name, null, null, a, null);
        if (name === 'use') dbOverride = null;
        return r;
      }, name);
    }
  }
  if (global.exit) global.quit = global.exit;
  finishApi(names);
}
Object.defineProperty(global, 'db', { get: currentDb, set(v) { dbOverride = v instanceof Database ? v : null; }, configurable: true });
/* it: a function, as mongosh's (typeof it is "function"); typed as a statement, show() calls it: the next batch of the
 * engine's last cursor, or of a find or aggregate typed as a literal statement after it */
const itCommand = named(function () {
  const h = N.cursorCurrent(true);
  if (h >= 0) lastCursor = h > 0 ? new Cursor('db.collection.find', null, null, [], h) : null;
  if (!lastCursor) return new ItResult([], false);
  const b = lastCursor._batch(20);
  return new ItResult(b, lastCursor._hasMore());
}, '');
Object.defineProperty(global, 'it', { value: itCommand, writable: true, configurable: true });
/* DBQuery: mongosh 2.x's is an object left for DBQuery.shellBatchSize (deprecated), not the cursor class */
let shellBatchSize;
const DBQuery = {
  get shellBatchSize() { return shellBatchSize; },
  set shellBatchSize(n) {
    process.stderr.write('DeprecationWarning: DBQuery.shellBatchSize is deprecated, please use config.set("displayBatchSize") instead\n');
    shellBatchSize = n;
  },
};
const api = { sh, ObjectId, Long, NumberLong: Long, Int32, NumberInt: Int32, Double, Decimal128, NumberDecimal: Decimal128,
              Timestamp, Binary, BinData, UUID, HexData, MinKey, MaxKey, BSONRegExp, Code, ISODate, Database, Collection, DBQuery };
for (const k of Object.keys(api)) Object.defineProperty(global, k, { value: api[k], writable: true, configurable: true, enumerable: false });

/* ---- globals and helpers mongosh has beyond the command table: console, EJSON, bsonsize, version, load, rs,
 * db.getMongo(); every other name of mongosh's shell API that shardsh lacks is a function saying so (never a collection
 * proxy). MONGOSH_API is mongosh 2.12's list (its shell-api signatures and its globals); tests/integration/js_api.sh
 * checks it against mongosh and docs/javascript.md's table against what this engine defines ---- */
const MONGOSH_API = {
  '': 'use show exit quit Mongo connect it version load enableTelemetry disableTelemetry passwordPrompt sleep print printjson convertShardKeyToHashed cls isInteractive ' +
      'db rs sh sp config log help console EJSON bsonsize buildInfo edit snippet ObjectId ISODate NumberLong Long NumberInt Int32 Double NumberDecimal Decimal128 ' +
      'Timestamp UUID BinData Binary HexData MinKey MaxKey BSONRegExp BSONSymbol Code DBRef DBQuery MD5 LegacyCSharpUUID LegacyJavaUUID LegacyPythonUUID',
  db: 'getMongo getName getCollectionNames getCollectionInfos runCommand adminCommand aggregate getSiblingDB getCollection dropDatabase createUser updateUser changeUserPassword logout dropUser dropAllUsers auth grantRolesToUser revokeRolesFromUser getUser getUsers createCollection createEncryptedCollection createView createRole updateRole dropRole dropAllRoles grantRolesToRole revokeRolesFromRole grantPrivilegesToRole revokePrivilegesFromRole getRole getRoles currentOp killOp shutdownServer fsyncLock fsyncUnlock version serverBits isMaster hello serverBuildInfo serverStatus stats hostInfo serverCmdLineOpts rotateCertificates printCollectionStats getProfilingStatus setProfilingLevel setLogLevel getLogComponents cloneDatabase cloneCollection copyDatabase commandHelp listCommands getLastErrorObj getLastError printShardingStatus printSecondaryReplicationInfo getReplicationInfo printReplicationInfo printSlaveReplicationInfo setSecondaryOk watch sql checkMetadataConsistency',
  'db.collection': 'aggregate bulkWrite count countDocuments deleteMany deleteOne distinct estimatedDocumentCount find findAndModify findOne renameCollection findOneAndDelete findOneAndReplace findOneAndUpdate insert insertMany insertOne isCapped remove replaceOne update updateMany updateOne compactStructuredEncryptionData convertToCapped createIndexes createIndex ensureIndex getIndexes getIndexSpecs getIndices getIndexKeys dropIndexes dropIndex totalIndexSize reIndex getDB getMongo dataSize storageSize totalSize drop exists getFullName getName runCommand explain stats latencyStats initializeOrderedBulkOp initializeUnorderedBulkOp getPlanCache mapReduce validate getShardVersion getShardDistribution getShardLocation watch hideIndex unhideIndex analyzeShardKey configureQueryAnalyzer checkMetadataConsistency getSearchIndexes createSearchIndex createSearchIndexes dropSearchIndex updateSearchIndex',
  cursor: 'addOption allowDiskUse allowPartialResults collation comment count hasNext hint limit max maxAwaitTimeMS min next noCursorTimeout oplogReplay readPref returnKey size tailable maxScan showRecordId readConcern projection skip sort explain batchSize toArray maxTimeMS objsLeftInBatch close forEach tryNext isClosed isExhausted itcount pretty map disableBlockWarnings',
  'db.getMongo()': 'connect getDB getCollection getURI use getDBs bulkWrite getDBNames show close getReadPrefMode getReadPrefTagSet getReadPref getReadConcern getWriteConcern setReadPref setReadConcern setWriteConcern startSession setCausalConsistency isCausalConsistency setSlaveOk setSecondaryOk watch getClientEncryption getKeyVault convertShardKeyToHashed',
  rs: 'initiate config conf reconfig reconfigForPSASet status isMaster hello printSecondaryReplicationInfo printSlaveReplicationInfo printReplicationInfo add addArb remove freeze stepDown syncFrom secondaryOk',
  sh: 'enableSharding commitReshardCollection abortReshardCollection shardCollection reshardCollection status addShard addShardToZone addShardTag updateZoneKeyRange addTagRange removeRangeFromZone removeTagRange removeShardFromZone removeShardTag enableAutoSplit disableAutoSplit splitAt splitFind moveChunk moveRange balancerCollectionStatus enableBalancing disableBalancing enableMigrations disableMigrations getBalancerState isBalancerRunning startBalancer stopBalancer setBalancerState getShardedDataDistribution startAutoMerger stopAutoMerger isAutoMergerEnabled disableAutoMerger enableAutoMerger checkMetadataConsistency shardAndDistributeCollection moveCollection abortMoveCollection unshardCollection abortUnshardCollection listShards isConfigShardEnabled shardDrainingStatus getTransitionToDedicatedConfigServerStatus',
};
const MONGOSH_VERSION = '2.12.0';
const rs = {};
let fromTable = null; /* the command table's names (install) */
function unsupported(what, why) {
  const f = function () {
    const e = new Error('shardsh does not support ' + what + ' yet' + (why ? ': ' + why : ''));
    const pos = callerPos();
    e.name = 'MongoshUnimplementedError';
    hide(e, '__sh', { kind: KIND.USAGE, line: pos[0], col: pos[1] });
    throw e;
  };
  hide(f, '__shUnsupported', true);
  return f;
}
/* mongosh's Mongo: db.getMongo() (the session's connection, 0) or new Mongo(uri) / connect(uri) (a second connection,
 * opened by the host: shell/core/conn_registry.h); its databases and collections send on it */
function MongoClient(conn) { hide(this, '_conn', conn || 0); }
MongoClient.prototype.getDB = function (n) { return makeDb(checkName(n, 'getDB'), this._conn); };
MongoClient.prototype.getCollection = function (ns) {
  const i = String(ns).indexOf('.');
  if (i <= 0) throw new TypeError('getCollection needs a namespace: "db.collection"');
  return makeColl(ns.slice(0, i), ns.slice(i + 1), this._conn);
};
MongoClient.prototype.use = function (n) {
  if (this._conn) unsupported('use() on a second connection')();
  return global.use(n);
};
/* the connection string, its password hidden */
MongoClient.prototype.getURI = function () { return onConn(this._conn, entry, null, ['Mongo.uri', null, null, [], null]); };
/* Mongo() without a string connects to 127.0.0.1:27017, as mongosh's */
function Mongo(uri) {
  if (uri === undefined) uri = 'mongodb://127.0.0.1:27017';
  if (typeof uri !== 'string') throw new TypeError('Mongo() needs a connection string');
  return new MongoClient(entry('Mongo.open', null, null, [uri], null));
}
/* connect("host:port/db"): the database of a new connection (the string's, else test) */
/* connect(uri, user, pwd): mongosh hands user and pwd to the driver as the connection's credentials (authenticated
 * against the string's database, else admin, as any credentials of a connection string): they go into the string */
function connect(uri, user, pwd) {
  if (typeof uri !== 'string') throw new TypeError('connect() needs a connection string');
  const m = /^(?:mongodb(?:\+srv)?:\/\/)?[^/?]*\/([^?]*)/.exec(uri);
  if (user !== undefined && user !== null) {
    const who = encodeURIComponent(String(user)) + (pwd !== undefined && pwd !== null ? ':' + encodeURIComponent(String(pwd)) : '');
    const s = /^mongodb(?:\+srv)?:\/\//.test(uri) ? uri : 'mongodb://' + uri;
    uri = s.replace(/^(mongodb(?:\+srv)?:\/\/)(?:[^@/?]*@)?/, (all, scheme) => scheme + who + '@');
  }
  return new Mongo(uri).getDB(m && m[1] ? decodeURIComponent(m[1]) : 'test');
}
bindConn(Cursor.prototype, (c) => c._q.conn, ['_open', '_count', 'explain']);
bindConn(Bulk.prototype, (b) => b._c._conn, ['execute']);
bindConn(Explainable.prototype, (e) => e._c._conn);
Database.prototype.getMongo = function () { return new MongoClient(this._conn); };
Collection.prototype.getMongo = Database.prototype.getMongo;
Database.prototype.help = function () { return global.help(); };
/* mongosh's isMaster: the command's answer with isWritablePrimary = ismaster */
function isMasterValue(r) { if (r && typeof r === 'object') r.isWritablePrimary = r.ismaster; return r; }
/* rs.conf(): replSetGetConfig's config; where the server has no such command (a mongos), mongosh reads
 * local.system.replset, which a mongos refuses */
function rsConf() {
  let r;
  try { r = entry('rs.conf', null, null, [], null); } catch (e) {
    if (e.codeName !== 'CommandNotFound' && e.codeName !== 'APIStrictError') throw e;
    const d = makeDb('local').getCollection('system.replset').findOne();
    if (d === null) throw new Error('No documents in local.system.replset');
    return d;
  }
  return r && r.config !== undefined ? r.config : r;
}
