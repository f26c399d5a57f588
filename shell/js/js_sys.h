/* The engine plugin's plain-C operations for the prelude (js_sys.c): what Node.js's fs, os and process give mongosh
 * scripts (files, the environment, the host), and the libbson values the BSON constructors need. The prelude reaches
 * them through one native, __sh.sys(op, a, b) in js_engine.cpp, with every argument and result a byte string. Part of
 * the plugin only (hidden symbols). */
#ifndef SHARDSH_JS_SYS_H
#define SHARDSH_JS_SYS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs operation op on the bytes a (alen of them) and b (blen), each NUL-terminated as well; NUL bytes inside a path
 * are the prelude's to refuse (node's ERR_INVALID_ARG_VALUE). The operations:
 *   read a        the file's bytes, exactly (js_util_read_file)       write a b   a's content replaced by b: ""
 *   append a b    b added at a's end: ""                              exists a    "d" (a directory), "1" or ""
 *   readdir a     the names in directory a but . and .., in strcmp order, each followed by one NUL byte
 *   mkdir a       directory a made (mode 0777 less the umask): ""     cwd         the working directory
 *   env           the environment, "NAME=value" each followed by one NUL byte
 *   argv          the process's arguments (its /proc/self/cmdline)    exe         its executable's absolute path
 *   hostname      the host's name      homedir   $HOME, else the user's home from the password file
 *   hrtime        "seconds nanoseconds" of the monotonic clock
 *   out a, err a  a written to standard output, standard error: ""
 *   oid           a new ObjectId's 24 hexadecimal digits
 *   decimal a     "1" when a is a Decimal128 string libbson accepts ("NaN", ".5"; not "12,50", " 1"), else ""
 *   errno a       errno a (decimal) as node names it, its code and libuv's message: "ENOENT no such file or directory"
 * Returns the result (malloc'd, NUL-terminated, *len its length in bytes), or NULL with *errnum the errno of the
 * failure (EINVAL for an unknown op). The caller frees the result with free(). */
char *
js_sys_op (const char *op, const char *a, size_t alen, const char *b, size_t blen, size_t *len, int *errnum)
   __attribute__ ((visibility ("hidden")));

#ifdef __cplusplus
}
#endif

#endif
