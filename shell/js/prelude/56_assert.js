/* shardsh JavaScript prelude, part: the rest of what mongosh (a Node REPL) has as globals: Node's assert (a global and
 * require("assert")) with node's AssertionError texts, and the timers (setTimeout, setInterval, setImmediate and
 * their clear*) as a synchronous engine can honestly give them: a callback runs after the statement that set it (the
 * engine calls timersRun after the statement's promise jobs), in the order of their due times, the shell sleeping what
 * is left of each delay; an error thrown in one is the statement's error.
 * A setInterval never cleared repeats until Ctrl-C, as it keeps node alive. The parts are concatenated in name order
 * by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */

/* ---- assert ---- */
class AssertionError extends Error {
  constructor(o) {
    super(o.message);
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
    this.generatedMessage = !!o.generated;
    this.actual = o.actual;
    this.expected = o.expected;
    this.operator = o.operator;
  }
}
/* node's rule: an Error as the message is thrown as it is; a string replaces the generated text */
function assertFail(actual, expected, operator, message, generated, flagged) {
  if (message instanceof Error) throw message;
  const gen = flagged === undefined ? message === undefined : flagged;
  throw new AssertionError({ actual, expected, operator, message: message === undefined ? generated : String(message), generated: gen });
}
function assertOk(operator, args) {
  if (args.length === 0) assertFail(undefined, true, '==', undefined, 'No value argument passed to `assert.ok()`');
  if (!args[0]) assertFail(args[0], true, '==', args[1], utilInspect(args[0]) + ' == true');
}
function sameProto(a, b) { return Object.getPrototypeOf(a) === Object.getPrototypeOf(b); }
/* node's isDeepStrictEqual (strict) and deepEqual (loose: == between primitives), for plain data, arrays, dates,
 * regular expressions and the shell's BSON values (compared by their own fields) */
