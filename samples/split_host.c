/* samples/split_host.c: calls into libsplit_bid.so and libsplit_link.so,
 * whose debug information is in separate files.
 *
 * When fd 3 is open, the program states there what ptap prints (text,
 * normalized) for these probes, one line per hit:
 *
 *   -x libsplit_bid.so --debuginfo-dir build/samples/debug
 *	-e 'bid_store it->id it->name it->price it->state key'
 *   -x libsplit_link.so
 *	-e 'link_store it->seq it->tag it->flags key *it'
 *
 * stdout gets the sum of the results; the exit status is 0.
 */
#include <stdio.h>

#include "expect.h"
#include "split.h"

static const char *const state_names[] = { "0", "BID_OPEN", "BID_WON", "BID_LOST" };

int main(void)
{
	static const struct bid_item bids[3] = {
		{ 1, "lamp", 12.5, BID_OPEN },
		{ -2, "chair \"oak\"", 0.1, BID_WON },
		{ 300000, "", -7e-5, BID_LOST },
	};
	static const struct link_item links[3] = {
		{ 10, "alpha", 1 },
		{ -1099511627776L, "tab\t", 65535 },
		{ 0, "", 0 },
	};
	static const char *const keys[3] = { "k1", "k\\2", "caf\xc3\xa9" };
	FILE *ex = ex_open();
	long sum = 0;

	for (int i = 0; i < 3; i++) {
		const struct bid_item *b = &bids[i];
		const struct link_item *l = &links[i];

		if (ex) {
			fprintf(ex, "bid_store: it->id=%d it->name=", b->id);
			ex_str(ex, b->name);
			fputs(" it->price=", ex);
			ex_double(ex, b->price);
			fprintf(ex, " it->state=%s key=", state_names[b->state]);
			ex_str(ex, keys[i]);
			fprintf(ex, "\nlink_store: it->seq=%ld it->tag=", l->seq);
			ex_chars(ex, l->tag, sizeof(l->tag));
			fprintf(ex, " it->flags=%u key=", l->flags);
			ex_str(ex, keys[i]);
			fprintf(ex, " *it={seq=%ld, tag=", l->seq);
			ex_chars(ex, l->tag, sizeof(l->tag));
			fprintf(ex, ", flags=%u}\n", l->flags);
		}
		sum += bid_store(b, keys[i]);
		sum += link_store(l, keys[i]);
	}
	printf("split_host: sum %ld\n", sum);
	if (ex)
		fclose(ex);
	return 0;
}
