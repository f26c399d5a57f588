/* The JavaScript engine plugin (bin/shardsh-js.so): SpiderMonkey 102 behind the C interface of js_engine.h. The only
 * C++ in the project. One JSContext and one global realm per engine; JS_Init once per process (JS_ShutDown at exit).
 * Everything the scripts see (sh, db, Database, Collection, cursors, the BSON constructors, print, ...) is defined by
 * the prelude below, in JavaScript, from the command table's names the shell hands over; every method call comes back
 * here through one native, __sh.call, which hands the call to the shell's dispatch. Values cross between BSON and
 * JavaScript as canonical Extended JSON: libbson writes and reads it on this side, the prelude on the other, so no
 * BSON value is ever guessed from a JavaScript number (int32 when integral and in range, else double, as mongosh
 * sends them). Rooting: every JSObject held across calls is a PersistentRooted owned by the engine; everything else
 * lives in JS::Rooted on the stack. */
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#include <js/Array.h>
#include <js/CallAndConstruct.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Context.h>
#include <js/Conversions.h>
#include <js/ErrorReport.h>
#include <js/Exception.h>
#include <js/GlobalObject.h>
#include <js/Initialization.h>
#include <js/Interrupt.h>
#include <js/Object.h>
#include <js/PropertyAndElement.h>
#include <js/Realm.h>
#include <js/SourceText.h>
#include <js/String.h>
#include <jsapi.h>
#pragma GCC diagnostic pop

#include "shell/lang/js_engine.h"

/* JS::Rooted links itself into the context's list of stack roots by address, which GCC 12 takes for a dangling
 * pointer to a local; that is how SpiderMonkey's rooting works, so only this warning is silenced. */
#pragma GCC diagnostic ignored "-Wdangling-pointer"

/* The prelude: plain JavaScript evaluated once per engine. It returns the functions this file calls (enc, dec, show,
 * describe, complete, install). Named PRELUDE_NAME in stacks, so locations skip its frames. */
#define PRELUDE_NAME "shardsh:prelude"

