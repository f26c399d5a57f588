/* shardsh JavaScript prelude: everything scripts see (sh, db, cursors, BSON constructors, print), evaluated once per engine by js_engine.cpp; embedded in the plugin at build time (Makefile, js_prelude.h) and checked with node --check. */
(function (global, N) {
'use strict';
const PRELUDE = 'shardsh:prelude';
const hide = (o, k, v) => Object.defineProperty(o, k, { value: v, writable: true, configurable: true, enumerable: false });
const KIND = { PARSE: 1, ARGS: 2, USAGE: 3, SERVER: 4 };

/* ---- base64 over byte arrays ---- */
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function b64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') +
         (i + 2 < bytes.length ? B64[n & 63] : '=');
  }
  return s;
}
function utf8(s) { return Array.from(unescape(encodeURIComponent(s)), (c) => c.charCodeAt(0)); }
function unb64(s) {
  const out = [];
  for (let i = 0; i + 3 < s.length; i += 4) {
    const n = (B64.indexOf(s[i]) << 18) | (B64.indexOf(s[i + 1]) << 12) | (Math.max(B64.indexOf(s[i + 2]), 0) << 6) | Math.max(B64.indexOf(s[i + 3]), 0);
    out.push((n >> 16) & 255);
    if (s[i + 2] !== '=') out.push((n >> 8) & 255);
    if (s[i + 3] !== '=') out.push(n & 255);
  }
  return out;
}
/* bytes as UTF-8, each maximal invalid subpart one U+FFFD (the WHATWG decoder's rule, which node's Buffer follows) */
function utf8Decode(b) {
  let s = '';
  for (let i = 0; i < b.length;) {
    const c = b[i];
    let n = 0, cp = 0, lo = 0x80, hi = 0xbf;
    if (c < 0x80) { s += String.fromCharCode(c); i++; continue; }
    if (c >= 0xc2 && c <= 0xdf) { n = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 2; cp = c & 0x0f; if (c === 0xe0) lo = 0xa0; if (c === 0xed) hi = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 3; cp = c & 0x07; if (c === 0xf0) lo = 0x90; if (c === 0xf4) hi = 0x8f; }
    else { s += '\ufffd'; i++; continue; }
    let j = 1;
    for (; j <= n; j++) {
      const x = b[i + j];
      if (x === undefined || x < lo || x > hi) break;
      cp = (cp << 6) | (x & 0x3f); lo = 0x80; hi = 0xbf;
    }
    if (j <= n) { s += '\ufffd'; i += j; continue; }
    s += String.fromCodePoint(cp); i += n + 1;
  }
  return s;
}

/* ---- BSON values ---- */
function ObjectId(hex) {
  if (!(this instanceof ObjectId)) return new ObjectId(hex);
  if (hex === undefined || hex === null) hex = N.oid();
  if (hex instanceof ObjectId) hex = hex.str;
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{24}$/.test(hex))
    throw new TypeError('ObjectId() takes a string of 24 hexadecimal characters');
  hide(this, 'str', hex.toLowerCase());
}
ObjectId.prototype.toHexString = function () { return this.str; };
ObjectId.prototype.toString = function () { return this.str; };
ObjectId.prototype.toJSON = function () { return this.str; };
ObjectId.prototype.equals = function (o) { return o instanceof ObjectId && o.str === this.str; };
ObjectId.prototype.getTimestamp = function () { return new Date(parseInt(this.str.slice(0, 8), 16) * 1000); };

const INT64_MAX = 9223372036854775807n, INT64_MIN = -9223372036854775808n;
function Long(v, high) {
  if (!(this instanceof Long)) return new Long(v, high);
  let b;
  if (typeof v === 'number' && typeof high === 'number')
    b = BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(v >>> 0));
  else if (v instanceof Long) b = v._v;
  else if (typeof v === 'bigint') b = v;
  else if (typeof v === 'number' || v instanceof Number) {
    v = Number(v);
    if (!Number.isFinite(v)) throw new RangeError('NumberLong needs a finite number, got ' + v);
    b = BigInt(Math.trunc(v));
  } else if (typeof v === 'string' || v instanceof String) {
    const t = String(v).trim();
    if (!/^[+-]?[0-9]+$/.test(t)) throw new TypeError('NumberLong needs an integer, got "' + v + '"');
    b = BigInt(t);
  } else if (v === undefined) b = 0n;
  else throw new TypeError('NumberLong needs a number or a string');
  if (b > INT64_MAX || b < INT64_MIN) throw new RangeError('NumberLong: ' + b + ' is out of the 64-bit range');
  hide(this, '_v', b);
}
/* no valueOf, as js-bson's Long: its primitive is its string, so NumberLong("42") + 1 is "421" and * 2 is 84, as in
 * mongosh; JSON.stringify shows js-bson's fields (high, low, unsigned) */
