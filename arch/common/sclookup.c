/* arch/common/sclookup.c: finding a call in the native system call table
 * (arch_sc_table(), per architecture) by number or name, strace's class
 * names, and how many arguments a call shows.  The same on every Linux
 * architecture.  Pure: no ptrace, no allocation. */
#include <fcntl.h>
#include <string.h>

#include "arch/sctable.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

unsigned int sc_nargs(const struct sc_desc *d, const uint64_t args[6])
{
	unsigned int n = d->nargs;

	/* mq_open's mode is not last (its attr, which the kernel reads anyway, follows) */
	if (n >= 2 && d->args[n - 2] == SA_OPEN_FLAGS && d->args[n - 1] == SA_MODE &&
	    !(args[n - 2] & O_CREAT) && (args[n - 2] & O_TMPFILE) != O_TMPFILE)
		return n - 1;
	return n;
}

/*
 * The numbers of an ABI start at 0 and are dense for most of the table
 * (x86-64: 0..334), so the row of NR is usually row NR; else binary search.
 */
const struct sc_desc *sc_by_nr(long nr)
{
	size_t lo = 0, hi;
	const struct sc_desc *tab = arch_sc_table(&hi);

	if (nr >= 0 && (size_t)nr < hi && tab[nr].nr == nr)
		return &tab[nr];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab[mid].nr == nr)
			return &tab[mid];
		if (tab[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct sc_desc *sc_by_name(const char *name)
{
	const struct sc_alias *aliases;
	const struct sc_desc *tab;
	size_t i, n;

	tab = arch_sc_table(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	aliases = arch_sc_aliases(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(aliases[i].alias, name))
			return sc_by_name(aliases[i].name);
	return NULL;
}

unsigned int sc_class(const char *cls)
{
	static const struct {
		const char *name;
		unsigned int bits;
	} classes[] = {
		{ "%file", SC_FILE },		{ "%desc", SC_DESC },
		{ "%net", SC_NET },		{ "%network", SC_NET },
		{ "%memory", SC_MEMORY },	{ "%process", SC_PROCESS },
		{ "%signal", SC_SIGNAL },	{ "%ipc", SC_IPC },
		{ "%creds", SC_CREDS },		{ "%clock", SC_CLOCK },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(classes); i++)
		if (!strcmp(classes[i].name, cls))
			return classes[i].bits;
	return 0;
}