static const char prelude_source[] = R"JS(
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
Long.prototype.valueOf = function () { return Number(this._v); };
Long.prototype.toNumber = Long.prototype.valueOf;
Long.prototype.toString = function (r) { return this._v.toString(r); };
Long.prototype.toJSON = function () { return this._v.toString(); };
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
function Binary(base64, subType) {
  if (!(this instanceof Binary)) return new Binary(base64, subType);
  if (typeof base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4)
    throw new TypeError('BinData needs base64 data');
  subType = subType === undefined ? 0 : Number(subType);
  if (!Number.isInteger(subType) || subType < 0 || subType > 255) throw new RangeError('BinData: subtype ' + subType + ' is not a byte');
  hide(this, 'base64', base64); hide(this, 'sub_type', subType);
}
Binary.prototype.toString = function () { return this.base64; };
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
function encNum(v) {
  if (Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 && !Object.is(v, -0)) return '{"$numberInt":"' + v + '"}';
  return '{"$numberDouble":"' + (Object.is(v, -0) ? '-0.0' : String(v)) + '"}';
}
const SKIP = {};
function enc1(v, depth, undef) {
  if (depth > 150) throw new RangeError('a value nested deeper than 150 levels (or cyclic) cannot be converted to BSON');
  switch (typeof v) {
    case 'number': return encNum(v);
    case 'string': return JSON.stringify(v);
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
  if (v instanceof String) return JSON.stringify(String(v));
  if (v instanceof Boolean) return v.valueOf() ? 'true' : 'false';
  /* a Database object where a helper takes one (sh.status(db)): the tagged binary the shell's dispatch knows */
  if (v instanceof Database) return '{"$binary":{"base64":"' + b64(utf8('shardsh:db:' + v._name)) + '","subType":"80"}}';
  if (v instanceof Collection) return JSON.stringify(v._db + '.' + v._name);
  if (v instanceof Cursor) throw new TypeError('a cursor cannot be sent: call .toArray() first');
  if (Array.isArray(v)) {
    const parts = [];
    for (let i = 0; i < v.length; i++) { const e = enc1(v[i], depth + 1, undef); parts.push(e === SKIP ? 'null' : e); }
    return '[' + parts.join(',') + ']';
  }
  const parts = [];
  for (const k of Object.keys(v)) {
    const e = enc1(v[k], depth + 1, undef);
    if (e !== SKIP) parts.push(JSON.stringify(k) + ':' + e);
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
function dec(s) { return JSON.parse(s, revive); }

/* ---- where a call is in the user's script: the first stack frame outside the prelude ---- */
function userFrame(stack) {
  for (const l of String(stack).split('\n')) {
    const m = /@(.*):(\d+):(\d+)$/.exec(l);
    if (m && m[1] !== PRELUDE) return [Number(m[2]), Number(m[3])];
  }
  return null;
}
function callerPos() { return userFrame(new Error().stack) || [0, 0]; }

function shError(d, pos) {
  const e = new Error(d.message);
  e.name = d.kind === KIND.SERVER ? 'MongoServerError' : 'MongoshError';
  if (d.code) e.code = d.code;
  if (d.codeName) e.codeName = d.codeName;
  if (d.kind === KIND.SERVER) e.errmsg = d.message;
  hide(e, '__sh', { kind: d.kind, code: d.code, codeName: d.codeName, hint: d.hint, line: d.line || pos[0], col: d.col || pos[1] });
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
  const r = N.call(name, db, coll, encArgs(args, name === 'print' || name === 'printjson'), args.length, m, pos[0], pos[1]);
  if (r === 'N') return undefined;
  const d = dec(r.slice(1));
  if (r[0] === 'E') throw shError(d, pos);
  if (typeof d.stats === 'string' && d.v !== null && typeof d.v === 'object') hide(d.v, '__shStats', d.stats);
  return d.v;
}

/* ---- Database and Collection (db.<coll> through a Proxy) ---- */
function checkName(n, what) {
  if (typeof n !== 'string' || n === '') throw new TypeError(what + ' needs a name string');
  return n;
}
function Database(name) { hide(this, '_name', name); }
Database.prototype.getName = function () { return this._name; };
Database.prototype.getSiblingDB = function (n) { return makeDb(checkName(n, 'getSiblingDB')); };
Database.prototype.getSisterDB = Database.prototype.getSiblingDB;
Database.prototype.getCollection = function (n) { return makeColl(this._name, checkName(n, 'getCollection')); };
Database.prototype.toString = function () { return this._name; };
function makeDb(name) {
  return new Proxy(new Database(name), {
    get(t, p, r) { return typeof p === 'symbol' || p in t || p.startsWith('_') ? Reflect.get(t, p, r) : makeColl(t._name, p); },
  });
}
function Collection(db, name) { hide(this, '_db', db); hide(this, '_name', name); }
Collection.prototype.getName = function () { return this._name; };
Collection.prototype.getFullName = function () { return this._db + '.' + this._name; };
Collection.prototype.getDB = function () { return makeDb(this._db); };
Collection.prototype.toString = Collection.prototype.getFullName;
function makeColl(db, name) {
  return new Proxy(new Collection(db, name), {
    get(t, p, r) { return typeof p === 'symbol' || p in t || p.startsWith('_') ? Reflect.get(t, p, r) : makeColl(t._db, t._name + '.' + p); },
  });
}

/* ---- cursors: nothing is sent until the first document is needed; then a live server cursor (a handle of the
 * shell's) gives batches on demand, as the driver's: getMore only when the documents received are used up ---- */
function Cursor(name, db, coll, args, handle) {
  hide(this, '_q', { name, db, coll, args: Array.from(args), sort: undefined, projection: undefined, limit: 0, skip: 0,
                     batch: 0, opened: false, id: 0, h: null, buf: [], pos: 0, more: true, maps: [] });
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
  const pos = callerPos();
  const r = N.cursorNext(q.id, max);
  const d = dec(r.slice(1));
  if (r[0] === 'E') { q.more = false; this._release(); throw shError(d, pos); }
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
  if (this._left() === 0) this._pull(0);
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
    if ((m = /^sh\.(\w+)$/.exec(name))) {
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

/* ---- the value of an expression, for the REPL and --eval ---- */
function show(v) {
  if (v === undefined) return null;
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
    return enc({ kind: s.kind, code: s.code | 0, codeName: s.codeName || '', message: String(e.message), hint: s.hint || '', line: s.line, col: s.col });
  }
  let pos = null, message;
  if (e instanceof Error) {
    pos = e instanceof SyntaxError || rinfile ? null : userFrame(e.stack);
    message = e.name + ': ' + e.message;
  } else {
    try { message = 'uncaught exception: ' + String(e); } catch (x) { message = rmsg; }
  }
  if (!pos && rinfile) pos = [rline, rcol];
  return enc({ kind: e instanceof SyntaxError ? KIND.PARSE : KIND.USAGE, code: 0, codeName: '', message, hint: '', line: pos ? pos[0] : 0, col: pos ? pos[1] : 0 });
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
)JS";

/* ---- errors: the shell's sh_error_t, filled here without linking the shell ---- */

static void
js_err_clear (sh_error_t *err)
{
   memset (err, 0, sizeof *err);
}

static void
js_err_set (sh_error_t *err, sh_err_kind_t kind, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static void
js_err_set (sh_error_t *err, sh_err_kind_t kind, const char *fmt, ...)
{
   va_list ap;
   js_err_clear (err);
   err->kind = kind;
   va_start (ap, fmt);
   vsnprintf (err->message, sizeof err->message, fmt, ap);
   va_end (ap);
}

/* ---- process-wide initialisation ---- */

static std::once_flag js_init_once;
static bool js_init_ok;

static void
js_init_process (void)
{
   js_init_ok = JS_Init ();
   if (js_init_ok)
      atexit (JS_ShutDown);
}

/* ---- the engine ---- */

struct js_engine {
   js_host_t host;
   JSContext *cx;
   JS::PersistentRootedObject *global;  /* the realm's global */
   JS::PersistentRootedObject *prelude; /* the object the prelude returned */
   std::atomic<bool> running;
};

static const JSClass js_global_class = { "global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps };

static js_engine_t *
engine_of (JSContext *cx)
{
   return static_cast<js_engine_t *> (JS_GetContextPrivate (cx));
}

/* A JavaScript string from UTF-8 bytes; nullptr with an exception pending on failure. */
static JSString *
js_utf8_string (JSContext *cx, const char *s, size_t len)
{
   return JS_NewStringCopyUTF8N (cx, JS::UTF8Chars (s, len));
}

/* The UTF-8 bytes of v, which must be a string. */
static JS::UniqueChars
js_to_utf8 (JSContext *cx, JS::HandleValue v)
{
   JS::RootedString s (cx, v.isString () ? v.toString () : JS::ToString (cx, v));
   if (!s)
      return nullptr;
   return JS_EncodeStringToUTF8 (cx, s);
}

/* Calls prelude.fn(args...) into rval. */
static bool
prelude_call (js_engine_t *e, const char *fn, const JS::HandleValueArray &args, JS::MutableHandleValue rval)
{
   return JS_CallFunctionName (e->cx, *e->prelude, fn, args, rval);
}

/* Parses canonical Extended JSON (a string value) into doc (initialised by the callee in every case). */
static bool
ejson_to_bson (JSContext *cx, JS::HandleValue json, bson_t *doc, sh_error_t *err)
{
   JS::UniqueChars s = js_to_utf8 (cx, json);
   bson_error_t error;
   bson_init (doc);
   if (!s) {
      JS_ClearPendingException (cx);
      js_err_set (err, SH_ERR_ARGS, "the value cannot be converted to BSON");
      return false;
   }
   if (!bson_init_from_json (doc, s.get (), -1, &error)) {
      bson_reinit (doc);
      js_err_set (err, SH_ERR_ARGS, "the value cannot be converted to BSON: %s", error.message);
      return false;
   }
   return true;
}

/* A document as a JavaScript string of canonical Extended JSON after prefix (the prelude's result tag, or ""); nullptr
 * (exception pending) when it is not valid. */
static JSString *
bson_to_ejson_string (JSContext *cx, const bson_t *doc, const char *prefix)
{
   size_t len = 0;
   char *s = bson_as_canonical_extended_json (doc, &len);
   if (!s) {
      JS_ReportErrorASCII (cx, "a reply could not be converted to a JavaScript value (invalid BSON or UTF-8)");
      return nullptr;
   }
   std::string tagged = std::string (prefix) + s;
   bson_free (s);
   return js_utf8_string (cx, tagged.c_str (), tagged.size ());
}

/* A JavaScript value (a prelude "enc" result string) to BSON, through the prelude. */
static bool
value_to_bson (js_engine_t *e, const char *fn, JS::HandleValue v, bson_t *doc, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JS::RootedValue json (cx);
   JS::RootedValueArray<1> args (cx);
   args[0].set (v);
   if (!prelude_call (e, fn, args, &json)) {
      JS::RootedValue exc (cx);
      JS::UniqueChars msg;
      bson_init (doc);
      if (JS_GetPendingException (cx, &exc)) {
         JS_ClearPendingException (cx);
         JS::RootedString s (cx, JS::ToString (cx, exc));
         if (s)
            msg = JS_EncodeStringToUTF8 (cx, s);
         JS_ClearPendingException (cx);
      }
      js_err_set (err, SH_ERR_ARGS, "%s", msg ? msg.get () : "the value cannot be converted to BSON");
      return false;
   }
   return ejson_to_bson (cx, json, doc, err);
}

/* Fills err from the pending exception (cleared), with the script's name for locations. */
static void
describe_exception (js_engine_t *e, const char *name, sh_err_kind_t fallback, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JS::ExceptionStack stack (cx);
   JS::RootedValue info (cx);
   int rline = 0, rcol = 0;
   bool rinfile = false;
   std::string rmsg = "uncaught exception";
   bson_t doc;
   bson_iter_t it;

   if (!JS::StealPendingExceptionStack (cx, &stack)) {
      js_err_set (err, fallback, "uncaught exception (no details)");
      return;
   }
   {
      JS::ErrorReportBuilder report (cx);
      if (report.init (cx, stack, JS::ErrorReportBuilder::WithSideEffects) && report.report ()) {
         JSErrorReport *r = report.report ();
         rline = (int) r->lineno;
         /* SpiderMonkey 102 reports a compile error's column 0-based, a runtime error's 1-based (from its stack) */
         rcol = (int) r->column + (fallback == SH_ERR_PARSE ? 1 : 0);
         rinfile = r->filename && !strcmp (r->filename, name);
         if (report.toStringResult ())
            rmsg = report.toStringResult ().c_str ();
      }
      JS_ClearPendingException (cx);
   }
   {
      JS::RootedValueArray<5> args (cx);
      JSString *m = js_utf8_string (cx, rmsg.c_str (), rmsg.size ());
      args[0].set (stack.exception ());
      args[1].setInt32 (rline);
      args[2].setInt32 (rcol);
      args[3].setBoolean (rinfile);
      args[4].set (m ? JS::StringValue (m) : JS::UndefinedValue ());
      if (!m || !e->prelude || !prelude_call (e, "describe", args, &info) || !ejson_to_bson (cx, info, &doc, err)) {
         JS_ClearPendingException (cx);
         js_err_set (err, fallback, "%s", rmsg.c_str ());
         if (rinfile) {
            err->has_pos = true;
            err->pos.line = rline;
            err->pos.col = rcol;
         }
         return;
      }
   }
   js_err_clear (err);
   err->kind = fallback;
   if (bson_iter_init_find (&it, &doc, "kind") && BSON_ITER_HOLDS_INT32 (&it))
      err->kind = (sh_err_kind_t) bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, &doc, "code") && BSON_ITER_HOLDS_INT32 (&it))
      err->code = bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, &doc, "codeName") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->code_name, bson_iter_utf8 (&it, NULL), sizeof err->code_name);
   if (bson_iter_init_find (&it, &doc, "message") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->message, bson_iter_utf8 (&it, NULL), sizeof err->message);
   if (bson_iter_init_find (&it, &doc, "hint") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->hint, bson_iter_utf8 (&it, NULL), sizeof err->hint);
   if (bson_iter_init_find (&it, &doc, "line") && BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) > 0) {
      err->has_pos = true;
      err->pos.line = bson_iter_int32 (&it);
      err->pos.col = 1;
      if (bson_iter_init_find (&it, &doc, "col") && BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) > 0)
         err->pos.col = bson_iter_int32 (&it);
   }
   bson_destroy (&doc);
}