Long.prototype.toNumber = function () { return Number(this._v); };
Long.prototype.toString = function (r) { return this._v.toString(r); };
Long.prototype.toJSON = function () {
  return { high: Number(BigInt.asIntN(32, this._v >> 32n)), low: Number(BigInt.asIntN(32, this._v)), unsigned: false };
};
Long.prototype.equals = function (o) { return o instanceof Long ? o._v === this._v : Number(this._v) === o; };
Long.fromNumber = (n) => new Long(n);
Long.fromString = (s) => new Long(String(s));
Long.fromBigInt = (b) => new Long(b);

function intArg(v, what) {
  const n = Math.trunc(Number(v));
  if (!Number.isFinite(n) || n < -2147483648 || n > 2147483647) throw new RangeError(what + ': ' + v + ' is out of the 32-bit range');
  return n;
}
function Int32(v) { if (!(this instanceof Int32)) return new Int32(v); hide(this, '_v', v === undefined ? 0 : intArg(v, 'NumberInt')); }
Int32.prototype.valueOf = function () { return this._v; };
Int32.prototype.toString = function () { return String(this._v); };
Int32.prototype.toJSON = Int32.prototype.valueOf;
function Double(v) { if (!(this instanceof Double)) return new Double(v); hide(this, '_v', Number(v === undefined ? 0 : v)); }
Double.prototype.valueOf = function () { return this._v; };
Double.prototype.toString = function () { return String(this._v); };
Double.prototype.toJSON = Double.prototype.valueOf;
function Decimal128(s) {
  if (!(this instanceof Decimal128)) return new Decimal128(s);
  if (s === undefined) s = '0';
  if (typeof s === 'number') s = String(s);
  if (typeof s !== 'string') throw new TypeError('NumberDecimal needs a string');
  if (!N.decimalOk(s)) throw new TypeError(JSON.stringify(s) + ' is not a valid Decimal128 string');
  hide(this, '_v', s);
}
Decimal128.prototype.toString = function () { return this._v; };
Decimal128.prototype.toJSON = function () { return { $numberDecimal: this._v }; };
function Timestamp(t, i) {
  if (!(this instanceof Timestamp)) return new Timestamp(t, i);
  if (t instanceof Long) { i = Number(t._v & 0xffffffffn); t = Number(t._v >> 32n); }
  else if (t && typeof t === 'object') { i = t.i; t = t.t; }
  const ok = (x) => Number.isInteger(x) && x >= 0 && x <= 4294967295;
  t = t === undefined ? 0 : Number(t); i = i === undefined ? 0 : Number(i);
  if (!ok(t) || !ok(i)) throw new RangeError('Timestamp needs t and i from 0 to 4294967295');
  this.t = t; this.i = i;
}
Timestamp.prototype.toString = function () { return 'Timestamp({ t: ' + this.t + ', i: ' + this.i + ' })'; };
/* js-bson's Timestamp is a Long: JSON.stringify gives its 64-bit value as a string */
Timestamp.prototype.toJSON = function () { return { $timestamp: String((BigInt(this.t) << 32n) | BigInt(this.i)) }; };
function Binary(base64, subType) {
  if (!(this instanceof Binary)) return new Binary(base64, subType);
  if (typeof base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4)
    throw new TypeError('BinData needs base64 data');
  subType = subType === undefined ? 0 : Number(subType);
  if (!Number.isInteger(subType) || subType < 0 || subType > 255) throw new RangeError('BinData: subtype ' + subType + ' is not a byte');
  hide(this, 'base64', base64); hide(this, 'sub_type', subType);
}
/* js-bson's Binary.toString(encoding): 'hex', 'base64', else the bytes read as UTF-8 (U+FFFD for what is not) */
Binary.prototype.toString = function (encoding) {
  if (encoding === 'base64') return this.base64;
  const bytes = unb64(this.base64);
  if (encoding === 'hex') return bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return utf8Decode(bytes);
};
function BinData(subType, base64) { return new Binary(base64, subType); }
function hexBytes(hex) { const out = []; for (let i = 0; i < hex.length; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16)); return out; }
function UUID(s) {
  if (s === undefined) {
    const b = []; for (let i = 0; i < 16; i++) b.push(Math.floor(Math.random() * 256));
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    return new Binary(b64(b), 4);
  }
  const hex = String(s).replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new TypeError('UUID needs 32 hexadecimal characters, got "' + s + '"');
  return new Binary(b64(hexBytes(hex)), 4);
}
function HexData(subType, hex) {
  if (!/^([0-9a-fA-F]{2})*$/.test(String(hex))) throw new TypeError('HexData needs hexadecimal pairs');
  return new Binary(b64(hexBytes(String(hex))), subType);
}
function MinKey() { if (!(this instanceof MinKey)) return new MinKey(); }
function MaxKey() { if (!(this instanceof MaxKey)) return new MaxKey(); }
function BSONRegExp(pattern, options) { if (!(this instanceof BSONRegExp)) return new BSONRegExp(pattern, options); this.pattern = String(pattern); this.options = String(options || ''); }
function Code(code) { if (!(this instanceof Code)) return new Code(code); this.code = String(code); }
function ISODate(s) {
  if (s === undefined) return new Date();
  let t = String(s);
  if (/T\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(t)) t += 'Z';
  const d = new Date(t);
  if (isNaN(d.getTime())) throw new TypeError('"' + s + '" is not a valid ISODate');
  return d;
}

