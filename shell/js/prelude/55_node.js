/* shardsh JavaScript prelude, part: what mongosh scripts use of Node.js (mongosh is a Node REPL): require("fs", "path",
 * "os", "util"), process, Buffer, performance. Files, the environment and the host come from js_sys.c through
 * N.sys(op, a, b), whose strings hold one byte a character. In the pre-flight the file writes do nothing and succeed
 * (the run writes them), and process.stdout.write prints nothing (the run prints). Every other module, and every other
 * name of these modules, throws `shardsh does not support X yet`. The parts are concatenated in name order by the
 * Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */

/* ---- bytes ---- */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/* a string's UTF-8 bytes as a byte string (a lone surrogate is U+FFFD, as node writes it) */
function utf8Bytes(s) { return unescape(encodeURIComponent(String(s).replace(LONE_SURROGATE, '\ufffd'))); }
/* a byte string read as UTF-8, each maximal invalid subpart one U+FFFD (as node's Buffer) */
function utf8FromBytes(bs) {
  try { return decodeURIComponent(escape(bs)); } catch (e) { return utf8Decode(Array.from(bs, (c) => c.charCodeAt(0))); }
}
function sysCall(op, a, b) { return N.sys(op, a === undefined ? '' : a, b === undefined ? '' : b); }
/* node's error for errno num of syscall on path: "ENOENT: no such file or directory, open 'x'" */
function nodeError(num, syscall, path) {
  const t = N.sys('errno', String(num), ''), sp = t.indexOf(' ');
  const code = t.slice(0, sp);
  const e = new Error(code + ': ' + t.slice(sp + 1) + ', ' + syscall + (path === undefined ? '' : " '" + path + "'"));
  e.errno = -num; e.code = code; e.syscall = syscall;
  if (path !== undefined) e.path = path;
  return e;
}
function inPreflight() { return entry('Node.preflight', null, null, [], null) === true; }