/* ---- natives ---- */

/* "E" + the error as canonical Extended JSON, what the prelude's shError reads. */
static JSString *
error_string (JSContext *cx, const sh_error_t *err)
{
   bson_t edoc = BSON_INITIALIZER;
   size_t len = 0;
   char *s;
   JSString *out;
   BSON_APPEND_INT32 (&edoc, "kind", (int32_t) err->kind);
   BSON_APPEND_INT32 (&edoc, "code", err->code);
   BSON_APPEND_UTF8 (&edoc, "codeName", err->code_name);
   BSON_APPEND_UTF8 (&edoc, "message", err->message);
   BSON_APPEND_UTF8 (&edoc, "hint", err->hint);
   BSON_APPEND_INT32 (&edoc, "line", err->has_pos ? err->pos.line : 0);
   BSON_APPEND_INT32 (&edoc, "col", err->has_pos ? err->pos.col : 0);
   s = bson_as_canonical_extended_json (&edoc, &len);
   {
      std::string tagged = std::string ("E") + (s ? s : "{}");
      out = js_utf8_string (cx, tagged.c_str (), tagged.size ());
   }
   bson_free (s);
   bson_destroy (&edoc);
   return out;
}

/* __sh.call(name, db, coll, argsJson, argc, modsJson, line, col): runs a table entry through the shell. Returns "N"
 * (no value), "R" + {"v": value} or "E" + the error, as canonical Extended JSON. Returns false without an exception
 * (the script stops, uncatchably) after exit or Ctrl-C. */
