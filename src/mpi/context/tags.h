/* A communicator's tag ranges. Each run of a schedule on it takes the next
 * of `slots` ranges of `span` tags, so runs that overlap (non-blocking
 * calls, a blocking one among them) never match each other's messages.
 * MPI's rule that every rank starts the collectives of a communicator in
 * the same order keeps the ranks' counts in step. Blocking, non-blocking
 * and persistent calls count apart, each in its own share of the ranges,
 * as the MPI libraries keep them apart (a program that calls a blocking
 * and a non-blocking collective in different orders on different ranks
 * still runs); a persistent call takes its range once, at its init (MPI
 * matches persistent calls by the order of their inits). */
#ifndef TRL_MPI_TAGS_H
#define TRL_MPI_TAGS_H

#include <stdbool.h>

#include "algo/algo.h"

typedef struct {
    int ub; /* the largest tag MPI allows */
    unsigned seq[TRL_CALL_PERSISTENT + 1];
    int slots, span;
    int per_group; /* ranges each counter cycles through; 0: counters share
                      the ranges (more counters than ranges) */
    /* An intercommunicator's merged communicator counts runs per class
     * (trl_tags_classes): the ranks of the root's group other than the
     * root take no part in a rooted call, so one counter for all calls
     * would fall out of step between them and the others; each root's
     * calls count apart, among the ranks that take part in them (and per
     * form of call: nclasses x 3 counters). NULL: one class, seq. */
    unsigned *class_seq;
    int nclasses;
} trl_tags;

/* Tags past every range, each for messages of one fixed purpose that
 * are not a schedule's (their order on each pair of ranks is the order of
 * the calls that send them): TRL_TAG_SIZES_INIT, a persistent
 * neighbourhood call's block sizes, which a host's ranks send the ranks
 * that carry its traffic at its init (entry/neighbor_sizes.c);
 * TRL_TAG_SIZES_NONBLOCKING, the same at a non-blocking call (each form
 * counts apart, as the tag ranges do). A blocking call's run as a schedule,
 * in a tag range of its own. */
enum { TRL_TAG_SIZES_INIT, TRL_TAG_SIZES_NONBLOCKING, TRL_TAGS_SPARE };

/* Ranges for a communicator whose largest tag is ub. */
void trl_tags_init(trl_tags *t, int ub);
void trl_tags_free(trl_tags *t);

/* The tag range of the next run of a call of this form and tag class (a
 * cache entry's: cache.h) (of a persistent call: of its init). */
void trl_tags_next(trl_tags *t, trl_call_kind call, int tag_class, int *base, int *span);

/* The spare tag `which` (TRL_TAG_SIZES_INIT, ...). MPI's smallest
 * largest tag, 32767, leaves 63 ranges of 512 and 512 tags past them. */
int trl_tags_spare(const trl_tags *t, int which);

/* Count runs in n classes (an intercommunicator's merged communicator:
 * 1 + its size), each with its own share of the tag ranges; the ranges
 * shrink where the classes would otherwise get fewer than 16 each. false
 * when out of memory (t unchanged). */
bool trl_tags_classes(trl_tags *t, int n);

#endif
