/* tracer/events/mmapev.h: `--events mmap` -- the map table's changes as records of
 * kind "mmap" (perf's PERF_RECORD_MMAP2): the target's mmap, munmap,
 * mprotect and mremap, the mappings present when tracing of an address space
 * starts ("map"), and what an attached process's r_brk resync found changed.
 * Each file mapping names its file, dev:inode and the ELF build-id. */
#ifndef PTAP_TRACER_EVENTS_MMAPEV_H
#define PTAP_TRACER_EVENTS_MMAPEV_H

#include <stddef.h>
#include <stdint.h>

struct map_entry;
struct mmapev;
struct session;
struct thread;

/*
 * The session's state: a small cache of build-ids by (dev, inode), so that
 * the loader's several mmaps of one file read it once.  0 or -ENOMEM.
 */
int mmapev__new(struct mmapev **out);
void mmapev__free(struct mmapev *m);		/* NULL is fine */

/*
 * PROT as "r-x" ("---" for PROT_NONE); other bits follow as the --syscalls
 * decoder names them ("rw-|PROT_GROWSDOWN").  Into BUF (LEN bytes, NUL-
 * terminated); returns the length, 0 when LEN is too small.
 */
size_t mmapev__prot(uint64_t prot, char *buf, size_t len);
/* FLAGS as "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE", the rest in hex; as mmapev__prot(). */
size_t mmapev__flags(uint64_t flags, char *buf, size_t len);

/*
 * T's map-changing syscall (T->sc_nr with T->sc_args) returned RET, at its
 * exit stop: its record ("mmap", "munmap", "mprotect", "mremap").  For mmap,
 * E is the mapping as entered in the table (its file's identity and path);
 * the build-id is read through /proc/TGID/fd/N, still open.  Nothing unless
 * --events mmap and T is followed.
 */
void mmapev_syscall(struct session *s, const struct thread *t, uint64_t ret,
		    const struct map_entry *e);
/*
 * Tracing of T's address space starts (attach, exec) with its table loaded:
 * one "map" record per mapping in it.
 */
void mmapev_table(struct session *s, const struct thread *t);
/*
 * An attached process's r_brk resync (attach.c) found E new (EVENT "mmap"),
 * gone ("munmap") or with new permissions ("mprotect"): its record.
 */
void mmapev_entry(struct session *s, const struct thread *t, const char *event,
		  const struct map_entry *e);
/* The longest record these write, for sizing the output's buffer. */
size_t mmapev_max_len(void);

#endif