static bool
native_call (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   js_engine_t *e = engine_of (cx);
   JS::UniqueChars name, db, coll, argj, modj;
   bson_t cargs = BSON_INITIALIZER, mods = BSON_INITIALIZER, result = BSON_INITIALIZER, sort;
   bson_error_t error;
   bson_iter_t it;
   js_call_t call;
   sh_error_t err;
   bool has = false, ok = false;
   JSString *out = nullptr;

   if (args.length () < 8) {
      JS_ReportErrorASCII (cx, "__sh.call: 8 arguments expected");
      goto done;
   }
   memset (&call, 0, sizeof call);
   js_err_clear (&err);
   name = js_to_utf8 (cx, args[0]);
   if (!name)
      goto done;
   if (args[1].isString () && !(db = js_to_utf8 (cx, args[1])))
      goto done;
   if (args[2].isString () && !(coll = js_to_utf8 (cx, args[2])))
      goto done;
   if (!(argj = js_to_utf8 (cx, args[3])) || !(modj = js_to_utf8 (cx, args[5])))
      goto done;
   if (!bson_init_from_json (&cargs, argj.get (), -1, &error)) {
      bson_reinit (&cargs);
      JS_ReportErrorUTF8 (cx, "the arguments cannot be converted to BSON: %s", error.message);
      goto done;
   }
   if (modj.get ()[0] && !bson_init_from_json (&mods, modj.get (), -1, &error)) {
      bson_reinit (&mods);
      JS_ReportErrorUTF8 (cx, "the cursor options cannot be converted to BSON: %s", error.message);
      goto done;
   }
   call.name = name.get ();
   call.db = db.get ();
   call.coll = coll.get ();
   call.args = &cargs;
   call.argc = args[4].isInt32 () ? args[4].toInt32 () : 0;
   call.line = args[6].isInt32 () ? args[6].toInt32 () : 0;
   call.col = args[7].isInt32 () ? args[7].toInt32 () : 0;
   if (bson_iter_init_find (&it, &mods, "sort") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      uint32_t len;
      const uint8_t *data;
      bson_iter_document (&it, &len, &data);
      if (bson_init_static (&sort, data, len))
         call.sort = &sort;
   }
   if (bson_iter_init_find (&it, &mods, "limit") && BSON_ITER_HOLDS_INT32 (&it))
      call.limit = bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, &mods, "skip") && BSON_ITER_HOLDS_INT32 (&it))
      call.skip = bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, &mods, "batchSize") && BSON_ITER_HOLDS_INT32 (&it))
      call.batch_size = bson_iter_int32 (&it);
   call.open_cursor = bson_iter_init_find (&it, &mods, "open") && bson_iter_as_bool (&it);

   if (!e->host.call (e->host.data, &call, &result, &has, &err)) {
      if (err.kind == SH_ERR_INTERRUPTED || (e->host.stop && e->host.stop (e->host.data)))
         goto done; /* no exception: the script stops */
      out = error_string (cx, &err);
   } else if (e->host.stop && e->host.stop (e->host.data)) {
      goto done;
   } else if (!has) {
      out = JS_NewStringCopyZ (cx, "N");
   } else {
      out = bson_to_ejson_string (cx, &result, "R");
   }
   if (out) {
      args.rval ().setString (out);
      ok = true;
   }
