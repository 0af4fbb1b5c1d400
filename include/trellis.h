/* Trellis: run-time configurable, topology-aware collectives for MPI.
 *
 * Programs need nothing from this header: libtrellis.so takes over their
 * collectives through the MPI profiling interface. It is for tools that
 * want to know whether Trellis is loaded, or to change its rules while
 * they run. A program that must also run without Trellis looks the
 * functions up with dlsym(RTLD_DEFAULT, "trellis_version") and
 * dlsym(RTLD_DEFAULT, "trellis_set_rules"): NULL when it is not loaded. */
#ifndef TRELLIS_H
#define TRELLIS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "trellis <version>" */
const char *trellis_version(void);

/* Replace the rules given in TRELLIS_RULES (docs/rules.md, "Replacing the
 * rules at run time"). text holds rules as TRELLIS_RULES takes them inline,
 * separated by newlines or ';'; NULL or "" means no rules of the user's (the
 * built-in rules alone). Returns 0 when the rules are in force: every
 * collective called from then on is chosen by them.
 *
 * On an error returns non-zero, leaves the rules in force as they were, and
 * writes into err (when err is not NULL and errlen > 0; truncated to errlen,
 * NUL-terminated) one line: a mistake in the text located as TRELLIS_RULES'
 * are, with the source "trellis_set_rules" ("trellis_set_rules:2:7: unknown
 * algorithm 'ringg' for bcast (...)"), or why no rules can be set
 * ("trellis_set_rules: called before MPI_Init: ..."). Rules can be set only
 * between MPI_Init (or MPI_Init_thread) and MPI_Finalize.
 *
 * A local call: it communicates with no other rank. Every rank of a
 * communicator must have the same rules in force when it enters a
 * collective, or the ranks could run different schedules and never finish:
 * call it with the same text on every rank, between the same two
 * collectives, and not while another thread of the process is inside a
 * collective. Calls already started (non-blocking ones in flight) keep
 * their schedules, and a persistent collective keeps the algorithm chosen
 * at its MPI_Xxx_init for all its starts. */
int trellis_set_rules(const char *text, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