/* ---- Buffer: node's, for what fs gives and takes ---- */
class Buffer extends Uint8Array {
  static from(v, encoding) {
    if (typeof v === 'string') return bufferOf(bufEncode(v, encoding));
    if (v instanceof ArrayBuffer) return new Buffer(v);
    if (v !== null && typeof v === 'object' && typeof v.length === 'number') { const b = new Buffer(v.length); b.set(Array.from(v, (x) => x & 255)); return b; }
    throw nodeTypeError('The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object.');
  }
  static alloc(n, fill) { const b = new Buffer(n); if (fill !== undefined) b.fill(typeof fill === 'number' ? fill : Buffer.from(String(fill))[0]); return b; }
  static isBuffer(v) { return v instanceof Buffer; }
  static byteLength(s, encoding) { return typeof s === 'string' ? bufEncode(s, encoding).length : s.byteLength; }
  static concat(list) {
    const b = new Buffer(list.reduce((n, x) => n + x.length, 0));
    let at = 0;
    for (const x of list) { b.set(x, at); at += x.length; }
    return b;
  }
  toString(encoding, start, end) { return bufDecode(byteString(this.subarray(start || 0, end === undefined ? this.length : end)), encoding); }
  toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
  equals(o) { return o instanceof Uint8Array && o.length === this.length && this.every((x, i) => x === o[i]); }
}
/* node prints a Buffer as <Buffer 68 69 ...>, its first 50 bytes */
function bufferText(b) {
  const hex = Array.from(b.subarray(0, 50), (x) => x.toString(16).padStart(2, '0')).join(' ');
  return '<Buffer' + (hex ? ' ' + hex : '') + (b.length > 50 ? ' ... ' + (b.length - 50) + ' more bytes' : '') + '>';
}
function bufferOf(bs) { const b = new Buffer(bs.length); for (let i = 0; i < bs.length; i++) b[i] = bs.charCodeAt(i); return b; }
function byteString(u8) {
  let s = '';
  for (let i = 0; i < u8.length; i += 8192) s += String.fromCharCode.apply(null, u8.subarray(i, i + 8192));
  return s;
}
function bufEncoding(e) {
  const n = e === undefined || e === null ? 'utf8' : String(e).toLowerCase();
  if (n === 'utf-8') return 'utf8';
  if (n === 'binary') return 'latin1';
  if (['utf8', 'hex', 'base64', 'latin1', 'ascii'].includes(n)) return n;
  const err = new TypeError('Unknown encoding: ' + e);
  err.code = 'ERR_UNKNOWN_ENCODING';
  throw err;
}
function bufEncode(s, e) {
  switch (bufEncoding(e)) {
    case 'hex': { let o = ''; for (let i = 0; i + 1 < s.length && /^[0-9a-fA-F]{2}$/.test(s.slice(i, i + 2)); i += 2) o += String.fromCharCode(parseInt(s.slice(i, i + 2), 16)); return o; }
    case 'base64': { const t = s.replace(/[^A-Za-z0-9+/]/g, ''); return byteString(Uint8Array.from(unb64(t.padEnd(Math.ceil(t.length / 4) * 4, '=')))); }
    case 'latin1': case 'ascii': return s.replace(/[^\u0000-\u00ff]/g, (c) => String.fromCharCode(c.charCodeAt(0) & 255));
    default: return utf8Bytes(s);
  }
}
function bufDecode(bs, e) {
  switch (bufEncoding(e)) {
    case 'hex': return Array.from(bs, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
    case 'base64': return b64(Array.from(bs, (c) => c.charCodeAt(0)));
    case 'latin1': return bs;
    case 'ascii': return bs.replace(/[\u0080-\u00ff]/g, (c) => String.fromCharCode(c.charCodeAt(0) & 127));
    default: return utf8FromBytes(bs);
  }
}
function nodeTypeError(message, code) { const e = new TypeError(message); e.code = code || 'ERR_INVALID_ARG_TYPE'; return e; }
function nodeReceived(v) {
  if (v === null || v === undefined) return ' Received ' + v;
  if (typeof v === 'object') return ' Received an instance of ' + ((v.constructor && v.constructor.name) || 'Object');
  if (typeof v === 'function') return ' Received function ' + (v.name || '(anonymous)');
  return ' Received type ' + typeof v + ' (' + (typeof v === 'string' ? "'" + v + "'" : String(v)) + ')';
}

/* ---- fs ---- */
/* a path argument (a string or a Buffer) as a byte string; node refuses NUL bytes in it */
function fsPathArg(p, name) {
  if (p instanceof Uint8Array) p = utf8FromBytes(byteString(p));
  if (typeof p === 'number') unsupported('a file descriptor as a path')();
  if (typeof p !== 'string') throw nodeTypeError('The "' + (name || 'path') + '" argument must be of type string or an instance of Buffer or URL.' + nodeReceived(p));
  if (p.includes('\u0000')) throw nodeTypeError("The argument '" + (name || 'path') + "' must be a string, Uint8Array, or URL without null bytes. Received " + inspectString(p), 'ERR_INVALID_ARG_VALUE');
  return p;
}
/* fs's options: an encoding name or {encoding, flag}; an unknown encoding is refused before anything is done */
function fsOptions(o) {
  o = typeof o === 'string' ? { encoding: o } : o || {};
  if (o.encoding !== undefined && o.encoding !== null && o.encoding !== 'buffer') {
    try { bufEncoding(o.encoding); } catch (e) {
      throw nodeTypeError("The argument 'encoding' is invalid encoding. Received " + utilInspect(o.encoding), 'ERR_INVALID_ARG_VALUE');
    }
  }
  return o;
}
function fsData(d, encoding) {
  if (typeof d === 'string') return bufEncode(d, encoding);
  if (d instanceof Uint8Array) return byteString(d);
  if (ArrayBuffer.isView(d)) return byteString(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  throw nodeTypeError('The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView.' + nodeReceived(d));
}
/* the pre-flight's writes, kept in memory (absolute path -> its bytes, or true for a directory made) so that the
 * script reads back what it wrote; forgotten once the run starts */
let pfFiles = new Map();
function pfWritten(path) {
  if (!pfFiles.size) return undefined;
  if (!inPreflight()) { pfFiles = new Map(); return undefined; }
  return pfFiles.get(pathModule.resolve(path));
}
function fsWrite(op, p, data, options) {
  const path = fsPathArg(p), o = fsOptions(options), bytes = fsData(data, o.encoding);
  const append = op === 'append' || (o.flag && String(o.flag)[0] === 'a');
  if (inPreflight()) {
    let before = append ? pfWritten(path) : '';
    if (before === null) before = ''; /* removed by the pre-flight */
    else if (typeof before !== 'string') { const r = sysCall('read', utf8Bytes(path)); before = typeof r === 'string' ? r : ''; }
    pfFiles.set(pathModule.resolve(path), before + bytes);
    return undefined;
  }
  const r = sysCall(append ? 'append' : op, utf8Bytes(path), bytes);
  if (typeof r === 'number') throw nodeError(r, 'open', path);
  return undefined;
}
function fsMkdirOne(path) { const r = sysCall('mkdir', utf8Bytes(path)); return typeof r === 'number' ? r : 0; }
/* p and its missing parents made (parents first, named by cutting p as node's fsMkdirp does); the first one made, or
 * undefined when p is a directory already; errors name the path asked for (whole) */
function fsMkdirp(p, whole) {
  let r = fsMkdirOne(p);
  if (r === 2 /* ENOENT */) {
    const parent = pathModule.dirname(p);
    if (parent === p) throw nodeError(r, 'mkdir', whole);
    const first = fsMkdirp(parent, whole);
    r = fsMkdirOne(p);
    if (!r) return first === undefined ? p : first;
  }
  if (!r) return p;
  if (r === 17 /* EEXIST */ && sysCall('exists', utf8Bytes(p)) === 'd') return undefined;
  throw nodeError(r, 'mkdir', whole);
}
/* node's fs.Stats: its fields in node's order, the times as milliseconds and Dates */
const S_IFMT = 0o170000;
class Stats {
  constructor(n) {
    ['dev', 'mode', 'nlink', 'uid', 'gid', 'rdev', 'blksize', 'ino', 'size', 'blocks'].forEach((k, i) => { this[k] = n[i]; });
    ['atime', 'mtime', 'ctime', 'birthtime'].forEach((k, i) => { this[k + 'Ms'] = n[10 + 2 * i] * 1e3 + n[11 + 2 * i] / 1e6; });
    for (const k of ['atime', 'mtime', 'ctime', 'birthtime']) this[k] = new Date(Math.trunc(this[k + 'Ms']));
  }
  isFile() { return (this.mode & S_IFMT) === 0o100000; }
  isDirectory() { return (this.mode & S_IFMT) === 0o040000; }
  isSymbolicLink() { return (this.mode & S_IFMT) === 0o120000; }
  isBlockDevice() { return (this.mode & S_IFMT) === 0o060000; }
  isCharacterDevice() { return (this.mode & S_IFMT) === 0o020000; }
  isFIFO() { return (this.mode & S_IFMT) === 0o010000; }
  isSocket() { return (this.mode & S_IFMT) === 0o140000; }
}
function fsStat(op, p, options) {
  const path = fsPathArg(p), w = pfWritten(path);
  if (w !== undefined && w !== null) {
    /* written (or made) by the pre-flight only: a file of its bytes, or a directory, made now */
    const now = Date.now(), s = Math.floor(now / 1000), ns = (now % 1000) * 1e6;
    return new Stats([0, typeof w === 'string' ? 0o100644 : 0o040755, 1, 0, 0, 0, 4096, 0, typeof w === 'string' ? w.length : 4096, 0, s, ns, s, ns, s, ns, s, ns]);
  }
  const r = w === null ? 2 /* ENOENT */ : sysCall(op, utf8Bytes(path));
  if (typeof r === 'number') {
    if (r === 2 && options && options.throwIfNoEntry === false) return undefined;
    throw nodeError(r, op, path);
  }
  return new Stats(r.split(' ').map(Number));
}
/* unlink, rmdir, rename: in the pre-flight they change only what it remembers (null: removed) */
function fsRemove(op, p) {
  const path = fsPathArg(p);
  if (inPreflight()) {
    const w = pfWritten(path);
    if (w === null || (w === undefined && sysCall('exists', utf8Bytes(path)) === '')) throw nodeError(2, op, path);
    pfFiles.set(pathModule.resolve(path), null);
    return undefined;
  }
  const r = sysCall(op, utf8Bytes(path));
  if (typeof r === 'number') throw nodeError(r, op, path);
  return undefined;
}
const fs = {
  readFileSync(p, options) {
    const path = fsPathArg(p), o = fsOptions(options), w = pfWritten(path);
    const r = typeof w === 'string' ? w : w === null ? 2 /* ENOENT */ : sysCall('read', utf8Bytes(path));
    if (typeof r === 'number') throw r === 21 /* EISDIR */ ? nodeError(r, 'read') : nodeError(r, 'open', path);
    return o.encoding && o.encoding !== 'buffer' ? bufDecode(r, o.encoding) : bufferOf(r);
  },
  writeFileSync(p, data, options) { return fsWrite('write', p, data, options); },
  appendFileSync(p, data, options) { return fsWrite('append', p, data, options); },
  existsSync(p) {
    try { p = fsPathArg(p); } catch (e) { return false; }
    const w = pfWritten(p);
    return w !== null && (w !== undefined || sysCall('exists', utf8Bytes(p)) !== '');
  },
  statSync(p, options) { return fsStat('stat', p, options); },
  lstatSync(p, options) { return fsStat('lstat', p, options); },
  unlinkSync(p) { return fsRemove('unlink', p); },
  rmdirSync(p) { return fsRemove('rmdir', p); },
  /* a file (a directory is not supported yet); force: a missing one is no error */
  rmSync(p, options) {
    const st = fsStat('lstat', p, { throwIfNoEntry: false });
    if (st === undefined && options && options.force) return undefined;
    if (st !== undefined && st.isDirectory()) unsupported('fs.rmSync() of a directory')();
    return fsRemove('unlink', p);
  },
  renameSync(from, to) {
    const a = fsPathArg(from, 'oldPath'), b = fsPathArg(to, 'newPath');
    if (inPreflight()) {
      const w = pfWritten(a);
      const bytes = typeof w === 'string' ? w : sysCall('read', utf8Bytes(a));
      if (w === null || typeof bytes === 'number') throw nodeError(2, 'rename', a);
      pfFiles.set(pathModule.resolve(b), bytes);
      pfFiles.set(pathModule.resolve(a), null);
      return undefined;
    }
    const r = sysCall('rename', utf8Bytes(a), utf8Bytes(b));
    if (typeof r === 'number') throw nodeError(r, 'rename', a);
    return undefined;
  },
  readdirSync(p, options) {
    const path = fsPathArg(p), o = fsOptions(options);
    if (o.withFileTypes) unsupported('fs.readdirSync() with withFileTypes')();
    const r = sysCall('readdir', utf8Bytes(path));
    if (typeof r === 'number') throw nodeError(r, 'scandir', path);
    const names = r.split('\u0000').slice(0, -1);
    return o.encoding === 'buffer' ? names.map(bufferOf) : names.map((n) => bufDecode(n, o.encoding));
  },
  /* {recursive: true}: every missing directory made; returns the first one made, as the path names it (node's) */
  mkdirSync(p, options) {
    const path = fsPathArg(p), o = typeof options === 'object' && options !== null ? options : {};
    if (inPreflight()) { pfFiles.set(pathModule.resolve(path), true); return undefined; }
    if (!o.recursive) {
      const r = fsMkdirOne(path);
      if (r) throw nodeError(r, 'mkdir', path);
      return undefined;
    }
    return fsMkdirp(path, path);
  },
};

/* ---- path: node's posix rules ---- */
function pathParts(p, abs) {
  const out = [];
  for (const s of p.split('/')) {
    if (!s || s === '.') continue;
    if (s === '..') { if (out.length && out[out.length - 1] !== '..') out.pop(); else if (!abs) out.push('..'); } else out.push(s);
  }
  return out;
}
function pathStrArg(p, name) {
  if (typeof p !== 'string') throw nodeTypeError('The "' + name + '" argument must be of type string.' + nodeReceived(p));
  return p;
}
function pathTrim(p) { let e = p.length; while (e > 1 && p[e - 1] === '/') e--; return p.slice(0, e); }
const pathModule = {
  sep: '/',
  delimiter: ':',
  normalize(p) {
    pathStrArg(p, 'path');
    if (p === '') return '.';
    const abs = p[0] === '/';
    let r = pathParts(p, abs).join('/');
    if (!r && !abs) r = '.';
    if (r && p[p.length - 1] === '/') r += '/';
    return (abs ? '/' : '') + r;
  },
  join(...a) {
    const parts = a.map((x) => pathStrArg(x, 'path')).filter((x) => x !== '');
    return parts.length ? pathModule.normalize(parts.join('/')) : '.';
  },
  resolve(...a) {
    let p = '';
    for (let i = a.length - 1; i >= -1 && p[0] !== '/'; i--) {
      const x = i >= 0 ? pathStrArg(a[i], 'paths[' + i + ']') : process.cwd();
      if (x) p = x + (p ? '/' + p : '');
    }
    return '/' + pathParts(p, true).join('/');
  },
  isAbsolute(p) { return pathStrArg(p, 'path').length > 0 && p[0] === '/'; },
  basename(p, ext) {
    pathStrArg(p, 'path');
    if (ext !== undefined) pathStrArg(ext, 'ext');
    const t = pathTrim(p);
    let base = t === '/' ? '' : t.slice(t.lastIndexOf('/') + 1);
    if (ext !== undefined && ext === p) return '';
    if (ext !== undefined && ext !== base && base.endsWith(ext)) base = base.slice(0, base.length - ext.length);
    return base;
  },
  dirname(p) {
    pathStrArg(p, 'path');
    if (p === '') return '.';
    const t = pathTrim(p), i = t.lastIndexOf('/');
    if (i < 0) return '.';
    return i === 0 ? '/' : t.slice(0, i);
  },
  extname(p) {
    const base = pathModule.basename(p), i = base.lastIndexOf('.');
    return i <= 0 || /^\.+$/.test(base) ? '' : base.slice(i);
  },
  relative(from, to) {
    const f = pathParts(pathModule.resolve(pathStrArg(from, 'from')), true), t = pathParts(pathModule.resolve(pathStrArg(to, 'to')), true);
    let i = 0;
    while (i < f.length && i < t.length && f[i] === t[i]) i++;
    return f.slice(i).map(() => '..').concat(t.slice(i)).join('/');
  },
  parse(p) {
    pathStrArg(p, 'path');
    const root = p[0] === '/' ? '/' : '', base = pathModule.basename(p), ext = pathModule.extname(p);
    const dir = pathTrim(p).lastIndexOf('/') < 0 ? '' : pathModule.dirname(p);
    return { root, dir, base, ext, name: ext ? base.slice(0, base.length - ext.length) : base };
  },
  format(o) { const dir = o.dir || o.root || '', base = o.base || (o.name || '') + (o.ext || ''); return dir ? (dir === o.root ? dir + base : dir + '/' + base) : base; },
  toNamespacedPath(p) { return p; },
};
pathModule.posix = pathModule;

/* ---- os ---- */
const os = {
  EOL: '\n',
  platform: () => 'linux',
  type: () => 'Linux',
  hostname: () => utf8FromBytes(sysCall('hostname')),
  homedir: () => { const r = sysCall('homedir'); return typeof r === 'number' ? '' : utf8FromBytes(r); },
  tmpdir: () => { const t = process.env.TMPDIR || process.env.TMP || process.env.TEMP || '/tmp'; return t.length > 1 ? pathTrim(t) : t; },
};

/* ---- util: format and inspect ---- */
/* node's util.inspect: strings quoted, everything else as print shows it, two levels deep unless options.depth says */
function inspectString(s) {
  const q = !s.includes("'") ? "'" : !s.includes('"') ? '"' : !s.includes('`') && !s.includes('${') ? '`' : "'";
  return q + s.replace(/[\\\n\t\r\b\f\v]|[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1).replace(/^\\u00/, '\\x')).split(q).join(q === "'" ? "\\'" : q) + q;
}
function utilInspect(v, options) {
  if (typeof v === 'string') return inspectString(v);
  if (typeof v === 'bigint') return v + 'n';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (v === undefined || v === null || typeof v === 'boolean' || typeof v === 'symbol') return String(v);
  if (typeof v === 'function' || v instanceof Int32 || v instanceof Double) return printable(v);
  if (v instanceof Buffer) return bufferText(v);
  const d = options && typeof options === 'object' && 'depth' in options ? options.depth : 2;
  const depth = d === null || d === Infinity ? -1 : Math.max(0, Math.min(Math.trunc(Number(d)) || 0, 1000));
  const r = N.call('Node.inspect', null, null, encArgs([printable(v), depth], true), 2, '', 0, 0, '', 0);
  if (r[0] === 'E') throw shError(dec(r.slice(1)), callerPos());
  return dec(r.slice(1)).v;
}
/* node's rule for %s: an object whose toString is its own or a class's (js-bson's Int32, an ObjectId, a Buffer) is
 * String(x); one whose toString is ECMAScript's (a plain object, an array, a Date) is inspected */
function builtInToString(x) {
  if (typeof x.toString !== 'function') return true;
  if (Object.prototype.hasOwnProperty.call(x, 'toString')) return false;
  let p = x;
  do { p = Object.getPrototypeOf(p); } while (p && !Object.prototype.hasOwnProperty.call(p, 'toString'));
  const d = p && Object.getOwnPropertyDescriptor(p, 'constructor');
  return !!d && typeof d.value === 'function' &&
    /^(Object|Array|Date|RegExp|Function|Map|Set|WeakMap|WeakSet|Promise|Boolean|Number|String|Symbol|BigInt|ArrayBuffer|DataView|\w*Error|(Big)?(Ui|I)nt\d+(Clamped)?Array|Float\d+Array)$/.test(d.value.name);
}
function utilFormat(...a) {
  if (typeof a[0] !== 'string') return a.map((x) => (typeof x === 'string' ? x : utilInspect(x))).join(' ');
  let i = 1;
  const s = a[0].replace(/%([sdifjoOc%])/g, (m, c) => {
    if (c === '%') return '%';
    if (i >= a.length) return m;
    const x = a[i++];
    switch (c) {
      case 's': return typeof x === 'bigint' ? x + 'n' : typeof x === 'object' && x !== null ? (x instanceof Date ? (isNaN(x) ? 'Invalid Date' : x.toISOString()) : x instanceof Error || !builtInToString(x) ? String(x) : utilInspect(x, { depth: 0 })) : typeof x === 'symbol' ? String(x) : Object.is(x, -0) ? '-0' : String(x);
      case 'd': return typeof x === 'bigint' ? x + 'n' : typeof x === 'object' && x !== null ? 'NaN' : String(Number(x));
      case 'i': return typeof x === 'bigint' ? x + 'n' : String(parseInt(x, 10));
      case 'f': return String(parseFloat(x));
      case 'j': try { return JSON.stringify(x); } catch (e) { return '[Circular]'; }
      case 'c': return '';
      default: return utilInspect(x, c === 'o' ? { depth: 4 } : undefined);
    }
  });
  return [s].concat(a.slice(i).map((x) => (typeof x === 'string' ? x : utilInspect(x)))).join(' ');
}
const util = { format: utilFormat, inspect: utilInspect };

/* ---- process ---- */
let envCache = null;
const hr = () => sysCall('hrtime').split(' ').map(Number);
const hrStart = hr();
function processHrtime(prev) {
  const [s, ns] = hr();
  if (!prev) return [s, ns];
  let ds = s - prev[0], dn = ns - prev[1];
  if (dn < 0) { ds--; dn += 1e9; }
  return [ds, dn];
}
processHrtime.bigint = () => { const [s, ns] = hr(); return BigInt(s) * 1000000000n + BigInt(ns); };
function processWriter(op) {
  return { write(s) { if (!inPreflight()) sysCall(op, s instanceof Uint8Array ? byteString(s) : utf8Bytes(s)); return true; }, isTTY: false };
}
const process = {
  platform: 'linux',
  get env() {
    if (!envCache) {
      envCache = {};
      for (const kv of sysCall('env').split('\u0000').slice(0, -1)) {
        const i = kv.indexOf('='), k = utf8FromBytes(kv.slice(0, i));
        if (i > 0 && !(k in envCache)) envCache[k] = utf8FromBytes(kv.slice(i + 1));
      }
    }
    return envCache;
  },
  /* [the executable, the executable, the arguments]: process.argv.slice(2) are the command line's, as in mongosh */
  get argv() {
    const exe = process.execPath;
    return [exe, exe].concat(sysCall('argv').split('\u0000').slice(1, -1).map(utf8FromBytes));
  },
  get execPath() { const r = sysCall('exe'); return typeof r === 'number' ? 'shardsh' : utf8FromBytes(r); },
  cwd() { const r = sysCall('cwd'); if (typeof r === 'number') throw nodeError(r, 'uv_cwd'); return utf8FromBytes(r); },
  exit(n) { return global.quit(n === undefined ? process.exitCode || 0 : n); },
  exitCode: undefined,
  get pid() { return Number(sysCall('pid').split(' ')[0]); },
  get ppid() { return Number(sysCall('pid').split(' ')[1]); },
  hrtime: processHrtime,
  stdout: processWriter('out'),
  stderr: processWriter('err'),
};
const performance = { now: () => { const [s, ns] = processHrtime(hrStart); return s * 1e3 + ns / 1e6; }, timeOrigin: Date.now() };

/* ---- require ---- */
/* each module: a name it lacks throws "shardsh does not support fs.statSync() yet" when called */
function nodeModule(name, m) {
  return new Proxy(m, {
    get(t, p, r) {
      if (typeof p === 'symbol' || p in t || p === 'then' || p === 'toJSON' || p === 'inspect' || p === 'default') return Reflect.get(t, p, r);
      return unsupported(name + '.' + p + '()');
    },
  });
}
/* fs.promises (and require("fs/promises")): the same operations, their results as promises */
const fsPromises = {};
for (const [k, f] of [['readFile', 'readFileSync'], ['writeFile', 'writeFileSync'], ['appendFile', 'appendFileSync'], ['readdir', 'readdirSync'], ['mkdir', 'mkdirSync']])
  fsPromises[k] = named(function (...a) { try { return Promise.resolve(fs[f](...a)); } catch (e) { return Promise.reject(e); } }, k);
fs.promises = nodeModule('fs.promises', fsPromises);
const modules = { fs: nodeModule('fs', fs), 'fs/promises': fs.promises, path: nodeModule('path', pathModule), os: nodeModule('os', os), util: nodeModule('util', util), buffer: { Buffer }, process };
modules['path/posix'] = modules.path;
/* require("./x") of a file: resolved from the working directory (mongosh's require, as load()), a module's own
 * requires from its folder (node's); x, x.js, x.json, x/index.js, x/index.json. A .json file is its parsed value, a
 * .js file runs as node's CommonJS module (exports, require, module, __filename, __dirname) once per run: the
 * pre-flight's modules are forgotten when the run starts, so their code runs there again. */
let modCache = new Map(), modCacheInPreflight = false;
function requireFile(name, from) {
  const pf = inPreflight();
  if (pf !== modCacheInPreflight) { modCache = new Map(); modCacheInPreflight = pf; }
  const abs = pathModule.resolve(from, name);
  const file = [abs, abs + '.js', abs + '.json', abs + '/index.js', abs + '/index.json'].find((f) => sysCall('exists', utf8Bytes(f)) === '1');
  if (file === undefined) {
    const e = new Error("Cannot find module '" + name + "'");
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  }
  if (modCache.has(file)) return modCache.get(file).exports;
  const module = { id: file, filename: file, exports: {}, loaded: false };
  modCache.set(file, module);
  try {
    if (file.endsWith('.json')) {
      try { module.exports = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { e.message = file + ': ' + e.message; throw e; }
    } else {
      loaded.add(file);
      const dir = pathModule.dirname(file);
      const fn = N.load(file, file, '(function (exports, require, module, __filename, __dirname) {', '\n})');
      fn.call(module.exports, module.exports, named((n) => requireFrom(n, dir), 'require'), module, file, dir);
    }
  } catch (e) {
    modCache.delete(file);
    throw e;
  }
  module.loaded = true;
  return module.exports;
}
function requireFrom(name, from) {
  if (typeof name !== 'string') throw nodeTypeError('The "id" argument must be of type string.' + nodeReceived(name));
  if (/^\.\.?(\/|$)|^\//.test(name)) return requireFile(name, from === undefined ? process.cwd() : from);
  const n = name.startsWith('node:') ? name.slice(5) : name;
  if (Object.prototype.hasOwnProperty.call(modules, n)) return modules[n];
  return unsupported('require(' + JSON.stringify(name) + ')')();
}
function require(name) { return requireFrom(name); }
for (const [k, v] of Object.entries({ require, process, Buffer, performance }))
  Object.defineProperty(global, k, { value: v, writable: true, configurable: true, enumerable: false });
