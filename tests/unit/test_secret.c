/* passes: plain asan */
/* The one secret rule (shell/lib/secret.c, issue 31): what the source-text mask hides (connection-string passwords up
 * to the last '@', so an unescaped '/' or ':' stays hidden; pwd/password fields; the password argument of auth() and
 * changeUserPassword(), connect()'s third), that it keeps columns, and which lines the history leaves out. */
#include <string.h>

#include "shell/lib/secret.h"
#include "tests/unit/unit.h"

static void
check_mask (const char *name, const char *in, const char *want)
{
   char *got = secret_redact_source_str (in);
   CHECK_STR (name, want, got);
   bson_free (got);
}

int
main (void)
{
   check_mask ("secret/auth positional", "db.getSiblingDB(\"admin\").auth(\"u\", \"pw1\")",
               "db.getSiblingDB(\"admin\").auth(\"u\", \"***\")");
   check_mask ("secret/auth with blanks before (", "auth ('u',  'pw')", "auth ('u',  '**')");
   check_mask ("secret/auth document", "db.auth({user: \"u\", pwd: \"pw2\", mechanism: \"SCRAM-SHA-256\"})",
               "db.auth({user: \"u\", pwd: \"***\", mechanism: \"SCRAM-SHA-256\"})");
   check_mask ("secret/changeUserPassword", "db.changeUserPassword(\"u\", \"pw3\", {w: 1})",
               "db.changeUserPassword(\"u\", \"***\", {w: 1})");
   check_mask ("secret/connect(uri, user, pwd): the third argument",
               "db = connect(\"h:1/admin\", \"u\", \"pw5\"); x(\"a\", \"b\", \"c\")",
               "db = connect(\"h:1/admin\", \"u\", \"***\"); x(\"a\", \"b\", \"c\")");
   check_mask ("secret/not a longer name", "author(\"a\", \"b\")", "author(\"a\", \"b\")");
   check_mask ("secret/quoted key, any case", "{\"PassWord\": 'x y'}", "{\"PassWord\": '***'}");
   check_mask ("secret/a URI password with '/' and ':'", "mongodb://a:p/w:4@h:1/db ok", "mongodb://a:*****@h:1/db ok");
   check_mask ("secret/a URI without user info", "mongodb://h:27017/db?x=1", "mongodb://h:27017/db?x=1");
   check_mask ("secret/one star per character (UTF-8)", "{pwd: \"pé\"}", "{pwd: \"**\"}");
   check_mask ("secret/escaped quote inside", "{pwd: \"a\\\"b\"}", "{pwd: \"****\"}");

   CHECK ("secret/history: any .auth( call",
          secret_line_is_sensitive ("db.getSiblingDB(\"admin\").auth(\"u\", \"x\")"));
   CHECK ("secret/history: auth after with blanks", secret_line_is_sensitive ("x.auth (\"u\")"));
   CHECK ("secret/history: createUser", secret_line_is_sensitive ("db.createUser({user: \"u\", roles: []})"));
   CHECK ("secret/history: pwd field", secret_line_is_sensitive ("db.adminCommand({updateUser: \"u\", pwd: \"x\"})"));
   CHECK ("secret/history: a URI password holding '/'", secret_line_is_sensitive ("connect to mongodb://u:p/w@h"));
   CHECK ("secret/history: ordinary lines stay",
          !secret_line_is_sensitive ("sh.status()") &&
             !secret_line_is_sensitive ("db.adminCommand({connectionStatus: 1})") &&
             !secret_line_is_sensitive ("db.authors.find()"));
   UNIT_EXIT ();
}
