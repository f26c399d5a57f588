/* shardsh JavaScript prelude, part: what the shell calls: show, describe, complete. The parts are concatenated in name order by the Makefile into one function (opened in 00_values.js, closed in 90_shell.js). */

/* ---- the value of an expression, for the REPL and --eval ---- */
/* declared: the name of the function or class the input ended by declaring, shown as mongosh shows it */
function show(v, declared) {
  if (v === undefined && declared !== undefined) {
    try { v = (0, eval)(declared); } catch (e) { v = undefined; }
  }
  if (v === undefined) return null;
  if (v === itCommand) v = itCommand();
  if (v instanceof Cursor && v._q.explain) return [enc({ v: v.explain(v._q.explain) }), false];
  if (v instanceof Cursor && v._q.kind === 'cmd') return [enc({ v: v._printable() }), false];
  if (v instanceof Cursor) { const b = v._batch(20); return [enc({ v: b }), v._hasMore(), undefined, 1]; }
  if (v instanceof ItResult) return [enc({ v: v._docs }), v._more, undefined, 2];
  if (v instanceof Database) return [enc({ v: v._name }), false];
  if (v instanceof Collection) return [enc({ v: v._db + '.' + v._name }), false];
  if (v instanceof MongoClient) return [enc({ v: v.getURI() }), false];
  if (v instanceof Buffer) return [enc({ v: bufferText(v) }), false];
  if (typeof v === 'function' || v instanceof Int32 || v instanceof Double) return [enc({ v: printable(v) }), false];
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

return { enc, dec, show, describe, complete, install, timers: timersRun, encTop: (v) => enc({ v }) };
})