function deepEq(a, b, strict, seen) {
  if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true; // eslint-disable-line eqeqeq
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (strict && !sameProto(a, b)) return false;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof RegExp || b instanceof RegExp) return a instanceof RegExp && b instanceof RegExp && String(a) === String(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (seen.some(([x, y]) => x === a && y === b)) return true;
  seen.push([a, b]);
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEq(a[k], b[k], strict, seen)) return false;
  if (!Object.keys(a).length && !Array.isArray(a)) {
    /* the BSON values keep their contents in hidden fields: compared by what they print */
    const ea = JSON.stringify(ejsonOut(a, false, 0)), eb = JSON.stringify(ejsonOut(b, false, 0));
    if (ea !== eb) return false;
  }
  return true;
}
/* a value as node's assert shows it in a diff: each element and key (sorted) on its own line */
function assertLines(v) {
  const plain = v !== null && typeof v === 'object' && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
  if (!plain) return [utilInspect(v)];
  const arr = Array.isArray(v), keys = arr ? Object.keys(v) : Object.keys(v).sort();
  if (!keys.length) return [arr ? '[]' : '{}'];
  const out = [arr ? '[' : '{'];
  keys.forEach((k, i) => {
    const sub = assertLines(v[k]), name = arr ? '' : (/^[A-Za-z_$][\w$]*$/.test(k) ? k : inspectString(k)) + ': ';
    sub.forEach((l, j) => out.push('  ' + (j === 0 ? name : '') + l + (j === sub.length - 1 && i < keys.length - 1 ? ',' : '')));
  });
  out.push(arr ? ']' : '}');
  return out;
}
/* node's "+ actual - expected" diff: the lines both have, and in each changed run the actual's then the expected's */
function deepText(title, actual, expected) {
  if (typeof actual !== 'object' || actual === null) return title + ':\n\n' + utilInspect(actual) + ' !== ' + utilInspect(expected) + '\n';
  const a = assertLines(actual), e = assertLines(expected);
  const L = Array.from({ length: a.length + 1 }, () => new Array(e.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = e.length - 1; j >= 0; j--) L[i][j] = a[i] === e[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out = [];
  let i = 0, j = 0, plus = [], minus = [];
  const flush = () => { out.push(...plus, ...minus); plus = []; minus = []; };
  while (i < a.length || j < e.length) {
    if (i < a.length && j < e.length && a[i] === e[j]) { flush(); out.push('  ' + a[i]); i++; j++; }
    else if (j >= e.length || (i < a.length && L[i + 1][j] >= L[i][j + 1])) plus.push('+ ' + a[i++]);
    else minus.push('- ' + e[j++]);
  }
  flush();
  return title + ':\n+ actual - expected\n\n' + out.join('\n');
}
/* what assert.throws compares the error with: a RegExp, a class, a validating function or an object of fields */
function assertErrorMatches(err, expected, operator, message) {
  if (expected instanceof RegExp) {
    if (!expected.test(String(err)))
      assertFail(err, expected, operator, message, 'The input did not match the regular expression ' + String(expected) + '. Input:\n\n' + utilInspect(String(err)) + '\n');
  } else if (typeof expected === 'function') {
    if (expected.prototype !== undefined && err instanceof expected) return;
    if (Error.isPrototypeOf(expected) || expected === Error) throw err;
    if (expected.call({}, err) !== true) throw err;
  } else if (expected !== null && typeof expected === 'object') {
    for (const k of Object.keys(expected)) {
      if (!(expected[k] instanceof RegExp ? typeof err[k] === 'string' && expected[k].test(err[k]) : deepEq(err[k], expected[k], true, [])))
        assertFail(err, expected, operator, message, deepText('Expected values to be strictly deep-equal', err[k], expected[k]));
    }
  }
}
function assertThrows(fn, expected, message) {
  if (typeof fn !== 'function') throw nodeTypeError('The "fn" argument must be of type function.' + nodeReceived(fn));
  if (typeof expected === 'string') { message = expected; expected = undefined; }
  try { fn(); } catch (e) {
    if (expected !== undefined) assertErrorMatches(e, expected, 'throws', message);
    return;
  }
  const what = typeof expected === 'function' && expected.name ? ' (' + expected.name + ')' : '';
  assertFail(undefined, expected, 'throws', undefined, 'Missing expected exception' + what + (message === undefined ? '.' : ': ' + message), false);
}
const assert = named(function (...a) { assertOk('==', a); }, 'ok');
Object.assign(assert, {
  AssertionError,
  ok: named(function (...a) { assertOk('==', a); }, 'ok'),
  fail(message) { assertFail(undefined, undefined, 'fail', message, 'Failed'); },
  equal(a, b, message) { if (!(a == b || (a !== a && b !== b))) assertFail(a, b, '==', message, utilInspect(a) + ' == ' + utilInspect(b)); }, // eslint-disable-line eqeqeq
  notEqual(a, b, message) { if (a == b || (a !== a && b !== b)) assertFail(a, b, '!=', message, utilInspect(a) + ' != ' + utilInspect(b)); }, // eslint-disable-line eqeqeq
  strictEqual(a, b, message) {
    if (Object.is(a, b)) return;
    const diff = utilInspect(a) + ' !== ' + utilInspect(b) + '\n';
    assertFail(a, b, 'strictEqual', message === undefined || message instanceof Error ? message : message + '\n\n' + diff, 'Expected values to be strictly equal:\n\n' + diff);
  },
  notStrictEqual(a, b, message) { if (Object.is(a, b)) assertFail(a, b, 'notStrictEqual', message, 'Expected "actual" to be strictly unequal to: ' + utilInspect(b)); },
  deepEqual(a, b, message) { if (!deepEq(a, b, false, [])) assertFail(a, b, 'deepEqual', message, deepText('Expected values to be loosely deep-equal', a, b)); },
  notDeepEqual(a, b, message) { if (deepEq(a, b, false, [])) assertFail(a, b, 'notDeepEqual', message, '"actual" deepEqual "expected"'); },
  deepStrictEqual(a, b, message) { if (!deepEq(a, b, true, [])) assertFail(a, b, 'deepStrictEqual', message, deepText('Expected values to be strictly deep-equal', a, b)); },
  notDeepStrictEqual(a, b, message) { if (deepEq(a, b, true, [])) assertFail(a, b, 'notDeepStrictEqual', message, 'Expected "actual" not to be strictly deep-equal to: ' + utilInspect(b)); },
  throws: assertThrows,
  doesNotThrow(fn, message) {
    try { fn(); } catch (e) {
      assertFail(e, undefined, 'doesNotThrow', undefined, 'Got unwanted exception' + (typeof message === 'string' ? ': ' + message : '.') + '\nActual message: "' + (e && e.message) + '"', false);
    }
  },
  async rejects(p, expected, message) {
    try { await (typeof p === 'function' ? p() : p); } catch (e) { if (expected !== undefined && typeof expected !== 'string') assertErrorMatches(e, expected, 'rejects', message); return; }
    assertFail(undefined, expected, 'rejects', undefined, 'Missing expected rejection' + (typeof expected === 'string' ? ': ' + expected : '.'));
  },
  async doesNotReject(p) {
    try { await (typeof p === 'function' ? p() : p); } catch (e) { assertFail(e, undefined, 'doesNotReject', undefined, 'Got unwanted rejection.\nActual message: "' + (e && e.message) + '"'); }
  },
  ifError(v) {
    if (v === null || v === undefined) return;
    assertFail(v, null, 'ifError', undefined, 'ifError got unwanted exception: ' + (v && v.message !== undefined ? v.message : utilInspect(v)));
  },
  match(s, re, message) {
    if (!re.test(s)) assertFail(s, re, 'match', message, 'The input did not match the regular expression ' + String(re) + '. Input:\n\n' + utilInspect(s) + '\n');
  },
  doesNotMatch(s, re, message) {
    if (re.test(s)) assertFail(s, re, 'doesNotMatch', message, 'The input was expected to not match the regular expression ' + String(re) + '. Input:\n\n' + utilInspect(s) + '\n');
  },
});
/* assert.strict: the same, its loose comparisons strict */
const assertStrict = named(function (...a) { assertOk('==', a); }, 'strict');
Object.assign(assertStrict, assert, { equal: assert.strictEqual, notEqual: assert.notStrictEqual, deepEqual: assert.deepStrictEqual, notDeepEqual: assert.notDeepStrictEqual });
assert.strict = assertStrict;
assertStrict.strict = assertStrict;

/* ---- timers ---- */
let timerQueue = [], timerSeq = 0;
class Timeout {
  constructor(fn, ms, args, repeat) {
    let d = Number(ms);
    if (!(d >= 1 && d <= 2147483647)) d = 1;
    hide(this, '_fn', fn); hide(this, '_args', args); hide(this, '_id', ++timerSeq);
    hide(this, '_delay', d); hide(this, '_repeat', repeat); hide(this, '_due', Date.now() + d);
  }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
  refresh() { this._due = Date.now() + this._delay; return this; }
  [Symbol.toPrimitive]() { return this._id; }
}
class Immediate extends Timeout {}
/* runs the queued callbacks, earliest due first (the order they were set among equal ones), until none is left */
function timersRun() {
  if (!timerQueue.length) return;
  try {
    while (timerQueue.length) {
      let k = 0;
      for (let i = 1; i < timerQueue.length; i++) if (timerQueue[i]._due < timerQueue[k]._due) k = i;
      const t = timerQueue[k], wait = t._due - Date.now();
      if (wait > 0 && !inPreflight()) global.sleep(wait);
      timerQueue.splice(k, 1);
      if (t._repeat) { t._due = Math.max(Date.now(), t._due) + t._delay; timerQueue.push(t); }
      t._fn(...t._args);
    }
  } catch (e) {
    timerQueue = [];
    throw e;
  }
}
function timerAdd(T, fn, ms, args, repeat) {
  if (typeof fn !== 'function') throw nodeTypeError('The "callback" argument must be of type function.' + nodeReceived(fn));
  const t = new T(fn, ms, args, repeat);
  timerQueue.push(t);
  return t;
}
function timerClear(t) {
  const i = timerQueue.findIndex((x) => x === t || (typeof t !== 'object' && x._id === Number(t)));
  if (i >= 0) timerQueue.splice(i, 1);
}
const timers = {
  setTimeout: named((fn, ms, ...a) => timerAdd(Timeout, fn, ms, a, false), 'setTimeout'),
  setInterval: named((fn, ms, ...a) => timerAdd(Timeout, fn, ms, a, true), 'setInterval'),
  setImmediate: named((fn, ...a) => timerAdd(Immediate, fn, 0, a, false), 'setImmediate'),
  clearTimeout: named(timerClear, 'clearTimeout'),
  clearInterval: named(timerClear, 'clearInterval'),
  clearImmediate: named(timerClear, 'clearImmediate'),
};
modules.assert = assert;
modules['assert/strict'] = assertStrict;
modules.timers = timers;
for (const [k, v] of Object.entries(Object.assign({ assert }, timers)))
  Object.defineProperty(global, k, { value: v, writable: true, configurable: true, enumerable: false });
if (typeof global.queueMicrotask !== 'function')
  Object.defineProperty(global, 'queueMicrotask', { value: named((f) => { Promise.resolve().then(f); }, 'queueMicrotask'), writable: true, configurable: true, enumerable: false });