done:
   bson_destroy (&cargs);
   bson_destroy (&mods);
   bson_destroy (&result);
   return ok;
}

/* __sh.oid(): a new ObjectId's hex string. */
static bool
native_oid (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   bson_oid_t oid;
   char hex[25];
   JSString *s;
   bson_oid_init (&oid, NULL);
   bson_oid_to_string (&oid, hex);
   if (!(s = JS_NewStringCopyZ (cx, hex)))
      return false;
   args.rval ().setString (s);
   return true;
}

/* __sh.currentDb(): the shell's current database. */
static bool
native_current_db (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   js_engine_t *e = engine_of (cx);
   const char *db = e->host.current_db ? e->host.current_db (e->host.data) : "test";
   JSString *s = js_utf8_string (cx, db, strlen (db));
   if (!s)
      return false;
   args.rval ().setString (s);
   return true;
}

/* ---- cursors: a live cursor of the shell is a handle (an int); a CursorHandle object keeps it, and its finalizer
 * tells the shell to close it (killCursors) once the JavaScript cursor is unreachable ---- */

static void
cursor_handle_finalize (JS::GCContext *gcx, JSObject *obj)
{
   (void) gcx;
   JS::Value id = JS::GetReservedSlot (obj, 0), eng = JS::GetReservedSlot (obj, 1);
   if (id.isInt32 () && eng.isDouble ()) {
      js_engine_t *e = static_cast<js_engine_t *> (eng.toPrivate ());
      /* no I/O during a collection: the shell closes it at its next safe point */
      if (e && e->host.cursor_close)
         e->host.cursor_close (e->host.data, id.toInt32 (), false);
   }
}

static const JSClassOps cursor_handle_ops = {
   nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, cursor_handle_finalize, nullptr, nullptr, nullptr,
};

static const JSClass cursor_handle_class = {
   "CursorHandle",
   JSCLASS_HAS_RESERVED_SLOTS (2) | JSCLASS_FOREGROUND_FINALIZE,
   &cursor_handle_ops,
};

/* __sh.cursorHandle(id): the object whose collection closes cursor id. */
static bool
native_cursor_handle (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   JSObject *obj;
   if (args.length () < 1 || !args[0].isInt32 ()) {
      JS_ReportErrorASCII (cx, "__sh.cursorHandle: a handle expected");
      return false;
   }
   if (!(obj = JS_NewObject (cx, &cursor_handle_class)))
      return false;
   JS_SetReservedSlot (obj, 0, JS::Int32Value (args[0].toInt32 ()));
   JS_SetReservedSlot (obj, 1, JS::PrivateValue (engine_of (cx)));
   args.rval ().setObject (*obj);
   return true;
}

