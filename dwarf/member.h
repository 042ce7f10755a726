/* dwarf/member.h: where a member of a named struct lies, from a module's
 * DWARF -- what code ptap runs in a target (the agent, agent/agent.h) needs
 * of a runtime's own structures: glibc's struct pthread holds each thread's
 * tid at a fixed offset from the thread pointer. */
#ifndef PTAP_DWARF_MEMBER_H
#define PTAP_DWARF_MEMBER_H

#include <stdint.h>

/*
 * The offset of MEMBER in "struct TYPE", from the DWARF of the ELF file PATH
 * (its own, or its separate debug file; DEBUGINFO_DIR may be NULL): the
 * first complete definition found.  0 with *OFF, -ENOENT (no DWARF, no such
 * struct or member, or no constant offset), or -errno.
 */
int dwarf_member_offset(const char *path, const char *debuginfo_dir, const char *type,
			const char *member, uint64_t *off);

#endif