/* ---- JavaScript -> canonical Extended JSON ---- */
/* a lone surrogate becomes U+FFFD, as node's UTF-8 encoder (and so mongosh) writes it */
function wellFormed(s) {
  return /[\ud800-\udfff]/.test(s) ? s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd') : s;
}
/* a key that starts with '$' (or the mark) travels with the mark \u0001 in front, so it is never read as one of
 * Extended JSON's own wrappers ({$regex: /x/}, a stored {$numberInt: 'x', other: 1}); js_engine.cpp strips it */
function markKey(k) { return k[0] === '$' || k[0] === '\u0001' ? '\u0001' + k : k; }
function encNum(v) {
  if (Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 && !Object.is(v, -0)) return '{"$numberInt":"' + v + '"}';
  return '{"$numberDouble":"' + (Object.is(v, -0) ? '-0.0' : String(v)) + '"}';
}
const SKIP = {};
function enc1(v, depth, undef) {
  if (depth > 150) throw new RangeError('a value nested deeper than 150 levels (or cyclic) cannot be converted to BSON');
  switch (typeof v) {
    case 'number': return encNum(v);
    case 'string': return JSON.stringify(wellFormed(v));
    case 'boolean': return v ? 'true' : 'false';
    case 'bigint':
      if (v > INT64_MAX || v < INT64_MIN) throw new RangeError(v + ' is out of the 64-bit range');
      return '{"$numberLong":"' + v + '"}';
    case 'undefined': return undef ? '{"$undefined":true}' : 'null';
    case 'symbol': return SKIP;
    case 'function':
      if (v === MinKey) return '{"$minKey":1}';
      if (v === MaxKey) return '{"$maxKey":1}';
      return SKIP;
  }
  if (v === null) return 'null';
  if (v instanceof ObjectId) return '{"$oid":"' + v.str + '"}';
  if (v instanceof Long) return '{"$numberLong":"' + v._v + '"}';
  if (v instanceof Int32) return '{"$numberInt":"' + v._v + '"}';
  if (v instanceof Double) return '{"$numberDouble":"' + (Object.is(v._v, -0) ? '-0.0' : String(v._v)) + '"}';
  if (v instanceof Decimal128) return '{"$numberDecimal":' + JSON.stringify(v._v) + '}';
  if (v instanceof Timestamp) return '{"$timestamp":{"t":' + v.t + ',"i":' + v.i + '}}';
  if (v instanceof Binary) return '{"$binary":{"base64":"' + v.base64 + '","subType":"' + v.sub_type.toString(16).padStart(2, '0') + '"}}';
  if (v instanceof MinKey) return '{"$minKey":1}';
  if (v instanceof MaxKey) return '{"$maxKey":1}';
  if (v instanceof Date) {
    const t = v.getTime();
    if (isNaN(t)) throw new RangeError('an invalid Date cannot be converted to BSON');
    return '{"$date":{"$numberLong":"' + t + '"}}';
  }
  if (v instanceof RegExp) return '{"$regularExpression":{"pattern":' + JSON.stringify(v.source) + ',"options":"' + v.flags.replace(/[^imsu]/g, '').split('').sort().join('') + '"}}';
  if (v instanceof BSONRegExp) return '{"$regularExpression":{"pattern":' + JSON.stringify(v.pattern) + ',"options":' + JSON.stringify(v.options.split('').sort().join('')) + '}}';
  if (v instanceof Code) return '{"$code":' + JSON.stringify(v.code) + '}';
  if (v instanceof Number) return encNum(Number(v));
  if (v instanceof String) return JSON.stringify(wellFormed(String(v)));
  if (v instanceof Boolean) return v.valueOf() ? 'true' : 'false';
  /* a Database object where a helper takes one (sh.status(db)): the tagged binary the shell's dispatch knows */
  if (v instanceof Database) return '{"$binary":{"base64":"' + b64(utf8('shardsh:db:' + v._name)) + '","subType":"80"}}';
  if (v instanceof Collection) return JSON.stringify(v._db + '.' + v._name);
  if (v instanceof Cursor) {
    if (undef) return enc1(v._printable(), depth, undef); /* print(cursor) prints what the shell shows */
    throw new TypeError('a cursor cannot be sent: call .toArray() first');
  }
  if (Array.isArray(v)) {
    const parts = [];
    for (let i = 0; i < v.length; i++) { const e = enc1(v[i], depth + 1, undef); parts.push(e === SKIP ? 'null' : e); }
    return '[' + parts.join(',') + ']';
  }
  const parts = [];
  for (const k of Object.keys(v)) {
    const e = enc1(v[k], depth + 1, undef);
    if (e !== SKIP) parts.push(JSON.stringify(markKey(wellFormed(k))) + ':' + e);
  }
  return '{' + parts.join(',') + '}';
}
function enc(v) { const e = enc1(v, 0, false); return e === SKIP ? 'null' : e; }
/* call arguments: a document {"0": ...}; an undefined argument is BSON undefined, so the helper sees it missing.
 * undef: undefined inside documents stays undefined (what print shows) instead of null (what the driver sends) */
