/* shardsh JavaScript prelude, part: values across the bridge (Extended JSON both ways), where a call is in the user's script, calling the command table. The parts are concatenated in name order by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */
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
/* what print and printjson show for a value BSON has no form for (OUTPUT_SHOWN_TAG, shell/core/output.h) */
function shown(text) { return '{"$binary":{"base64":"' + b64(utf8('shardsh:shown:' + text)) + '","subType":"81"}}'; }
function enc1(v, depth, undef) {
  if (depth > 150) throw new RangeError('a value nested deeper than 150 levels (or cyclic) cannot be converted to BSON');
  /* printed inside a document: a function, an Int32 or a Double the script made, as mongosh shows them */
  if (undef && (typeof v === 'function' || v instanceof Int32 || v instanceof Double)) return shown(printable(v));
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
  if (v instanceof ObjectId) return '{"$oid":"' + v._hex + '"}';
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

/* the driver's WriteError: { err: { index, code, errmsg, errInfo, op } } read through getters */
function WriteError(w) { this.err = { index: w.index, code: w.code, errmsg: w.errmsg, errInfo: w.errInfo, op: w.op }; }
for (const k of ['code', 'index', 'errmsg', 'errInfo']) Object.defineProperty(WriteError.prototype, k, { get() { return this.err[k]; } });
WriteError.prototype.getOperation = function () { return this.err.op; };
WriteError.prototype.toJSON = function () { return { code: this.err.code, index: this.err.index, errmsg: this.err.errmsg, op: this.err.op }; };
WriteError.prototype.toString = function () { return 'WriteError(' + JSON.stringify(this.toJSON()) + ')'; };
function shError(d, pos) {
  const e = new Error(d.message);
  e.name = d.kind === KIND.SERVER ? 'MongoServerError' : 'MongoshError';
  if (d.code) e.code = d.code;
  /* an argument refused as mongosh refuses it is mongosh's error: its name and code */
  if (d.kind === KIND.ARGS && d.message.startsWith('[COMMON-10001] ')) { e.name = 'MongoshInvalidInputError'; e.code = 'COMMON-10001'; }
  /* a check mongosh makes after a reply (isCapped of no collection) is its MongoshRuntimeError */
  if (d.kind !== KIND.SERVER && d.message.startsWith('MongoshRuntimeError: ')) { e.name = 'MongoshRuntimeError'; e.message = d.message.slice(21); }
  if (d.codeName) e.codeName = d.codeName;
  if (d.kind === KIND.SERVER) e.errmsg = d.message;
  /* a bulk write's failure: the driver's MongoBulkWriteError, with the result and every write error (commands/bulk.c) */
  if (d.detail && Array.isArray(d.detail.writeErrors)) {
    e.name = 'MongoBulkWriteError';
    e.writeErrors = d.detail.writeErrors.map((w) => new WriteError(w));
    e.result = d.detail.result;
  }
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
    if (mods.opts) o.opts = mods.opts;
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

