/* passes: plain asan */
/* Confirmation answers (issue 18): y and yes (any case) alone on the line run a destructive command; anything else
 * refuses it. */
#include "commands/effect.h"
#include "tests/unit/unit.h"

int
main (void)
{
   CHECK ("confirm y", confirm_answer_yes ("y\n"));
   CHECK ("confirm Y", confirm_answer_yes ("Y\n"));
   CHECK ("confirm yes", confirm_answer_yes ("yes\n"));
   CHECK ("confirm YES with CRLF", confirm_answer_yes ("YES\r\n"));
   CHECK ("confirm yes at end of input", confirm_answer_yes ("yes"));
   CHECK ("confirm empty refuses", !confirm_answer_yes ("\n"));
   CHECK ("confirm n refuses", !confirm_answer_yes ("n\n"));
   CHECK ("confirm yess refuses", !confirm_answer_yes ("yess\n"));
   CHECK ("confirm ' y' refuses", !confirm_answer_yes (" y\n"));
   CHECK ("confirm ye refuses", !confirm_answer_yes ("ye\n"));
   UNIT_EXIT ();
}