function encArgs(args, undef) {
  const parts = [];
  for (let i = 0; i < args.length; i++) {
    const e = args[i] === undefined ? SKIP : enc1(args[i], 1, undef);
    parts.push('"' + i + '":' + (e === SKIP ? '{"$undefined":true}' : e));
  }
  return '{' + parts.join(',') + '}';
}

/* ---- canonical Extended JSON -> JavaScript ---- */
function revive(k, v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const keys = Object.keys(v);
  if (keys.length === 0 || keys[0][0] !== '$') return v;
  try {
    if (keys.length === 1) {
      switch (keys[0]) {
        case '$numberInt': return parseInt(v.$numberInt, 10);
        case '$numberDouble': return Number(v.$numberDouble);
        case '$numberLong': return new Long(v.$numberLong);
        case '$numberDecimal': return new Decimal128(v.$numberDecimal);
        case '$oid': return new ObjectId(v.$oid);
        case '$date': return new Date(Number(v.$date));
        case '$binary': return new Binary(v.$binary.base64, parseInt(v.$binary.subType, 16));
        case '$timestamp': return new Timestamp(v.$timestamp.t, v.$timestamp.i);
        case '$regularExpression': {
          const p = v.$regularExpression.pattern, o = v.$regularExpression.options;
          if (/^[imsu]*$/.test(o)) { try { return new RegExp(p, o); } catch (e) { /* not a JavaScript pattern */ } }
          return new BSONRegExp(p, o);
        }
        case '$minKey': return new MinKey();
        case '$maxKey': return new MaxKey();
        case '$undefined': return undefined;
        case '$symbol': return String(v.$symbol);
        case '$code': return new Code(v.$code);
      }
    }
  } catch (e) { /* a user document that only looks like Extended JSON stays a document */ }
  return v;
}
/* a document whose keys carry the mark (js_engine.cpp put it on every key starting with '$') is a document */
function reviveMarked(k, v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const keys = Object.keys(v);
  if (!keys.some((x) => x[0] === '\u0001')) return revive(k, v);
  const o = {};
  for (const x of keys)
    Object.defineProperty(o, x[0] === '\u0001' ? x.slice(1) : x, { value: v[x], writable: true, enumerable: true, configurable: true });
  return o;
}
function dec(s) { return JSON.parse(s, s.indexOf('\\u0001') < 0 ? revive : reviveMarked); }

