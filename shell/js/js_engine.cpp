/* The JavaScript engine plugin (bin/shardsh-js.so): SpiderMonkey 102 behind the C interface of js_engine.h. The only
 * C++ in the project. One JSContext and one global realm per engine; JS_Init once per process (JS_ShutDown at exit).
 * Everything the scripts see (sh, db, Database, Collection, cursors, the BSON constructors, print, ...) is defined by
 * the prelude (the parts in prelude/), in JavaScript, from the command table's names the shell hands over; every method
 * call comes back here through one native, __sh.call, which hands the call to the shell's dispatch. Values cross
 * between BSON and JavaScript as canonical Extended JSON: libbson writes and reads it on this side, the prelude on the
 * other, so no BSON value is ever guessed from a JavaScript number (int32 when integral and in range, else double, as
 * mongosh sends them). Rooting: every JSObject held across calls is a PersistentRooted owned by the engine; everything
 * else lives in JS::Rooted on the stack. */
#include <atomic>
#include <cerrno>
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
#include <js/CharacterEncoding.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Context.h>
#include <js/Conversions.h>
#include <js/ErrorReport.h>
#include <js/Exception.h>
#include <js/GlobalObject.h>
#include <js/Initialization.h>
#include <js/Promise.h>
#include <js/Interrupt.h>
#include <js/Object.h>
#include <js/PropertyAndElement.h>
#include <js/Realm.h>
#include <js/SourceText.h>
#include <js/String.h>
#include <jsapi.h>
#include <jsfriendapi.h>
#pragma GCC diagnostic pop

#include "shell/js/js_bson.h"
#include "shell/js/js_engine.h"
#include "shell/js/js_prelude.h"
#include "shell/js/js_sys.h"
#include "shell/js/js_util.h"

/* JS::Rooted links itself into the context's list of stack roots by address, which GCC 12 takes for a dangling
 * pointer to a local; that is how SpiderMonkey's rooting works, so only this warning is silenced. */
#pragma GCC diagnostic ignored "-Wdangling-pointer"

/* The prelude (the parts in prelude/): plain JavaScript evaluated once per engine. It returns the functions this file
 * calls (enc, dec, show, describe, complete, install). Named PRELUDE_NAME in stacks, so locations skip its frames. */
#define PRELUDE_NAME "shardsh:prelude"

/* errors: the shell's sh_error_t, filled without linking the shell (js_err_set, js_util.c) */

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

/* Where SpiderMonkey runs code outside a script of ours: a promise job that failed is handed here to report; the
 * exception of a job (not a rejection, which the promise keeps) is dropped, as a browser drops it to its console. */
struct js_preparer : public js::ScriptEnvironmentPreparer {
   JSContext *cx = nullptr;
   void
   invoke (JS::HandleObject global, Closure &closure) override
   {
      JSAutoRealm ar (cx, global);
      if (!closure (cx))
         JS_ClearPendingException (cx);
   }
};

