/* samples/libsplit_link.c: a shared library whose debug information is
 * moved to a separate file found by its .gnu_debuglink section
 * (build/samples/libsplit_link.so.debug, next to the library).  Built at
 * -O0 -g, so that its frame base needs the call frame information. */
#include <string.h>

#include "split.h"

__attribute__((noinline, noclone)) int link_store(const struct link_item *it, const char *key)
{
	return (int)it->seq + it->tag[0] + it->flags + (int)strlen(key);
}
