/* tracer/space/mapview.h: `ptap maps` -- the map table of a live process or of a
 * core dump, each mapping with its file's identity, build-id, load bias and
 * PT_LOAD segment, and how it prints (text like pmap, or JSON lines). */
#ifndef PTAP_TRACER_SPACE_MAPVIEW_H
#define PTAP_TRACER_SPACE_MAPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "dwarf/elfimage.h"

struct ptap_err;

/* Where a core holds a mapping's bytes. */
enum mapview_core {
	MV_CORE_NA,		/* a live process */
	MV_CORE_ALL,		/* all of them */
	MV_CORE_NONE,		/* none (not dumped) */
	MV_CORE_PART,		/* the first CORE_BYTES (an ELF header page) */
	MV_CORE_CUT,		/* would be, but the core file is truncated */
};

struct mapview_row {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of START, bytes */
	char perms[5];		/* "r-xp" as in /proc/PID/maps; a core: "r-x" (it does not
				 * say shared or private); a range only NT_FILE lists (gcore
				 * leaves out what it did not dump): its PT_LOAD's p_flags,
				 * else "???" */
	bool has_dev;		/* DEV_MAJOR/MINOR and INODE known (not for a core) */
	unsigned int dev_major, dev_minor;
	uint64_t inode;
	char *path;		/* the name without " (deleted)": a path, "/memfd:NAME",
				 * "[heap]", "[stack]", "[vdso]", "[anon:NAME]" ...; NULL:
				 * anonymous.  Owned. */
	bool deleted;		/* the kernel showed it with " (deleted)" */
	bool file;		/* backed by a file (memfd included) */
	uint8_t build_id[ELFIMAGE_MAX_BUILD_ID];
	size_t build_id_len;	/* 0: none known (not ELF, or not readable) */
	bool has_seg;		/* BIAS and SEG known */
	uint64_t bias;		/* load bias of the ELF file shown (runtime - link-time) */
	int seg;		/* index of its PT_LOAD among the file's PT_LOADs */
	bool bss;		/* anonymous: the zero-fill tail of segment SEG */
	bool has_rss;		/* --rss */
	uint64_t rss_kb, pss_kb, swap_kb;
	enum mapview_core in_core;
	uint64_t core_bytes;	/* bytes of it the core holds */
};

struct mapview {
	pid_t pid;
	char comm[64];
	char *exe;		/* live: /proc/PID/exe; core: AT_EXECFN; NULL when unknown */
	const char *source;	/* "procmap_query", "proc_maps" or "core" */
	char *core;		/* the core file's path (core only) */
	int signal;		/* core: the signal that dumped it, 0 */
	uint64_t core_missing;	/* core: bytes of the rows' contents the file lacks (cut off) */
	struct mapview_row *rows;
	size_t nrows, cap;
};

#define MAPVIEW_RSS	1u	/* add RSS, PSS and swap from /proc/PID/smaps */
#define MAPVIEW_TEXT	2u	/* read /proc/PID/maps even where PROCMAP_QUERY works */

/*
 * The live table of PID: PROCMAP_QUERY (with the kernel's build-ids) where
 * the kernel has it, else /proc/PID/maps; ELF headers from the mapped file
 * (/proc/PID/map_files, then the path if it is still the same file), else
 * from the process's memory.  0, or -errno with ERR naming the problem and
 * the fix (-ESRCH no such process, -EACCES/-EPERM not permitted and why).
 */
int mapview__live(pid_t pid, unsigned int flags, struct mapview **out, struct ptap_err *err);
/* The table a core dump describes (dwarf/core.h).  0, or -errno with ERR set. */
int mapview__core(const char *path, struct mapview **out, struct ptap_err *err);
void mapview__free(struct mapview *v);		/* NULL is fine */

/*
 * Open the file mapped at [START, END) of PID read-only: /proc/PID/map_files
 * (which reaches deleted files and memfds, given CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE), else PATH when it is still the file with DEV and
 * INO (st_dev, st_ino; both 0: not checked).  An fd, or -errno.
 */
int mapview__open_file(pid_t pid, uint64_t start, uint64_t end, const char *path, uint64_t dev,
		       uint64_t ino);

/*
 * Fill each ELF file's rows with BIAS/SEG (and BSS for the anonymous tail
 * after a segment) from IMGS[i], the image of ROWS[i]'s file (NULL: none):
 * for tests, and for both loaders.
 */
void mapview__attribute(struct mapview *v, const struct elfimage *const *imgs, uint64_t page);

/*
 * Text, one mapping per line under a header line, then a totals line:
 *   # ptap maps: pid 1234 (maps_zoo) /path/to/exe, via procmap_query
 *   START-END                              SIZE PERM PGOFF    DEV    INODE    SEG   BIAS            BUILD-ID  PATH
 *   000055d0c3a00000-000055d0c3a01000       4K r--p 00000000 08:01  1234567  L0    0x55d0c3a00000  3f2a..  /x/maps_zoo
 *   00007f0000000000-00007f0000021000     132K rw-p 00000000 00:00  0        -     -               -       [heap]
 *   00007f...                               4K rw-p 00000000 00:01  2049     -     -               -       /memfd:zoo-data (deleted)
 *   total: 23 mappings, 7892K
 * SEG is "L<k>" (PT_LOAD k), "L<k>.bss", or "-"; unknown fields are "-".
 * --rss adds RSS PSS SWAP columns (in K) before PATH and sums them in the
 * totals line ("total: 23 mappings, 7892K, rss 1204K, pss 1000K, swap 0K");
 * a core adds a CORE column ("all", "none", "4K" for a partial dump, "cut")
 * and "..., 1200K in the core" to the totals, and its header line names the
 * core file, the signal and any truncation.
 *
 * JSON lines (--format json), keys in this order, absent ones omitted:
 *   {"kind":"maps","source":"procmap_query","pid":1234,"comm":"maps_zoo",
 *    "exe":"/x/maps_zoo"[,"core":"/x/core","signal":11,"missing":N]}
 *   {"kind":"map","start":"0x55d0c3a00000","end":"0x55d0c3a01000","size":4096,
 *    "perms":"r--p","pgoff":0,"dev":"08:01","inode":1234567,"path":"/x/maps_zoo",
 *    "deleted":false,"build_id":"3f2a..","bias":"0x55d0c3a00000","segment":0,"bss":false
 *    [,"rss_kb":4,"pss_kb":4,"swap_kb":0][,"core":"all","core_bytes":4096]}
 *   {"kind":"total","mappings":23,"size":8081408[,"rss_kb":..,"pss_kb":..,"swap_kb":..]
 *    [,"core_bytes":N]}
 * "dev" and "inode" are null when unknown (a core); "path", "build_id",
 * "bias" and "segment" are null when there is none.
 * Returns 0, or -errno of a failed write.
 */
int mapview__print_text(const struct mapview *v, FILE *f);
int mapview__print_json(const struct mapview *v, FILE *f);

#endif
