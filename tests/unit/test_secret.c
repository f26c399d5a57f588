/* passes: plain asan */
/* The one secret rule (shell/lib/secret.c, issue 31): what the source-text mask hides (connection-string passwords up
 * to the last '@', so an unescaped '/' or ':' stays hidden; pwd/password fields; the password argument of auth() and
 * changeUserPassword(), connect()'s third), that it keeps columns, which lines the history leaves out, and the
 * credentials a document shows. */
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

/* usersInfo's showCredentials: the salts and keys of every mechanism become ****, iteration counts stay, at any depth
 * (a users array); a document without credentials is not said to hold them. */
static void
check_credentials (void)
{
   bson_t *reply = BCON_NEW ("users", "[", "{", "user", BCON_UTF8 ("u"), "credentials", "{", "SCRAM-SHA-256", "{",
                             "iterationCount", BCON_INT32 (15000), "salt", BCON_UTF8 ("c2FsdA=="), "storedKey",
                             BCON_UTF8 ("a2V5MQ=="), "serverKey", BCON_UTF8 ("a2V5Mg=="), "}", "}", "}", "]");
   bson_t *plain = BCON_NEW ("user", BCON_UTF8 ("u"), "db", BCON_UTF8 ("credentials"));
   bson_t shown = BSON_INITIALIZER;
   char *json;
   CHECK ("secret/credentials: found in a users array", secret_doc_has_credentials (reply));
   CHECK ("secret/credentials: not in a document without them", !secret_doc_has_credentials (plain));
   secret_redact_doc (reply, &shown);
   json = bson_as_relaxed_extended_json (&shown, NULL);
   CHECK ("secret/credentials: salt and keys hidden", strstr (json, "c2FsdA") == NULL &&
                                                         strstr (json, "a2V5") == NULL &&
                                                         strstr (json, "\"storedKey\" : \"****\""));
   CHECK ("secret/credentials: iteration count kept", strstr (json, "\"iterationCount\" : 15000") != NULL);
   bson_free (json);
   bson_destroy (&shown);
   bson_destroy (reply);
   bson_destroy (plain);
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
   check_credentials ();
   UNIT_EXIT ();
}
