/* samples/libsplit_bid.c: a shared library whose debug information is
 * moved to a separate file found by build-id (the Makefile extracts it to
 * build/samples/debug/.build-id/NN/REST.debug and strips the library with
 * strip -g).  Built at -O2 -g. */
#include <string.h>

#include "split.h"

__attribute__((noinline, noclone)) int bid_store(const struct bid_item *it, const char *key)
{
	return it->id + (int)strlen(it->name) + (int)it->price + (int)it->state + (int)strlen(key);
}
