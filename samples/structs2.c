/* samples/structs2.c: the second file of the structs sample: a file-static
 * `counter` with the name of structs.c's global (`counter@structs2.c`). */
#include <string.h>

#include "structs.h"

static int counter;

/* Adds BY to this file's counter; returns the new value. */
PROBED int bump2(int by)
{
	counter += by;
	return counter;
}

PROBED int show_inner2(const struct inner *in)
{
	return counter + in->id + (int)strlen(in->name);
}
