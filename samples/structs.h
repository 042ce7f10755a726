/* samples/structs.h: the types and functions samples/structs.c and
 * samples/structs2.c share (one program; see structs.c). */
#ifndef PTAP_SAMPLES_STRUCTS_H
#define PTAP_SAMPLES_STRUCTS_H

#include <stdbool.h>

/* Probed functions: never inlined or cloned, so each has one entry whose
 * parameters are the caller's values. */
#define PROBED __attribute__((noinline, noclone))

/* A signed enum (BLUE is negative); show_floats() also gets a value that
 * has no enumerator. */
enum color { RED, GREEN = 5, BLUE = -1 };

struct point {
	int x;
	int y;
};

struct inner {
	short id;
	unsigned char tag;
	char name[8];		/* NUL-terminated */
};

struct outer {
	int kind;
	struct inner inner;	/* nested struct */
	struct point *origin;	/* pointer member */
	const char *label;	/* char * member: hex inside a whole struct */
	enum color color;
	int vals[4];
	double weight;
	bool on;
};

union number {
	int i;
	float f;
	unsigned int u;
	short half[2];
};

/* Bitfields: MODE crosses a byte boundary and starts at bit 4; LEVEL,
 * DELTA and BIG are signed; BIG lives in a 64-bit container. */
struct flags {
	unsigned int ready : 1;
	signed int level : 3;
	unsigned int mode : 5;
	signed int delta : 7;
	unsigned char code;
	unsigned int wide : 20;
	signed long long big : 36;
};

/* Typedef chains and qualifiers. */
typedef struct point point_t;
typedef point_t pos_t;			/* typedef of a typedef of a struct */
typedef const volatile pos_t cv_pos_t;	/* and qualified */
typedef int count_t;
typedef volatile count_t vcount_t;

struct grid {
	int cells[2][3];
	char tag[4];		/* always full: no NUL */
	char note[6];
};

int bump2(int by);
int show_inner2(const struct inner *in);

#endif