/* __sh.cursorNext(id, max): "R" + { v: [documents], more: bool } or "E" + the error, as for __sh.call. */
static bool
native_cursor_next (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   js_engine_t *e = engine_of (cx);
   bson_t docs, reply = BSON_INITIALIZER;
   sh_error_t err;
   bool more = false, ok = false;
   JSString *out = nullptr;
   double max;

   if (args.length () < 2 || !args[0].isInt32 () || !args[1].isNumber ()) {
      JS_ReportErrorASCII (cx, "__sh.cursorNext: a handle and a count expected");
      bson_destroy (&reply);
      return false;
   }
   max = args[1].toNumber ();
   js_err_clear (&err);
   if (!e->host.cursor_next (e->host.data, args[0].toInt32 (), max > 0 ? (size_t) max : 0, &docs, &more, &err)) {
      if (err.kind == SH_ERR_INTERRUPTED || (e->host.stop && e->host.stop (e->host.data)))
         goto done; /* no exception: the script stops */
      out = error_string (cx, &err);
   } else if (e->host.stop && e->host.stop (e->host.data)) {
      goto done;
   } else {
      BSON_APPEND_ARRAY (&reply, "v", &docs);
      BSON_APPEND_BOOL (&reply, "more", more);
      out = bson_to_ejson_string (cx, &reply, "R");
   }
   if (out) {
      args.rval ().setString (out);
      ok = true;
   }
done:
   bson_destroy (&docs);
   bson_destroy (&reply);
   return ok;
}

/* __sh.cursorClose(id): closes it now. */
static bool
native_cursor_close (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   js_engine_t *e = engine_of (cx);
   if (args.length () >= 1 && args[0].isInt32 ())
      e->host.cursor_close (e->host.data, args[0].toInt32 (), true);
   args.rval ().setUndefined ();
   return true;
}

/* __sh.cursorCurrent(take): the session's current cursor made by a literal statement (see js_host_t). */
static bool
native_cursor_current (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   js_engine_t *e = engine_of (cx);
   args.rval ().setInt32 (e->host.cursor_current (e->host.data, args.length () >= 1 && args[0].isTrue ()));
   return true;
}

static const JSFunctionSpec native_functions[] = {
   JS_FN ("call", native_call, 8, 0),
   JS_FN ("cursorHandle", native_cursor_handle, 1, 0),
   JS_FN ("cursorNext", native_cursor_next, 2, 0),
   JS_FN ("cursorClose", native_cursor_close, 1, 0),
   JS_FN ("cursorCurrent", native_cursor_current, 1, 0),
   JS_FN ("oid", native_oid, 0, 0),
   JS_FN ("currentDb", native_current_db, 0, 0),
   JS_FS_END,
};

/* Ctrl-C: the watcher thread requests an interrupt; this answers it. false ends the script without an exception. */
static bool
on_interrupt (JSContext *cx)
{
   js_engine_t *e = engine_of (cx);
   return !(e->host.interrupted && e->host.interrupted (e->host.data));
}

/* ---- the C interface ---- */

static void
engine_free (js_engine_t *e);

static js_engine_t *
engine_new (const js_host_t *host, sh_error_t *err)
{
   js_engine_t *e;
   std::call_once (js_init_once, js_init_process);
   if (!js_init_ok) {
      js_err_set (err, SH_ERR_USAGE, "the JavaScript engine could not be initialised");
      return nullptr;
   }
   e = new js_engine_t ();
   e->host = *host;
   e->running = false;
   if (!(e->cx = JS_NewContext (JS::DefaultHeapMaxBytes))) {
      js_err_set (err, SH_ERR_USAGE, "the JavaScript engine could not create a context");
      delete e;
      return nullptr;
   }
   JS_SetContextPrivate (e->cx, e);
   if (!JS::InitSelfHostedCode (e->cx)) {
      js_err_set (err, SH_ERR_USAGE, "the JavaScript engine could not start");
      engine_free (e);
      return nullptr;
   }
   JS_AddInterruptCallback (e->cx, on_interrupt);
   {
      JSContext *cx = e->cx;
      JS::RealmOptions options;
      JS::RootedObject global (cx,
                               JS_NewGlobalObject (cx, &js_global_class, nullptr, JS::FireOnNewGlobalHook, options));
      if (!global) {
         js_err_set (err, SH_ERR_USAGE, "the JavaScript engine could not create its global object");
         engine_free (e);
         return nullptr;
      }
      e->global = new JS::PersistentRootedObject (cx, global);
      JSAutoRealm ar (cx, global);
      JS::RootedObject natives (cx, JS_NewPlainObject (cx));
      JS::RootedValue fn (cx), rv (cx), names_v (cx);
      JS::RootedObject names (cx, JS::NewArrayObject (cx, host->n_names));
      JS::CompileOptions opts (cx);
      JS::SourceText<mozilla::Utf8Unit> src;
      bool ok =
         JS::InitRealmStandardClasses (cx) && natives && names && JS_DefineFunctions (cx, natives, native_functions);
      for (size_t i = 0; ok && i < host->n_names; i++) {
         JS::RootedString s (cx, js_utf8_string (cx, host->names[i], strlen (host->names[i])));
         ok = s && JS_SetElement (cx, names, (uint32_t) i, s);
      }
      opts.setFileAndLine (PRELUDE_NAME, 1);
      ok = ok && src.init (cx, prelude_source, sizeof prelude_source - 1, JS::SourceOwnership::Borrowed) &&
           JS::Evaluate (cx, opts, src, &fn);
      if (ok) {
         JS::RootedValueArray<2> args (cx);
         args[0].setObject (*global);
         args[1].setObject (*natives);
         ok = JS_CallFunctionValue (cx, nullptr, fn, args, &rv) && rv.isObject ();
      }
      if (ok) {
         e->prelude = new JS::PersistentRootedObject (cx, &rv.toObject ());
         JS::RootedValueArray<1> args (cx);
         args[0].setObject (*names);
         ok = prelude_call (e, "install", args, &names_v);
      }
      if (!ok) {
         describe_exception (e, PRELUDE_NAME, SH_ERR_USAGE, err);
         engine_free (e);
         return nullptr;
      }
   }
   return e;
}

