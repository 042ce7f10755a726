/* samples/split.h: the interface of libsplit_bid.so and libsplit_link.so,
 * two libraries whose debug information lives in separate files (found by
 * build-id and by .gnu_debuglink), and of their host, samples/split_host.c. */
#ifndef PTAP_SAMPLES_SPLIT_H
#define PTAP_SAMPLES_SPLIT_H

enum bid_state { BID_OPEN = 1, BID_WON, BID_LOST };

struct bid_item {
	int id;
	const char *name;
	double price;
	enum bid_state state;
};

struct link_item {
	long seq;
	char tag[6];
	unsigned short flags;
};

/* Both return a number that depends on every field they are given. */
int bid_store(const struct bid_item *it, const char *key);
int link_store(const struct link_item *it, const char *key);

#endif
