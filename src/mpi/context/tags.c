#include "mpi/context/tags.h"

#include <stdlib.h>

#include "sched/sched.h"

/* Forms of call (blocking, non-blocking, persistent): each counts its tag
 * ranges apart. */
enum { CALL_KINDS = TRL_CALL_PERSISTENT + 1 };

/* Ranges per counter, after slots or the classes changed. */
static void count_groups(trl_tags *t)
{
    int groups = CALL_KINDS * (t->class_seq ? t->nclasses : 1);
    t->per_group = t->slots / groups;
}

/* Ranges of span tags below the spare ones (trl_tags_spare): the last
 * range is given up for them where ub + 1 is a multiple of span (32767
 * ranges of 64K with 2^31 - 1 tags: per_group, a third of them, is the
 * same as with 32768). At least one. */
static int ranges(const trl_tags *t)
{
    long n = ((long)t->ub + 1 - TRL_TAGS_SPARE) / t->span;
    return n > 0 ? (int)n : 1;
}

void trl_tags_init(trl_tags *t, int ub)
{
    *t = (trl_tags){.ub = ub};
    /* Ranges of 64K tags, as many as fit (32768 with Open MPI's and
     * MPICH's 2^31 - 1); a library with fewer tags gets one range. With
     * the 32767 tags MPI guarantees a span is 32768, a multiple of the
     * schedules' tag period, as the order of messages that share a tag
     * needs (TRL_SCHED_TAG_PERIOD). A library with fewer (against the
     * standard) still gets a range that fits, never an empty one. */
    _Static_assert(32768 % TRL_SCHED_TAG_PERIOD == 0, "spans are multiples of the period");
    t->span = 1 << 16;
    while (t->span > 1 && (long)t->span - 1 > (long)t->ub)
        t->span >>= 1;
    t->slots = ranges(t);
    /* At least 16 ranges for each form of call where spans of a tag period
     * allow it: 21 each with 32767 tags. */
    while (t->span > TRL_SCHED_TAG_PERIOD && t->slots < 16 * CALL_KINDS) {
        t->span >>= 1;
        t->slots = ranges(t);
    }
    count_groups(t);
}

void trl_tags_free(trl_tags *t)
{
    free(t->class_seq);
    t->class_seq = NULL;
}

void trl_tags_next(trl_tags *t, trl_call_kind call, int tag_class, int *base, int *span)
{
    *span = t->span;
    /* The counter of the call's group: its form of call, then its class. */
    int classes = t->class_seq ? t->nclasses : 1;
    int g = (int)call * classes + (t->class_seq ? tag_class % classes : 0);
    unsigned *seq = t->class_seq ? &t->class_seq[g] : &t->seq[g];
    unsigned n = (*seq)++;
    int per = t->per_group;
    if (per > 0 && call == TRL_CALL_PERSISTENT) {
        /* A persistent call keeps its range while its request lives, and
         * the program may keep any number alive: its group's ranges are cut
         * into ranges of one tag period, which every schedule can run in
         * (messages a period apart already wait for each other, sched.h),
         * so that ranges come back only after per x span / period inits
         * (2.8 million with 2^31 tags). */
        unsigned small = (unsigned)per * (unsigned)(t->span / TRL_SCHED_TAG_PERIOD);
        if (*seq == small)
            *seq = 0;
        *span = TRL_SCHED_TAG_PERIOD;
        *base = (int)((long)g * per * t->span + (long)n * TRL_SCHED_TAG_PERIOD);
        return;
    }
    if (per > 0) {
        /* Every call of every form passes here: a counter that wraps, no
         * division. */
        if (*seq == (unsigned)per)
            *seq = 0;
        *base = (g * per + (int)n) * t->span;
        return;
    }
    unsigned groups = (unsigned)(CALL_KINDS * classes); /* groups share the ranges */
    *base = (int)(((unsigned)g + n * groups) % (unsigned)t->slots) * t->span;
}

bool trl_tags_classes(trl_tags *t, int n)
{
    unsigned *seq = calloc((size_t)n * CALL_KINDS, sizeof *seq);
    if (!seq)
        return false;
    free(t->class_seq);
    t->class_seq = seq;
    t->nclasses = n;
    while (t->span > TRL_SCHED_TAG_PERIOD && t->slots / (n * CALL_KINDS) < 16) {
        t->span >>= 1;
        t->slots = ranges(t);
    }
    count_groups(t);
    return true;
}

int trl_tags_spare(const trl_tags *t, int which)
{
    return t->slots * t->span + which;
}