static void
engine_free (js_engine_t *e)
{
   if (!e)
      return;
   delete e->prelude;
   delete e->global;
   if (e->cx)
      JS_DestroyContext (e->cx);
   delete e;
}

/* A syntax error found at the end of the script ("got end of script") is placed just after its last character
 * rather than on the empty line after the final newline, so the caret shows the statement left open. */
static void
clamp_to_text (sh_error_t *err, const char *text, size_t len)
{
   int line = 1, col = 1, end_line = 1, end_col = 1;
   for (size_t i = 0; i < len; i++) {
      unsigned char c = (unsigned char) text[i];
      if (c == '\n') {
         line++;
         col = 1;
         continue;
      }
      if ((c & 0xc0) != 0x80)
         col++;
      if (c != ' ' && c != '\t' && c != '\r') {
         end_line = line;
         end_col = col;
      }
   }
   if (err->has_pos && (err->pos.line > end_line || (err->pos.line == end_line && err->pos.col > end_col))) {
      err->pos.line = end_line;
      err->pos.col = end_col;
   }
}

static bool
engine_check (js_engine_t *e, const char *name, const char *text, size_t len, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   JS::CompileOptions opts (cx);
   JS::SourceText<mozilla::Utf8Unit> src;
   opts.setFileAndLine (name, 1);
   if (!src.init (cx, text, len, JS::SourceOwnership::Borrowed)) {
      describe_exception (e, name, SH_ERR_PARSE, err);
      return false;
   }
   JS::RootedScript script (cx, JS::Compile (cx, opts, src));
   if (!script) {
      describe_exception (e, name, SH_ERR_PARSE, err);
      err->kind = SH_ERR_PARSE;
      clamp_to_text (err, text, len);
      return false;
   }
   return true;
}

static js_run_t
engine_run (js_engine_t *e, const char *name, const char *text, size_t len, bool show_value, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   JS::CompileOptions opts (cx);
   JS::SourceText<mozilla::Utf8Unit> src;
   JS::RootedValue rv (cx);
   std::thread watcher;
   bool ok;

   opts.setFileAndLine (name, 1);
   if (!src.init (cx, text, len, JS::SourceOwnership::Borrowed)) {
      describe_exception (e, name, SH_ERR_PARSE, err);
      return JS_RUN_FAILED;
   }
   JS::RootedScript script (cx, JS::Compile (cx, opts, src));
   if (!script) {
      describe_exception (e, name, SH_ERR_PARSE, err);
      err->kind = SH_ERR_PARSE;
      clamp_to_text (err, text, len);
      return JS_RUN_FAILED;
   }
   if (e->host.interrupted) {
      /* Ctrl-C cannot call into the engine from the signal handler: a thread watches the flag and asks the engine
       * to interrupt itself, which it does at its next safe point (a loop's back edge, a call) */
      e->running = true;
      watcher = std::thread ([e] () {
         while (e->running) {
            if (e->host.interrupted (e->host.data)) {
               JS_RequestInterruptCallback (e->cx);
               break;
            }
            std::this_thread::sleep_for (std::chrono::milliseconds (20));
         }
      });
   }
   ok = JS_ExecuteScript (cx, script, &rv);
   if (watcher.joinable ()) {
      e->running = false;
      watcher.join ();
   }
   if (!ok) {
      if (!JS_IsExceptionPending (cx))
         return JS_RUN_STOPPED;
      describe_exception (e, name, SH_ERR_USAGE, err);
      return JS_RUN_FAILED;
   }
   if (show_value && e->host.show) {
      JS::RootedValue shown (cx), json (cx), more (cx);
      JS::RootedValueArray<1> args (cx);
      args[0].set (rv);
      if (!prelude_call (e, "show", args, &shown)) {
         if (!JS_IsExceptionPending (cx))
            return JS_RUN_STOPPED;
         describe_exception (e, name, SH_ERR_USAGE, err);
         return JS_RUN_FAILED;
      }
      if (shown.isObject ()) {
         JS::RootedObject pair (cx, &shown.toObject ());
         bson_t doc;
         bson_iter_t it;
         JS::RootedValue stats (cx), kind (cx);
         JS::UniqueChars stats_key;
         if (!JS_GetElement (cx, pair, 0, &json) || !JS_GetElement (cx, pair, 1, &more) ||
             !JS_GetElement (cx, pair, 2, &stats) || !JS_GetElement (cx, pair, 3, &kind) ||
             (stats.isString () && !(stats_key = js_to_utf8 (cx, stats)))) {
            describe_exception (e, name, SH_ERR_USAGE, err);
            return JS_RUN_FAILED;
         }
         if (!ejson_to_bson (cx, json, &doc, err)) {
            bson_destroy (&doc);
            return JS_RUN_FAILED;
         }
         if (bson_iter_init_find (&it, &doc, "v"))
            e->host.show (e->host.data, bson_iter_value (&it), more.isTrue (), stats_key ? stats_key.get () : NULL,
                          kind.isInt32 () ? kind.toInt32 () : 0);
         bson_destroy (&doc);
      }
   }
   return JS_RUN_OK;
}