/* ---- where a call is in the user's script: the first stack frame outside the prelude: [line, col, file] (the file
 * of a function another input defined, a library's, or of a file load() ran when withLoaded: a call's place). An
 * error's place skips loaded files (it is at the load() call, its message says "in FILE:LINE:COL"); inner: [file,
 * line, col] of the innermost frame, loaded files included ---- */
function userFrame(stack, inner, withLoaded) {
  for (const l of String(stack).split('\n')) {
    const m = /@(.*):(\d+):(\d+)$/.exec(l);
    if (m && m[1] !== PRELUDE && (inner || withLoaded || !loaded.has(m[1]))) return inner ? [m[1], Number(m[2]), Number(m[3])] : [Number(m[2]), Number(m[3]), m[1]];
  }
  return null;
}
/* "in FILE:LINE:COL: " when the error e happened inside a file load() ran, else "" */
function loadedPlace(e) {
  const f = e instanceof SyntaxError && loaded.has(e.fileName) ? [e.fileName, e.lineNumber, e.columnNumber + 1] : userFrame(e.stack, true);
  return f && loaded.has(f[0]) ? 'in ' + f[0] + ':' + f[1] + ':' + f[2] + ': ' : '';
}
function callerPos() { return userFrame(new Error().stack, false, true) || [0, 0, '']; }

function shError(d, pos) {
  const e = new Error(d.message);
  e.name = d.kind === KIND.SERVER ? 'MongoServerError' : 'MongoshError';
  if (d.code) e.code = d.code;
  /* an argument refused as mongosh refuses it is mongosh's error: its name and code */
  if (d.kind === KIND.ARGS && d.message.startsWith('[COMMON-10001] ')) { e.name = 'MongoshInvalidInputError'; e.code = 'COMMON-10001'; }
  if (d.codeName) e.codeName = d.codeName;
  if (d.kind === KIND.SERVER) e.errmsg = d.message;
  hide(e, '__sh', { kind: d.kind, code: d.code, codeName: d.codeName, hint: d.hint, line: d.line || pos[0], col: d.col || pos[1], file: pos[2] || '' });
  return e;
}

