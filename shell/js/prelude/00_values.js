/* shardsh JavaScript prelude: everything scripts see (sh, db, cursors, BSON constructors, print), evaluated once per engine by js_engine.cpp. Its parts (this folder, concatenated in name order) are embedded in the plugin at build time (Makefile, js_prelude.h) and checked with node --check. This part opens the function and holds base64 and the BSON values. */
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
/* js-bson 6's ObjectId: no .str (mongosh 2.x's is undefined); the hex string is toHexString() */
function ObjectId(hex) {
  if (!(this instanceof ObjectId)) return new ObjectId(hex);
  if (hex === undefined || hex === null) hex = N.sys('oid');
  if (hex instanceof ObjectId) hex = hex._hex;
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{24}$/.test(hex))
    throw new TypeError('ObjectId() takes a string of 24 hexadecimal characters');
  hide(this, '_hex', hex.toLowerCase());
}
ObjectId.prototype.toHexString = function () { return this._hex; };
ObjectId.prototype.toString = function () { return this._hex; };
ObjectId.prototype.toJSON = function () { return this._hex; };
ObjectId.prototype.equals = function (o) { return o instanceof ObjectId && o._hex === this._hex; };
ObjectId.prototype.getTimestamp = function () { return new Date(parseInt(this._hex.slice(0, 8), 16) * 1000); };
/* js-bson 6's statics: createFromTime(seconds) is the time's 4 bytes then zeros; isValid takes a 24-digit hex string,
 * a 12-byte buffer or an ObjectId */
ObjectId.createFromTime = function (t) { return new ObjectId(((Math.trunc(Number(t)) >>> 0).toString(16).padStart(8, '0')) + '0'.repeat(16)); };
ObjectId.createFromHexString = function (h) {
  if (typeof h !== 'string' || h.length !== 24) throw new TypeError('hex string must be 24 characters');
  return new ObjectId(h);
};
ObjectId.isValid = function (v) {
  if (v instanceof ObjectId) return true;
  if (typeof v === 'string') return /^[0-9a-fA-F]{24}$/.test(v);
  return v instanceof Uint8Array && v.length === 12;
};

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
  if (N.sys('decimal', s) !== '1') throw new TypeError(JSON.stringify(s) + ' is not a valid Decimal128 string');
  hide(this, '_v', s);
}
Decimal128.prototype.toString = function () { return this._v; };
Decimal128.prototype.toJSON = function () { return { $numberDecimal: this._v }; };
/* js-bson 6's Timestamp is an unsigned Long: its own low and high (signed 32-bit, as Long keeps them) and unsigned, t
 * and i read from them, getHighBits/getLowBits, and its string is the 64-bit number's */
function Timestamp(t, i) {
  if (!(this instanceof Timestamp)) return new Timestamp(t, i);
  if (t instanceof Long) { i = Number(t._v & 0xffffffffn); t = Number(BigInt.asUintN(64, t._v) >> 32n); }
  else if (t && typeof t === 'object') { i = t.i; t = t.t; }
  const ok = (x) => Number.isInteger(x) && x >= 0 && x <= 4294967295;
  t = t === undefined ? 0 : Number(t); i = i === undefined ? 0 : Number(i);
  if (!ok(t) || !ok(i)) throw new RangeError('Timestamp needs t and i from 0 to 4294967295');
  this.low = i | 0; this.high = t | 0; this.unsigned = true;
}
Object.defineProperty(Timestamp.prototype, 't', { get() { return this.high >>> 0; }, configurable: true });
Object.defineProperty(Timestamp.prototype, 'i', { get() { return this.low >>> 0; }, configurable: true });
const tsBig = (ts) => (BigInt(ts.t) << 32n) | BigInt(ts.i);
Timestamp.prototype.getHighBits = function () { return this.high; };
Timestamp.prototype.getLowBits = function () { return this.low; };
Timestamp.prototype.getHighBitsUnsigned = function () { return this.t; };
Timestamp.prototype.getLowBitsUnsigned = function () { return this.i; };
Timestamp.prototype.toNumber = function () { return Number(tsBig(this)); };
Timestamp.prototype.toBigInt = function () { return tsBig(this); };
Timestamp.prototype.toString = function (r) { return tsBig(this).toString(r); };
Timestamp.prototype.equals = function (o) { return o instanceof Timestamp && o.t === this.t && o.i === this.i; };
/* js-bson's Timestamp is a Long: JSON.stringify gives its 64-bit value as a string */
Timestamp.prototype.toJSON = function () { return { $timestamp: String(tsBig(this)) }; };
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