static bool
engine_is_compilable (js_engine_t *e, const char *text, size_t len)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   return JS_Utf8BufferIsCompilableUnit (cx, *e->global, text, len);
}

static size_t
engine_complete (js_engine_t *e, const char *prefix, char **out, size_t max)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   JS::RootedValue rv (cx);
   JS::RootedValueArray<1> args (cx);
   JSString *p = js_utf8_string (cx, prefix, strlen (prefix));
   bson_t doc;
   bson_iter_t it;
   size_t n = 0;
   char *json;

   if (!p) {
      JS_ClearPendingException (cx);
      return 0;
   }
   args[0].setString (p);
   if (!prelude_call (e, "complete", args, &rv) || !rv.isString ()) {
      JS_ClearPendingException (cx);
      return 0;
   }
   {
      JS::UniqueChars s = js_to_utf8 (cx, rv);
      if (!s)
         return 0;
      /* a JSON array: wrap it so libbson reads it as a document */
      json = bson_strdup_printf ("{\"a\": %s}", s.get ());
   }
   if (bson_init_from_json (&doc, json, -1, NULL)) {
      bson_iter_t a;
      if (bson_iter_init_find (&it, &doc, "a") && bson_iter_recurse (&it, &a)) {
         while (n < max && bson_iter_next (&a)) {
            if (BSON_ITER_HOLDS_UTF8 (&a))
               out[n++] = strdup (bson_iter_utf8 (&a, NULL));
         }
      }
      bson_destroy (&doc);
   }
   bson_free (json);
   /* let and const at the top level live in the global lexical environment, not on the global object */
   if (!strchr (prefix, '.')) {
      JS::RootedObject lex (cx, JS_GlobalLexicalEnvironment (*e->global));
      JS::Rooted<JS::IdVector> ids (cx, JS::IdVector (cx));
      if (lex && JS_Enumerate (cx, lex, &ids)) {
         for (size_t i = 0; i < ids.length () && n < max; i++) {
            JS::RootedValue idv (cx);
            if (!JS_IdToValue (cx, ids[i], &idv) || !idv.isString ())
               continue;
            JS::UniqueChars name = js_to_utf8 (cx, idv);
            if (name && !strncmp (name.get (), prefix, strlen (prefix)))
               out[n++] = strdup (name.get ());
         }
      }
      JS_ClearPendingException (cx);
   }
   return n;
}

static bool
engine_bson_roundtrip (js_engine_t *e, const bson_t *in, bson_t *out, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   JS::RootedString s (cx, bson_to_ejson_string (cx, in, ""));
   JS::RootedValue v (cx);
   JS::RootedValueArray<1> args (cx);
   if (!s) {
      JS_ClearPendingException (cx);
      bson_init (out);
      js_err_set (err, SH_ERR_ARGS, "the document cannot be converted to a JavaScript value");
      return false;
   }
   args[0].setString (s);
   if (!prelude_call (e, "dec", args, &v)) {
      JS_ClearPendingException (cx);
      bson_init (out);
      js_err_set (err, SH_ERR_ARGS, "the document cannot be converted to a JavaScript value");
      return false;
   }
   return value_to_bson (e, "enc", v, out, err);
}

static bool
engine_eval_to_bson (js_engine_t *e, const char *expr, bson_t *out, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   JS::CompileOptions opts (cx);
   JS::SourceText<mozilla::Utf8Unit> src;
   JS::RootedValue v (cx);
   opts.setFileAndLine ("<expr>", 1);
   if (!src.init (cx, expr, strlen (expr), JS::SourceOwnership::Borrowed) || !JS::Evaluate (cx, opts, src, &v)) {
      bson_init (out);
      if (JS_IsExceptionPending (cx))
         describe_exception (e, "<expr>", SH_ERR_USAGE, err);
      else
         js_err_set (err, SH_ERR_INTERRUPTED, "interrupted");
      return false;
   }
   return value_to_bson (e, "encTop", v, out, err);
}

static const js_engine_api_t js_api = {
   JS_ENGINE_ABI,        engine_new,      engine_free,           engine_check,        engine_run,
   engine_is_compilable, engine_complete, engine_bson_roundtrip, engine_eval_to_bson,
};

extern "C" const js_engine_api_t *
shardsh_js_engine_api (void)
{
   return &js_api;
}
