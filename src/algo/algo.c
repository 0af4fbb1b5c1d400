/* The collectives, lookups over the algorithm table, sizes, and building a
 * schedule. Parameters are in params.c. */
#include "algo/algo.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

static const char *const coll_names[] = {
#define TRL_COLL_NAME(id, name, mpi) name,
    TRL_COLL_MAP(TRL_COLL_NAME)
#undef TRL_COLL_NAME
};

static const char *const coll_mpi_names[] = {
#define TRL_COLL_MPI_NAME(id, name, mpi) mpi,
    TRL_COLL_MAP(TRL_COLL_MPI_NAME)
#undef TRL_COLL_MPI_NAME
};

const char *trl_coll_mpi_name(trl_coll c)
{
    return (unsigned)c < TRL_COLL_COUNT ? coll_mpi_names[c] : "?";
}

void trl_coll_call_name(trl_coll c, trl_call_kind k, char *buf, size_t len)
{
    const char *mpi = trl_coll_mpi_name(c);
    if (k == TRL_CALL_NONBLOCKING)
        snprintf(buf, len, "MPI_I%c%s", tolower((unsigned char)mpi[4]), mpi + 5);
    else
        snprintf(buf, len, "%s%s", mpi, k == TRL_CALL_PERSISTENT ? "_init" : "");
}

const char *trl_coll_name(trl_coll c)
{
    return (unsigned)c < TRL_COLL_COUNT ? coll_names[c] : "?";
}

static bool same(const char *name, const char *text, size_t len)
{
    return strlen(name) == len && memcmp(name, text, len) == 0;
}

bool trl_coll_is_rooted(trl_coll c)
{
    return c == TRL_COLL_BCAST || c == TRL_COLL_REDUCE || c == TRL_COLL_GATHER ||
           c == TRL_COLL_GATHERV || c == TRL_COLL_SCATTER || c == TRL_COLL_SCATTERV;
}

bool trl_coll_is_reduction(trl_coll c)
{
    return c == TRL_COLL_REDUCE || c == TRL_COLL_ALLREDUCE || c == TRL_COLL_REDUCE_SCATTER ||
           c == TRL_COLL_REDUCE_SCATTER_BLOCK || c == TRL_COLL_SCAN || c == TRL_COLL_EXSCAN;
}

bool trl_coll_is_vector(trl_coll c)
{
    return c == TRL_COLL_GATHERV || c == TRL_COLL_SCATTERV || c == TRL_COLL_ALLGATHERV ||
           c == TRL_COLL_ALLTOALLV || c == TRL_COLL_ALLTOALLW || c == TRL_COLL_REDUCE_SCATTER ||
           c == TRL_COLL_NEIGHBOR_ALLGATHERV || c == TRL_COLL_NEIGHBOR_ALLTOALLV ||
           c == TRL_COLL_NEIGHBOR_ALLTOALLW;
}

bool trl_coll_is_neighbor(trl_coll c)
{
    return c >= TRL_COLL_NEIGHBOR_ALLGATHER && c <= TRL_COLL_NEIGHBOR_ALLTOALLW;
}

/* A neighbourhood allgatherv's senders may each send their own count. */
bool trl_coll_has_bytes(trl_coll c)
{
    return c != TRL_COLL_BARRIER && c != TRL_COLL_GATHERV && c != TRL_COLL_SCATTERV &&
           c != TRL_COLL_ALLTOALLV && c != TRL_COLL_ALLTOALLW &&
           c != TRL_COLL_NEIGHBOR_ALLGATHERV && c != TRL_COLL_NEIGHBOR_ALLTOALLV &&
           c != TRL_COLL_NEIGHBOR_ALLTOALLW;
}

int trl_coll_from_name(const char *name, size_t len)
{
    for (int c = 0; c < TRL_COLL_COUNT; c++)
        if (same(coll_names[c], name, len))
            return c;
    return -1;
}

const trl_algo *trl_algo_find(trl_coll coll, const char *name, size_t len)
{
    for (const trl_algo *a = trl_algorithms; a->name; a++)
        if (a->coll == coll && same(a->name, name, len))
            return a;
    return NULL;
}

bool trl_algo_nestable(const trl_algo *a)
{
    if (!a->build || (a->needs & TRL_NEEDS_INTER))
        return false;
    for (const trl_param_spec *p = a->params; p && p->name; p++)
        if (p->flags & TRL_PARAM_REQUIRED)
            return false;
    return true;
}

void trl_algo_names(trl_coll coll, bool nestable_only, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const trl_algo *a = trl_algorithms; a->name && used < len; a++) {
        if (a->coll != coll || (nestable_only && !trl_algo_nestable(a)))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", a->name);
        used += n > 0 ? (size_t)n : 0;
    }
}

const trl_param_spec *trl_algo_param(const trl_algo *a, const char *name, size_t len)
{
    for (const trl_param_spec *p = a->params; p && p->name; p++)
        if (same(p->name, name, len))
            return p;
    return NULL;
}

size_t trl_parse_size(const char *text, size_t len, unsigned long long *out)
{
    size_t i = 0;
    unsigned long long v = 0;
    while (i < len && isdigit((unsigned char)text[i])) {
        unsigned d = (unsigned)(text[i] - '0');
        if (v > (~0ULL - d) / 10)
            return 0;
        v = v * 10 + d;
        i++;
    }
    if (i == 0)
        return 0;
    if (i < len) {
        /* Either case: the grammar of sizes everywhere (rules, parameters,
         * the command's --bytes and --sizes: trellis.native.parse_size). */
        int unit = toupper((unsigned char)text[i]);
        int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
        if (shift) {
            if (v > (~0ULL >> shift))
                return 0;
            v <<= shift;
            i++;
        }
    }
    *out = v;
    return i;
}

void trl_format_size(unsigned long long v, char *buf, size_t len)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        int shift = 30 - 10 * i;
        if (v && v % (1ULL << shift) == 0) {
            snprintf(buf, len, "%llu%c", v >> shift, suffix[i]);
            return;
        }
    }
    snprintf(buf, len, "%llu", v);
}

int trl_algo_build(const trl_algo *algo, const trl_coll_args *a, trl_sched *s)
{
    trl_coll_args args = *a;
    args.algo = algo;
    int rc = trl_sched_init(s, a->rank, a->size);
    if (rc)
        return rc;
    rc = algo->build(&args, s);
    if (rc == TRL_OK)
        rc = trl_sched_finish(s);
    if (rc)
        trl_sched_free(s);
    return rc;
}
