/* agent/agent_blob.h: the agent (agent.h) as ptap carries it: the bytes to
 * map into a target, executable, at any address, where in them
 * agent_hit() starts, and where its one faulting read is.  The bytes are generated from agent/agent.c (and the
 * evaluator and ring it runs) by the Makefile. */
#ifndef PTAP_AGENT_AGENT_BLOB_H
#define PTAP_AGENT_AGENT_BLOB_H

#include <stddef.h>

extern const unsigned char agent_blob[];
extern const size_t agent_blob_len;
extern const size_t agent_entry_off;
/* agent_copy's read of the process's memory, and where a thread that faulted there goes on */
extern const size_t agent_copy_read_off, agent_copy_fault_off;
/* agent_copy_str's, likewise */
extern const size_t agent_copy_str_read_off, agent_copy_str_fault_off;

#endif