struct js_engine {
   js_host_t host;
   js_preparer preparer;
   JSContext *cx;
   JS::PersistentRootedObject *global;  /* the realm's global */
   JS::PersistentRootedObject *prelude; /* the object the prelude returned */
   std::atomic<bool> running;
   std::atomic<bool> out_of_memory; /* the watcher stopped the run: the process grew past memory_mb */
   size_t memory_mb;                /* js_util_memory_limit_mb () */
   std::string error_file;          /* the script of the last error's place, "" for the one run (error_file) */
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

/* True when v is a string holding U+0000, which its UTF-8 C string would cut short (a name must not be). */
static bool
js_has_nul (JSContext *cx, JS::HandleValue v, const char *utf8)
{
   JSLinearString *lin;
   if (!v.isString () || !utf8 || !(lin = JS_EnsureLinearString (cx, v.toString ())))
      return false;
   return JS::GetDeflatedUTF8StringLength (lin) != strlen (utf8);
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
   if (!s) {
      bson_init (doc);
      JS_ClearPendingException (cx);
      js_err_set (err, SH_ERR_ARGS, "the value cannot be converted to BSON");
      return false;
   }
   if (!js_bson_parse (s.get (), doc, &error)) {
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
   char *s = js_bson_to_json (doc, prefix, &len);
   JSString *out;
   if (!s) {
      JS_ReportErrorASCII (cx, "a reply could not be converted to a JavaScript value (invalid BSON or UTF-8)");
      return nullptr;
   }
   out = js_utf8_string (cx, s, len);
   bson_free (s);
   return out;
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

   e->error_file.clear ();
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
   {
      const char *file = js_bson_error_read (&doc, fallback, err);
      if (file && strcmp (file, name))
         e->error_file = file;
   }
   bson_destroy (&doc);
}

/* ---- natives ---- */

/* "E" + the error as canonical Extended JSON, what the prelude's shError reads; detail (may be NULL): the failed
 * call's result, { v: value }. */
static JSString *
error_string (JSContext *cx, const sh_error_t *err, const bson_t *detail)
{
   size_t len = 0;
   char *s = js_bson_error_json (err, detail, &len);
   JSString *out = js_utf8_string (cx, s, len);
   bson_free (s);
   return out;
}

/* __sh.call(name, db, coll, argsJson, argc, modsJson, line, col[, file[, conn]]): runs a table entry through the shell.
 * Returns "N" (no value), "R" + {"v": value} or "E" + the error, as canonical Extended JSON. Returns false without an
 * exception (the script stops, uncatchably) after exit or Ctrl-C. */
static bool
native_call (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   js_engine_t *e = engine_of (cx);
   JS::UniqueChars name, db, coll, argj, modj, file;
   bson_t cargs = BSON_INITIALIZER, mods = BSON_INITIALIZER, result = BSON_INITIALIZER, sort, opts;
   bson_error_t error;
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
   bson_destroy (&cargs);
   if (!js_bson_parse (argj.get (), &cargs, &error)) {
      JS_ReportErrorUTF8 (cx, "the arguments cannot be converted to BSON: %s", error.message);
      goto done;
   }
   if (modj.get ()[0])
      bson_destroy (&mods);
   if (modj.get ()[0] && !js_bson_parse (modj.get (), &mods, &error)) {
      JS_ReportErrorUTF8 (cx, "the cursor options cannot be converted to BSON: %s", error.message);
      goto done;
   }
   if (js_has_nul (cx, args[1], db.get ()) || js_has_nul (cx, args[2], coll.get ())) {
      js_err_set (&err, SH_ERR_ARGS, "invalid %s name '%s': it contains a NUL byte",
                  js_has_nul (cx, args[1], db.get ()) ? "database" : "collection",
                  js_has_nul (cx, args[1], db.get ()) ? db.get () : coll.get ());
      out = error_string (cx, &err, NULL);
      goto reply;
   }
   call.name = name.get ();
   call.db = db.get ();
   call.coll = coll.get ();
   call.args = &cargs;
   call.argc = args[4].isInt32 () ? args[4].toInt32 () : 0;
   call.line = args[6].isInt32 () ? args[6].toInt32 () : 0;
   call.col = args[7].isInt32 () ? args[7].toInt32 () : 0;
   if (args.length () > 8 && args[8].isString () && (file = js_to_utf8 (cx, args[8])))
      call.file = file.get ();
   if (args.length () > 9 && args[9].isInt32 ())
      call.conn = args[9].toInt32 ();
   js_bson_call_mods (&mods, &call, &sort, &opts);

   if (!e->host.call (e->host.data, &call, &result, &has, &err)) {
      if (err.kind == SH_ERR_INTERRUPTED || (e->host.stop && e->host.stop (e->host.data)))
         goto done; /* no exception: the script stops */
      out = error_string (cx, &err, has ? &result : NULL);
   } else if (e->host.stop && e->host.stop (e->host.data)) {
      goto done;
   } else if (!has) {
      out = JS_NewStringCopyZ (cx, "N");
   } else {
      out = bson_to_ejson_string (cx, &result, "R");
   }
reply:
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

static JSScript *
compile_text (JSContext *cx, const char *name, unsigned line, const char *text, size_t len);

/* __sh.load(name, path[, prefix, suffix]): the file at path (absolute, or null: just the path name resolved against the
 * working directory, as node's path.resolve) run in the global scope, compiled as name; with prefix and suffix, the
 * file's text between them, and the run's value returned (require() wraps a module in a function so). False with an
 * exception pending when it cannot be read or does not compile or throws. */
static bool
native_load (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   JS::UniqueChars name, path;
   JS::RootedValue rv (cx);
   size_t len = 0;
   char *text;
   if (!(name = js_to_utf8 (cx, args.get (0))))
      return false;
   if (args.get (1).isNull ()) {
      char *abs = js_util_resolve_path (name.get ());
      JSString *s = abs ? JS_NewStringCopyZ (cx, abs) : nullptr;
      free (abs);
      if (s)
         args.rval ().setString (s);
      return s != nullptr;
   }
   if (!(path = js_to_utf8 (cx, args.get (1))))
      return false;
   if (!(text = js_util_read_file (path.get (), &len))) {
      JS_ReportErrorUTF8 (cx, "load: cannot read %s: %s", path.get (), strerror (errno));
      return false;
   }
   if (args.get (2).isString ()) {
      /* require(): the file between prefix (on its first line, so lines stay the file's) and suffix; its value */
      JS::UniqueChars pre = js_to_utf8 (cx, args[2]), post = js_to_utf8 (cx, args.get (3));
      std::string body = std::string (pre ? pre.get () : "") + std::string (text, len) + (post ? post.get () : "");
      free (text);
      JS::RootedScript wrapped (cx,
                                pre && post ? compile_text (cx, name.get (), 1, body.c_str (), body.size ()) : nullptr);
      return wrapped && JS_ExecuteScript (cx, wrapped, args.rval ());
   }
   JS::RootedScript script (cx, compile_text (cx, name.get (), 1, text, len));
   free (text);
   args.rval ().setUndefined ();
   return script && JS_ExecuteScript (cx, script, &rv);
}

/* __sh.sys(op, a, b): js_sys_op on byte strings (each character one byte, the prelude's encoding): its result as such a
 * string, or errno's number when it failed. */
static bool
native_sys (JSContext *cx, unsigned argc, JS::Value *vp)
{
   JS::CallArgs args = JS::CallArgsFromVp (argc, vp);
   JS::UniqueChars s[3];
   size_t len[3], n = 0;
   int errnum = 0;
   for (unsigned i = 0; i < 3; i++) {
      JS::RootedString str (cx, JS::ToString (cx, args.get (i)));
      if (!str || !(s[i] = JS_EncodeStringToLatin1 (cx, str)))
         return false;
      len[i] = JS_GetStringLength (str);
   }
   char *out = js_sys_op (s[0].get (), s[1].get (), len[1], s[2].get (), len[2], &n, &errnum);
   bool failed = out == nullptr;
   JSString *r = out ? JS_NewStringCopyN (cx, out, n) : nullptr;
   free (out);
   if (!failed && !r)
      return false;
   args.rval ().set (r ? JS::StringValue (r) : JS::Int32Value (errnum));
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

/* __sh.cursorNext(id, max): "R" + { v: [documents], more: bool } or "E" + the error, as for __sh.call; max < 0:
 * the documents already received, no getMore. */
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
   /* a negative count: only the documents already received (JS_CURSOR_RECEIVED) */
   if (!e->host.cursor_next (e->host.data, args[0].toInt32 (),
                             max < 0   ? JS_CURSOR_RECEIVED
                             : max > 0 ? (size_t) max
                                       : 0,
                             &docs, &more, &err)) {
      if (err.kind == SH_ERR_INTERRUPTED || (e->host.stop && e->host.stop (e->host.data)))
         goto done; /* no exception: the script stops */
      out = error_string (cx, &err, NULL);
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
   JS_FN ("load", native_load, 2, 0),
   JS_FN ("sys", native_sys, 3, 0),
   JS_FN ("currentDb", native_current_db, 0, 0),
   JS_FS_END,
};

/* Ctrl-C: the watcher thread requests an interrupt; this answers it. false ends the script without an exception. */
static bool
on_interrupt (JSContext *cx)
{
   js_engine_t *e = engine_of (cx);
   return !e->out_of_memory && !(e->host.interrupted && e->host.interrupted (e->host.data));
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
   e->out_of_memory = false;
   e->memory_mb = js_util_memory_limit_mb ();
   /* the GC heap may take the whole limit (SpiderMonkey's default, 32 MiB, failed a 300,000-chunk read); the
    * watcher of engine_run bounds everything else the process takes */
   if (!(e->cx = JS_NewContext (e->memory_mb >= 4095 ? 0xFFFFFFFFu : (uint32_t) (e->memory_mb << 20)))) {
      js_err_set (err, SH_ERR_USAGE, "the JavaScript engine could not create a context");
      delete e;
      return nullptr;
   }
   JS_SetContextPrivate (e->cx, e);
   /* promises: SpiderMonkey's own job queue, drained after each run (engine_run) */
   e->preparer.cx = e->cx;
   js::SetScriptEnvironmentPreparer (e->cx, &e->preparer);
   if (!js::UseInternalJobQueues (e->cx) || !JS::InitSelfHostedCode (e->cx)) {
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
      ok = ok && src.init (cx, js_prelude_source, js_prelude_source_len, JS::SourceOwnership::Borrowed) &&
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

/* text compiled as a script named name, its first line line (nullptr, exception pending, on a syntax error) */
static JSScript *
compile_text (JSContext *cx, const char *name, unsigned line, const char *text, size_t len)
{
   JS::CompileOptions opts (cx);
   JS::SourceText<mozilla::Utf8Unit> src;
   opts.setFileAndLine (name, line);
   if (!src.init (cx, text, len, JS::SourceOwnership::Borrowed))
      return nullptr;
   return JS::Compile (cx, opts, src);
}

/* The script of text. Text that uses await outside a function (mongosh scripts do, top-level await) does not
 * compile as a script: it is compiled once more as the body of an async arrow function called at once, first as an
 * expression (its value is the promise's: `await x` shows x), else as a block; *wrapped says so, and the run's value
 * is then that promise. The wrapper's first line is line 0, so positions stay the user's. On a syntax error in
 * every form, nullptr with the script's own error pending. */
static JSScript *
compile_user (JSContext *cx, const char *name, const char *text, size_t len, bool *wrapped)
{
   static const char await_word[] = "await";
   JS::RootedScript script (cx, compile_text (cx, name, 1, text, len));
   *wrapped = false;
   if (script || !memmem (text, len, await_word, sizeof await_word - 1))
      return script;
   JS_ClearPendingException (cx);
   {
      size_t n = len;
      while (n > 0 && (text[n - 1] == ';' || text[n - 1] == ' ' || text[n - 1] == '\n' || text[n - 1] == '\t' ||
                       text[n - 1] == '\r'))
         n--;
      std::string expr = "(async () => (\n" + std::string (text, n) + "\n))()";
      std::string block = "(async () => {\n" + std::string (text, len) + "\n})()";
      script = compile_text (cx, name, 0, expr.c_str (), expr.size ());
      if (!script) {
         JS_ClearPendingException (cx);
         script = compile_text (cx, name, 0, block.c_str (), block.size ());
      }
   }
   if (script) {
      *wrapped = true;
      return script;
   }
   JS_ClearPendingException (cx);
   return compile_text (cx, name, 1, text, len);
}

static bool
engine_check (js_engine_t *e, const char *name, const char *text, size_t len, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   bool wrapped;
   JS::RootedScript script (cx, compile_user (cx, name, text, len, &wrapped));
   if (!script) {
      describe_exception (e, name, SH_ERR_PARSE, err);
      err->kind = SH_ERR_PARSE;
      js_util_clamp_to_text (err, text, len);
      return false;
   }
   return true;
}

/* True when the pending exception is SpiderMonkey's own "out of memory" (its GC heap reached the limit). */
static bool
out_of_memory_pending (JSContext *cx)
{
   JS::RootedValue exc (cx);
   if (!JS_IsExceptionPending (cx) || !JS_GetPendingException (cx, &exc) || !exc.isString ())
      return false;
   JS::UniqueChars s = JS_EncodeStringToUTF8 (cx, JS::RootedString (cx, exc.toString ()));
   return s && !strcmp (s.get (), "out of memory");
}

/* A promise the run gave (top-level await, or a value the REPL shows) stands for what it settled to, as mongosh
 * awaits it: its value, or its rejection as the run's error (false, err set). Still pending after the jobs ran:
 * nothing to show. */
static bool
settle (js_engine_t *e, const char *name, JS::MutableHandleValue rv, sh_error_t *err)
{
   JSContext *cx = e->cx;
   if (!rv.isObject ())
      return true;
   JS::RootedObject p (cx, &rv.toObject ());
   if (!JS::IsPromiseObject (p))
      return true;
   switch (JS::GetPromiseState (p)) {
   case JS::PromiseState::Fulfilled:
      rv.set (JS::GetPromiseResult (p));
      return true;
   case JS::PromiseState::Rejected: {
      JS::RootedValue exc (cx, JS::GetPromiseResult (p));
      JS_SetPendingException (cx, exc);
      describe_exception (e, name, SH_ERR_USAGE, err);
      return false;
   }
   case JS::PromiseState::Pending:
   default:
      rv.setUndefined ();
      return true;
   }
}

static js_run_t
engine_run (js_engine_t *e, const char *name, const char *text, size_t len, bool show_value, sh_error_t *err)
{
   JSContext *cx = e->cx;
   JSAutoRealm ar (cx, *e->global);
   JS::RootedValue rv (cx);
   std::thread watcher;
   bool ok, wrapped;

   JS::RootedScript script (cx, compile_user (cx, name, text, len, &wrapped));
   if (!script) {
      describe_exception (e, name, SH_ERR_PARSE, err);
      err->kind = SH_ERR_PARSE;
      js_util_clamp_to_text (err, text, len);
      return JS_RUN_FAILED;
   }
   {
      /* Ctrl-C cannot call into the engine from the signal handler: a thread watches the flag and asks the engine
       * to interrupt itself, which it does at its next safe point (a loop's back edge, a call); it watches the
       * process's memory the same way (SpiderMonkey bounds its GC heap, not what it mallocs for strings and arrays) */
      e->running = true;
      e->out_of_memory = false;
      watcher = std::thread ([e] () {
         for (int tick = 0; e->running; tick++) {
            if (e->host.interrupted && e->host.interrupted (e->host.data)) {
               JS_RequestInterruptCallback (e->cx);
               break;
            }
            if (tick % 5 == 0 && js_util_rss_mb () > e->memory_mb) {
               e->out_of_memory = true;
               JS_RequestInterruptCallback (e->cx);
               break;
            }
            std::this_thread::sleep_for (std::chrono::milliseconds (20));
         }
      });
   }
   ok = JS_ExecuteScript (cx, script, &rv);
   /* the promise jobs the statement queued (.then callbacks, async functions after an await) run now, as a
    * mongosh statement's do before the next one; then its timers (56_assert.js), whose errors are the run's */
   if (ok) {
      JS::RootedValue none (cx);
      js::RunJobs (cx);
      if ((ok = prelude_call (e, "timers", JS::HandleValueArray::empty (), &none)))
         js::RunJobs (cx);
   }
   if (watcher.joinable ()) {
      e->running = false;
      watcher.join ();
   }
   if (!ok && (e->out_of_memory || out_of_memory_pending (cx))) {
      /* the statement's garbage goes; what the script keeps in variables stays (the REPL lives on) */
      JS_ClearPendingException (cx);
      e->out_of_memory = false;
      JS_GC (cx);
      js_err_set (err, SH_ERR_USAGE,
                  "out of memory in JavaScript: the script took more than %zu MiB (SHARDSH_JS_MEMORY_MB raises it)",
                  e->memory_mb);
      return JS_RUN_FAILED;
   }
   if (!ok) {
      if (!JS_IsExceptionPending (cx))
         return JS_RUN_STOPPED;
      describe_exception (e, name, SH_ERR_USAGE, err);
      return JS_RUN_FAILED;
   }
   if ((wrapped || show_value) && !settle (e, name, &rv, err))
      return JS_RUN_FAILED;
   if (show_value && e->host.show) {
      JS::RootedValue shown (cx), json (cx), more (cx);
      JS::RootedValueArray<2> args (cx);
      char decl[256];
      JSString *dname =
         js_util_last_declaration (text, len, decl, sizeof decl) ? JS_NewStringCopyZ (cx, decl) : nullptr;
      args[0].set (rv);
      args[1].set (dname ? JS::StringValue (dname) : JS::UndefinedValue ()); /* mongosh shows a declaration's value */
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
   size_t n = 0;

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
      n = js_bson_string_array (s.get (), out, max);
   }
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
   if (s) {
      args[0].setString (s);
      if (prelude_call (e, "dec", args, &v))
         return value_to_bson (e, "enc", v, out, err);
   }
   JS_ClearPendingException (cx);
   bson_init (out);
   js_err_set (err, SH_ERR_ARGS, "the document cannot be converted to a JavaScript value");
   return false;
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

static const char *
engine_error_file (js_engine_t *e)
{
   return e->error_file.c_str ();
}

static const js_engine_api_t js_api = {
   JS_ENGINE_ABI,        engine_new,      engine_free,           engine_check,        engine_run,
   engine_is_compilable, engine_complete, engine_bson_roundtrip, engine_eval_to_bson, engine_error_file,
};

extern "C" const js_engine_api_t *
shardsh_js_engine_api (void)
{
   return &js_api;
}