/* ---- calling the command table ---- */
function entry(name, db, coll, args, mods, open) {
  const pos = callerPos();
  let m = '';
  if (mods) {
    const o = {};
    for (const k of ['sort', 'limit', 'skip']) if (mods[k] !== undefined) o[k] = mods[k];
    if (mods.batch) o.batchSize = mods.batch;
    if (open) o.open = true;
    m = enc(o);
  }
  const r = N.call(name, db, coll, encArgs(args, name === 'print' || name === 'printjson'), args.length, m, pos[0], pos[1], pos[2] || '', connId);
  if (r === 'N') return undefined;
  const d = dec(r.slice(1));
  if (r[0] === 'E') throw shError(d, pos);
  if (d.cursor) return docsCursor(name, d.v, d.cursor);
  if (typeof d.stats === 'string' && d.v !== null && typeof d.v === 'object') hide(d.v, '__shStats', d.stats);
  return d.v;
}

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
Database.prototype.toString = function () { return this._name; };
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
Collection.prototype.toString = Collection.prototype.getFullName;
/* db.<coll>.explain(verbosity): mongosh's Explainable; find gives a cursor whose value is its explain */
function Explainable(coll, verbosity) { hide(this, '_c', coll); hide(this, '_v', explainVerbosity(verbosity)); }
Explainable.prototype.getVerbosity = function () { return this._v; };
Explainable.prototype.find = function (...a) {
  const c = this._c.find(...a);
  c._q.explain = this._v;
  return c;
};
Explainable.prototype.aggregate = function (pipeline, opts) {
  const inner = Object.assign({ aggregate: this._c._name, pipeline: pipeline === undefined ? [] : pipeline, cursor: {} }, opts || {});
  return explainRun(this._c._db, inner, this._v);
};
Explainable.prototype.count = function (query, opts) {
  return explainRun(this._c._db, Object.assign({ count: this._c._name, query: query === undefined ? {} : query }, opts || {}), this._v);
};
Explainable.prototype.distinct = function (key, query, opts) {
  const inner = { distinct: this._c._name, key };
  if (query !== undefined) inner.query = query;
  return explainRun(this._c._db, Object.assign(inner, opts || {}), this._v);
};
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
Cursor.prototype.hasNext = function () {
  this._open();
  if (this._left() === 0) this._pull(1); /* one document at a time: converted as the script asks */
  return this._left() > 0;
};
Cursor.prototype.next = function () { return this.hasNext() ? this._apply(this._q.buf[this._q.pos++]) : null; };
Cursor.prototype.tryNext = Cursor.prototype.next;
Cursor.prototype.isExhausted = function () { return this._q.opened && this._left() === 0 && !this._q.more; };
Cursor.prototype.close = function () { const q = this._q; q.opened = true; this._release(); q.more = false; q.buf = []; q.pos = 0; };
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
/* mongosh's cursor.count(): the count command on the filter (skip and limit not applied), through db.runCommand;
 * size(): the same with skip and limit applied */
