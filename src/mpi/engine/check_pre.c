/* TRELLIS_CHECK's pre-exchange (check_pre.h): each rank's blocks, as
 * signatures, carried to the peers that receive them, and compared there. */
#include "mpi/engine/check_pre.h"

#include <stdlib.h>

#include "exec/mpi_impl.h"


trl_check_pre *trl_check_pre_new(trl_pre_kind kind, int root, int n_out, int n_in)
{
    trl_check_pre *p = calloc(1, sizeof *p);
    size_t slots = (size_t)(n_out + 2 * n_in + 2);
    trl_sig *s = calloc(slots, sizeof *s);
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)(n_in + n_out + 1));
    if (!p || !s || !reqs) {
        free(p);
        free(s);
        free(reqs);
        return NULL;
    }
    for (int i = 0; i < n_in + n_out + 1; i++)
        reqs[i] = MPI_REQUEST_NULL;
    *p = (trl_check_pre){kind, root, n_out, n_in, s,    s + n_out + 1, s + n_out + 1 + n_in,
                         NULL, NULL, reqs,  0,    false};
    return p;
}

void trl_check_pre_free(trl_check_pre *p)
{
    if (p) {
        for (int i = 0; i < p->n_reqs; i++)
            if (p->reqs[i] != MPI_REQUEST_NULL)
                return; /* abandoned in flight (an error): MPI may still write it */
        free(p->out);
        free(p->in_rank);
        free(p->out_rank);
        free(p->reqs);
    }
    free(p);
}

/* Start the exchange of p over the check communicator (trl_sig is two
 * int64s), or with wait run it (a blocking call's: the library's blocking
 * collectives cost a fraction of its non-blocking ones); tag: the call's
 * number, for the neighbour form's messages. */
int trl_check_pre_start(trl_check_pre *p, MPI_Comm check, int64_t seq, bool wait)
{
    MPI_Datatype t = MPI_INT64_T;
    void *out = p->out, *got = p->got;
    p->n_reqs = wait ? 0 : 1;
    MPI_Request *r = p->reqs;
    switch (p->kind) {
    case TRL_PRE_GATHER:
        return wait ? PMPI_Gather(out, 2, t, got, 2, t, p->root, check)
                    : PMPI_Igather(out, 2, t, got, 2, t, p->root, check, r);
    case TRL_PRE_SCATTER:
        return wait ? PMPI_Scatter(out, 2, t, got, 2, t, p->root, check)
                    : PMPI_Iscatter(out, 2, t, got, 2, t, p->root, check, r);
    case TRL_PRE_ALLGATHER:
        return wait ? PMPI_Allgather(out, 2, t, got, 2, t, check)
                    : PMPI_Iallgather(out, 2, t, got, 2, t, check, r);
    case TRL_PRE_ALLTOALL:
        return wait ? PMPI_Alltoall(out, 2, t, got, 2, t, check)
                    : PMPI_Ialltoall(out, 2, t, got, 2, t, check, r);
    case TRL_PRE_NEIGHBOR: {
        /* Edges between the same two ranks pair up in order on a graph; on
         * a Cartesian communicator by direction (a periodic dimension of
         * two has the same rank on both sides: what goes up arrives from
         * below), so there the tag names the direction. */
        int tag = (int)(seq % 1000) * 32, rc = MPI_SUCCESS;
        p->n_reqs = 0;
        for (int i = 0; i < p->n_in && rc == MPI_SUCCESS; i++)
            rc = PMPI_Irecv(&p->got[i], 2, t, p->in_rank[i], tag + (p->cart ? i ^ 1 : 0), check,
                            &p->reqs[p->n_reqs++]);
        for (int i = 0; i < p->n_out && rc == MPI_SUCCESS; i++)
            rc = PMPI_Isend(&p->out[i], 2, t, p->out_rank[i], tag + (p->cart ? i : 0), check,
                            &p->reqs[p->n_reqs++]);
        return rc == MPI_SUCCESS && wait ? PMPI_Waitall(p->n_reqs, p->reqs, TRL_STATUSES_IGNORE)
                                         : rc;
    }
    default: p->n_reqs = 0; return MPI_SUCCESS;
    }
}

int trl_check_pre_test(trl_check_pre *p, int *done)
{
    *done = 1;
    return p ? PMPI_Testall(p->n_reqs, p->reqs, done, TRL_STATUSES_IGNORE) : MPI_SUCCESS;
}

int trl_check_pre_wait(trl_check_pre *p)
{
    return p ? PMPI_Waitall(p->n_reqs, p->reqs, TRL_STATUSES_IGNORE) : MPI_SUCCESS;
}

/* After the exchange: LOCAL from the first block that differs. */
void trl_check_pre_compare(const trl_check_pre *p, int64_t *row)
{
    if (!p || p->kind == TRL_PRE_NONE || row[TRL_CK_LOCAL] != TRL_CK_LOCAL_OK)
        return;
    for (int i = 0; i < p->n_in; i++) {
        trl_sig want = p->in[i], got = p->got[i];
        if (want.bytes < 0 || trl_sig_match(want, got))
            continue;
        row[TRL_CK_LOCAL] = TRL_CK_LOCAL_PEER;
        row[TRL_CK_PEER] = p->in_rank ? p->in_rank[i] : i;
        row[TRL_CK_WANT] = want.bytes;
        row[TRL_CK_GOT] = got.bytes;
        return;
    }
}
