/* dwarf/site.c: the sites a glob leaves out (struct site_skips,
 * dwarf/site.h): each said at -v, the first few kept for the message. */
#include <stdio.h>
#include <string.h>

#include "dwarf/site.h"
#include "probes/log.h"

void site_skips__add(struct site_skips *sk, const char *where, const char *why)
{
	bool named = strstr(why, where) != NULL;

	pr_info("left out: %s%s%s\n", named ? "" : where, named ? "" : ": ", why);
	if (!sk)
		return;
	if (sk->n < SITE_SKIPS_SHOWN)
		snprintf(sk->first[sk->n], sizeof(sk->first[0]), "%s%s%s", named ? "" : where,
			 named ? "" : ": ", why);
	sk->n++;
}