Cursor.prototype._count = function (applied) {
  const q = this._q;
  if (q.name !== 'db.collection.find') throw new TypeError((applied ? 'size' : 'count') + '() is for find cursors');
  const cmd = { count: q.coll, query: q.args[0] === undefined ? {} : q.args[0] };
  if (applied && q.limit) cmd.limit = q.limit;
  if (applied && q.skip) cmd.skip = q.skip;
  const r = entry('db.runCommand', q.db, null, [cmd], null);
  return r && typeof r === 'object' ? Number(r.n) : r;
};
/* mongosh's explain(verbosity) of a find cursor: the explain command of the find it would send, through
 * db.runCommand, trimmed as mongosh trims it (aggregate-or-find-cursor.ts) */
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
Cursor.prototype.explain = function (verbosity) {
  const q = this._q;
  if (q.name !== 'db.collection.find') throw new TypeError('explain() is for find cursors here; aggregate: db.coll.explain().aggregate(...)');
  const inner = { find: q.coll, filter: q.args[0] === undefined ? {} : q.args[0] };
  if (q.sort !== undefined) inner.sort = q.sort;
  const proj = q.projection !== undefined ? q.projection : q.args[1];
  if (proj !== undefined) inner.projection = proj;
  if (q.skip) inner.skip = q.skip;
  if (q.limit) inner.limit = q.limit;
  return explainRun(q.db, inner, explainVerbosity(verbosity));
};
Cursor.prototype.count = function () { return this._count(false); };
Cursor.prototype.size = function () { return this._count(true); };
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
Object.defineProperty(global, 'it', {
  get() {
    /* a find or aggregate typed as a literal statement after the engine's last cursor: "it" continues that one */
    const h = N.cursorCurrent(true);
    if (h >= 0) lastCursor = h > 0 ? new Cursor('db.collection.find', null, null, [], h) : null;
    if (!lastCursor) return new ItResult([], false);
    const b = lastCursor._batch(20);
    return new ItResult(b, lastCursor._hasMore());
  },
  configurable: true,
});
const api = { sh, ObjectId, Long, NumberLong: Long, Int32, NumberInt: Int32, Double, Decimal128, NumberDecimal: Decimal128,
              Timestamp, Binary, BinData, UUID, HexData, MinKey, MaxKey, BSONRegExp, Code, ISODate, Database, Collection, DBQuery: Cursor };
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
function connect(uri) {
  if (typeof uri !== 'string') throw new TypeError('connect() needs a connection string');
  const m = /^(?:mongodb(?:\+srv)?:\/\/)?[^/?]*\/([^?]*)/.exec(uri);
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
const console = {};
for (const k of ['log', 'info', 'debug', 'error', 'warn', 'trace']) console[k] = named(function (...a) { return global.print(...a); }, k);
/* print shows a function as node's inspect does (mongosh's MinKey and MaxKey are functions with two properties) */
function printable(v) {
  if (typeof v !== 'function') return v;
  const n = v.name ? ': ' + v.name : ' (anonymous)';
  if (v === MinKey || v === MaxKey) return '[Function' + n + '] {\n  toBSON: [Function: toBSON],\n  help: [Function (anonymous)] Help\n}';
  return (/^class\b/.test(Function.prototype.toString.call(v)) ? '[class' + (v.name ? ' ' + v.name : ' (anonymous)') : '[Function' + n) + ']';
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
  if (v instanceof ObjectId) return { $oid: v.str };
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
  const print0 = global.print;
  if (print0) global.print = named(function (...a) { return print0(...a.map(printable)); }, 'print');
  const printjson0 = global.printjson; /* mongosh's printjson shows a function as print does */
  if (printjson0) global.printjson = named(function (...a) { return printjson0(...a.map(printable)); }, 'printjson');
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

/* ---- the value of an expression, for the REPL and --eval ---- */
function show(v) {
  if (v === undefined) return null;
  if (v instanceof Cursor && v._q.explain) return [enc({ v: v.explain(v._q.explain) }), false];
  if (v instanceof Cursor && v._q.kind === 'cmd') return [enc({ v: v._printable() }), false];
  if (v instanceof Cursor) { const b = v._batch(20); return [enc({ v: b }), v._hasMore(), undefined, 1]; }
  if (v instanceof ItResult) return [enc({ v: v._docs }), v._more, undefined, 2];
  if (v instanceof Database) return [enc({ v: v._name }), false];
  if (v instanceof Collection) return [enc({ v: v._db + '.' + v._name }), false];
  if (typeof v === 'function') return [enc({ v: '[Function: ' + (v.name || '(anonymous)') + ']' }), false];
  if (typeof v === 'symbol') return [enc({ v: v.toString() }), false];
  if (v !== null && typeof v === 'object' && typeof v.__shStats === 'string') return [enc({ v }), false, v.__shStats];
  return [enc({ v }), false];
}

/* ---- an uncaught exception as the shell reports errors ---- */
function describe(e, rline, rcol, rinfile, rmsg) {
  if (e !== null && typeof e === 'object' && e.__sh) {
    const s = e.__sh;
    return enc({ kind: s.kind, code: s.code | 0, codeName: s.codeName || '', message: String(e.message), hint: s.hint || '', line: s.line, col: s.col, file: s.file || '' });
  }
  let pos = null, message;
  if (e instanceof Error) {
    const place = loadedPlace(e);
    pos = (e instanceof SyntaxError || rinfile) && !place ? null : userFrame(e.stack);
    message = place + e.name + ': ' + e.message;
  } else {
    try { message = 'uncaught exception: ' + String(e); } catch (x) { message = rmsg; }
  }
  if (!pos && rinfile) pos = [rline, rcol];
  return enc({ kind: e instanceof SyntaxError ? KIND.PARSE : KIND.USAGE, code: 0, codeName: '', message, hint: '', line: pos ? pos[0] : 0, col: pos ? pos[1] : 0, file: pos && pos[2] ? pos[2] : '' });
}

/* ---- Tab completion ---- */
function complete(prefix) {
  const i = prefix.lastIndexOf('.');
  const head = i < 0 ? '' : prefix.slice(0, i), tail = i < 0 ? prefix : prefix.slice(i + 1);
  let base = global;
  if (head) {
    if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(head)) return [];
    for (const p of head.split('.')) {
      try { base = base[p]; } catch (e) { return []; }
      if (base === null || (typeof base !== 'object' && typeof base !== 'function')) return [];
    }
  }
  const seen = new Set();
  for (let o = base; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o))
    for (const n of Object.getOwnPropertyNames(o))
      if (n.startsWith(tail) && !n.startsWith('_') && n !== 'constructor' && /^[A-Za-z_$][\w$]*$/.test(n)) seen.add(n);
  return JSON.stringify(Array.from(seen).sort().map((n) => (head ? head + '.' : '') + n));
}

return { enc, dec, show, describe, complete, install, encTop: (v) => enc({ v }) };
})
