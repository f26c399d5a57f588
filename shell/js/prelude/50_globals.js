/* shardsh JavaScript prelude, part: console, print's forms, EJSON, bsonsize, load, the unsupported names. The parts are concatenated in name order by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */
const console = {};
for (const k of ['log', 'info', 'debug', 'error', 'warn', 'trace']) console[k] = named(function (...a) { return global.print(...a); }, k);
/* print shows a function as node's inspect does (mongosh's MinKey and MaxKey are functions with two properties), and
 * an Int32 or Double made by the script by its kind (inside a document too: the bridge's shown(), 10_bridge.js) */
function printable(v) {
  if (v instanceof Buffer) return bufferText(v);
  if (v instanceof MongoClient) return v.getURI(); /* print(db.getMongo()) shows its connection string */
  if (v instanceof Database) return v._name; /* print(db) shows its name, as mongosh's */
  /* js-bson's Int32 and Double show their kind (a number read from the server is a plain number) */
  if (v instanceof Int32) return 'Int32(' + v._v + ')';
  if (v instanceof Double) return 'Double(' + (Object.is(v._v, -0) ? '-0' : String(v._v)) + ')';
  if (typeof v !== 'function') return v;
  const n = v.name ? ': ' + v.name : ' (anonymous)';
  if (v === MinKey || v === MaxKey) return '[Function' + n + '] {\n  toBSON: [Function: toBSON],\n  help: [Function (anonymous)] Help\n}';
  if (/^class\b/.test(Function.prototype.toString.call(v))) return '[class' + (v.name ? ' ' + v.name : ' (anonymous)') + ']';
  const kind = Object.getPrototypeOf(v).constructor.name; /* node: [AsyncFunction: f], [GeneratorFunction: g] */
  return '[' + (/^(Async)?(Generator)?Function$/.test(kind) ? kind : 'Function') + n + ']';
}
/* ---- EJSON as js-bson's: relaxed by default; serialize/deserialize go through plain objects ---- */
function isoDate(d) { const s = d.toISOString(); return d.getUTCMilliseconds() !== 0 ? s : s.slice(0, -5) + 'Z'; }
function ejsonOut(v, relaxed, depth) {
  if (depth > 150) throw new RangeError('Converting circular structure to EJSON');
  if (v === undefined) return null;
  if (typeof v === 'number') {
    if (relaxed && Number.isFinite(v)) return v;
    if (Number.isInteger(v) && !Object.is(v, -0)) {
      if (v >= -2147483648 && v <= 2147483647) return { $numberInt: String(v) };
      if (v >= -9223372036854775808 && v <= 9223372036854775807) return { $numberLong: String(v) };
    }
    return { $numberDouble: Object.is(v, -0) ? '-0.0' : String(v) };
  }
  if (typeof v === 'bigint') return relaxed ? Number(BigInt.asIntN(64, v)) : { $numberLong: String(BigInt.asIntN(64, v)) };
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => ejsonOut(x, relaxed, depth + 1));
  if (v instanceof Date) {
    const t = v.getTime();
    return relaxed && t > -1 && t < 253402300800000 ? { $date: isoDate(v) } : { $date: { $numberLong: String(t) } };
  }
  if (v instanceof Long) return relaxed ? Number(v._v) : { $numberLong: String(v._v) };
  if (v instanceof Int32) return relaxed ? v._v : { $numberInt: String(v._v) };
  if (v instanceof Double) {
    if (relaxed && Number.isFinite(v._v)) return v._v;
    return { $numberDouble: Object.is(v._v, -0) ? '-0.0' : Number.isInteger(v._v) ? v._v.toFixed(1) : String(v._v) };
  }
  if (v instanceof ObjectId) return { $oid: v._hex };
  if (v instanceof Decimal128) return { $numberDecimal: v._v };
  if (v instanceof Timestamp) return { $timestamp: { t: v.t, i: v.i } };
  if (v instanceof Binary) return { $binary: { base64: v.base64, subType: v.sub_type.toString(16).padStart(2, '0') } };
  if (v instanceof MinKey) return { $minKey: 1 };
  if (v instanceof MaxKey) return { $maxKey: 1 };
  if (v instanceof RegExp) return { $regularExpression: { pattern: v.source, options: v.flags.replace(/[^imsux]/g, '').split('').sort().join('') } };
  if (v instanceof BSONRegExp) return { $regularExpression: { pattern: v.pattern, options: v.options.split('').sort().join('') } };
  if (v instanceof Code) return { $code: v.code };
  const o = {};
  for (const k of Object.keys(v)) o[k] = ejsonOut(v[k], relaxed, depth + 1);
  return o;
}
function ejsonIn(v, relaxed) {
  if (typeof v === 'number') {
    if (relaxed) return v;
    if (Number.isInteger(v) && !Object.is(v, -0)) return v >= -2147483648 && v <= 2147483647 ? new Int32(v) : new Long(v);
    return new Double(v);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  if (v.$undefined) return null;
  if (typeof v.$numberLong === 'string') { const l = new Long(v.$numberLong); return relaxed ? Number(l._v) : l; }
  if (typeof v.$numberInt === 'string') return relaxed ? parseInt(v.$numberInt, 10) : new Int32(parseInt(v.$numberInt, 10));
  if (typeof v.$numberDouble === 'string') return relaxed ? Number(v.$numberDouble) : new Double(Number(v.$numberDouble));
  if (v.$date !== undefined && v.$date !== null) {
    const d = v.$date;
    if (typeof d === 'string') return new Date(Date.parse(d));
    if (d instanceof Long) return new Date(Number(d._v));
    if (typeof d === 'number' && relaxed) return new Date(d);
    throw new TypeError('Unrecognized type for EJSON date: ' + typeof d);
  }
  const r = revive('', v);
  return r;
}
const EJSON = Object.freeze({
  stringify(value, replacer, space, options) {
    if (space !== null && typeof space === 'object') { options = space; space = undefined; }
    if (replacer !== null && typeof replacer === 'object' && !Array.isArray(replacer)) { options = replacer; replacer = undefined; }
    const relaxed = !(options && options.relaxed === false);
    return JSON.stringify(ejsonOut(value, relaxed, 0), replacer, space);
  },
  parse(text, options) {
    const relaxed = !(options && options.relaxed === false);
    return JSON.parse(text, (k, v) => ejsonIn(v, relaxed));
  },
  serialize(value, options) { return JSON.parse(EJSON.stringify(value, options || {})); },
  deserialize(ejson, options) { return EJSON.parse(JSON.stringify(ejson), options || {}); },
});
/* bsonsize(doc): its size in BSON bytes, from the canonical Extended JSON it is sent as */
function utf8Len(s) { return utf8(s).length; }
function ejsonSize(v) {
  if (v === null || typeof v === 'boolean') return v === null ? 0 : 1;
  if (typeof v === 'string') return 4 + utf8Len(v) + 1;
  if (Array.isArray(v)) return docSize(v.map((x, i) => [String(i), x]));
  const k = Object.keys(v)[0];
  switch (k) {
    case '$numberInt': return 4;
    case '$numberDouble': case '$numberLong': case '$date': case '$timestamp': return 8;
    case '$numberDecimal': return 16;
    case '$oid': return 12;
    case '$binary': return 5 + unb64(v.$binary.base64).length;
    case '$regularExpression': return utf8Len(v[k].pattern) + 1 + v[k].options.length + 1;
    case '$code': return 4 + utf8Len(v.$code) + 1;
    case '$minKey': case '$maxKey': case '$undefined': return 0;
  }
  return docSize(Object.entries(v));
}
function docSize(entries) {
  let n = 5;
  for (const [k, x] of entries) n += 1 + utf8Len(k[0] === '\u0001' ? k.slice(1) : k) + 1 + ejsonSize(x);
  return n;
}
function bsonsize(o) {
  if (o === null || typeof o !== 'object') throw new TypeError('bsonsize needs a document');
  return docSize(Object.entries(JSON.parse(enc(o))));
}
/* load(file): the file run in the global scope, its path resolved from the working directory as mongosh's
 * (path.resolve). Returns true. __filename and __dirname are the loaded file's while it runs, else the running
 * script's (a -f file, as mongosh sets them; undefined in --eval and the REPL). */
const loaded = new Set();
let loadFile = null;
function scriptFile() {
  if (loadFile) return loadFile;
  let f = null;
  for (const l of String(new Error().stack).split('\n')) {
    const m = /@(.*):\d+:\d+$/.exec(l);
    if (m && m[1] !== PRELUDE) f = m[1];
  }
  return f && f[0] !== '<' ? N.load(f, null) : undefined;
}
function dirOf(p) { return p === undefined ? undefined : p.replace(/\/[^/]*$/, '') || '/'; }
function load(file) {
  if (typeof file !== 'string') throw new TypeError('load needs a file name');
  const abs = N.load(file, null), prev = loadFile;
  loaded.add(file);
  loadFile = abs;
  try {
    N.load(file, abs);
  } finally {
    loadFile = prev;
  }
  return true;
}
function finishApi(tableNames) {
  fromTable = new Set(tableNames);
  const print0 = global.print, printjson0 = global.printjson;
  /* a helper's StatsResult (getShardDistribution) printed alone shows as mongosh's: each section's name on its own
   * line, then its value, sections joined by "---" (the shell's present_stats, commands/result.c); a result with a
   * key that prints on one line (sh.status) still prints as a document. print shows the sections as printjson does,
   * one entry a line, as mongosh 2.12's print does */
  const asStats = (a) => {
    if (a.length !== 1 || a[0] === null || typeof a[0] !== 'object' || a[0].__shStats !== '') return false;
    Object.keys(a[0]).forEach((k, i) => {
      if (i) print0('---');
      print0(k);
      if (a[0][k] === undefined) print0('undefined'); else printjson0(a[0][k]);
    });
    return true;
  };
  if (print0) global.print = named(function (...a) { return asStats(a) ? undefined : print0(...a.map(printable)); }, 'print');
  /* mongosh's printjson shows a function as print does */
  if (printjson0) global.printjson = named(function (...a) { return asStats(a) ? undefined : printjson0(...a.map(printable)); }, 'printjson');
  const dbIsMaster = Database.prototype.isMaster;
  if (dbIsMaster && !dbIsMaster.__shUnsupported) Database.prototype.isMaster = named(function () { return isMasterValue(dbIsMaster.call(this)); }, 'isMaster');
  if (fromTable.has('rs.conf')) { rs.conf = named(rsConf, 'conf'); rs.config = named(rsConf, 'config'); }
  /* what reads the replica set's config or the local database first fails there through a mongos, as mongosh's
   * does (CommandNotFound, then IllegalOperation for local); past that, on a replica set, shardsh says it lacks it */
  for (const n of ['add', 'addArb', 'remove', 'reconfig', 'reconfigForPSASet'])
    rs[n] = named(function () { rsConf(); return unsupported('rs.' + n + '()')(); }, n);
  const replInfo = (n, first) => named(function () { first(); return unsupported('db.' + n + '()')(); }, n);
  const localNames = () => makeDb('local').getCollectionNames();
  Database.prototype.getReplicationInfo = replInfo('getReplicationInfo', localNames);
  Database.prototype.printReplicationInfo = replInfo('printReplicationInfo', localNames);
  Database.prototype.printSecondaryReplicationInfo = replInfo('printSecondaryReplicationInfo',
    () => makeDb('local').getCollection('system.replset').countDocuments({}));
  rs.printReplicationInfo = named(() => currentDb().printReplicationInfo(), 'printReplicationInfo');
  rs.printSecondaryReplicationInfo = named(() => currentDb().printSecondaryReplicationInfo(), 'printSecondaryReplicationInfo');
  const deprecated = (text) => named(function () {
    const e = new Error('[COMMON-10003] ' + text);
    e.name = 'MongoshDeprecatedError';
    e.code = 'COMMON-10003';
    throw e;
  }, 'printSlaveReplicationInfo');
  rs.printSlaveReplicationInfo = deprecated('printSlaveReplicationInfo has been deprecated. Use printSecondaryReplicationInfo instead');
  Database.prototype.printSlaveReplicationInfo = deprecated('Method deprecated, use db.printSecondaryReplicationInfo instead');
  rs.isMaster = named(() => makeDb('admin').isMaster(), 'isMaster');
  rs.hello = named(() => makeDb('admin').hello(), 'hello');
  const g = { console, EJSON, bsonsize, load, rs, version: () => MONGOSH_VERSION, Mongo, connect };
  for (const k of Object.keys(g)) Object.defineProperty(global, k, { value: g[k], writable: true, configurable: true, enumerable: false });
  Object.defineProperty(global, '__filename', { get: scriptFile, configurable: true });
  Object.defineProperty(global, '__dirname', { get: () => dirOf(scriptFile()), configurable: true });
  const homes = { db: Database.prototype, 'db.collection': Collection.prototype, cursor: Cursor.prototype, 'db.getMongo()': MongoClient.prototype, rs, sh };
  for (const n of MONGOSH_API[''].split(' '))
    if (!(n in global)) Object.defineProperty(global, n, { value: unsupported(n), writable: true, configurable: true, enumerable: false });
  /* the other names are found, when asked for, through a Proxy at the end of each home's prototype chain (so `n in
   * db` is true for them and a Database never makes them collections); nothing is made for names never used, which
   * keeps the engine's start-up what it was */
  for (const where of Object.keys(homes)) {
    const names = new Set(MONGOSH_API[where].split(' ')), made = new Map(), home = homes[where];
    Object.setPrototypeOf(home, new Proxy(Object.getPrototypeOf(home), {
      has: (t, p) => names.has(p) || Reflect.has(t, p),
      ownKeys: () => [], /* Tab completion lists what the home has, not Object.prototype's names */
      get(t, p, r) {
        if (!names.has(p)) return Reflect.get(t, p, r);
        if (!made.has(p)) made.set(p, unsupported(where + '.' + p + '()'));
        return made.get(p);
      },
    }));
  }
  /* what docs/javascript.md's table shows: each name and where it comes from */
  hide(global, '__shardshApi', () => Object.entries(MONGOSH_API).map(([where, list]) => [where, list.split(' ').map((n) => {
    const home = where ? homes[where] : global;
    const v = home === global ? Object.getOwnPropertyDescriptor(global, n) : { value: home[n] };
    const f = v ? (v.get ? v.get : v.value) : undefined;
    const key = where === '' ? n : where + '.' + n;
    return [n, f && f.__shUnsupported ? 'no' : fromTable.has(key) ? 'table' : 'engine'];
  })]));
}
