/* One call as explain and simulate take it: the command line's options,
 * the call's shape (counts, an intercommunicator's groups), and the rules,
 * layout and choice resolved as the runtime resolves them. */
#include "info_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info_common.h"

static bool parse_bytes(const char *text, unsigned long long *out)
{
    size_t len = strlen(text);
    return len > 0 && trl_parse_size(text, len, out) == len;
}

static void coll_list(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int c = 0; c < TRL_COLL_COUNT && at < len; c++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", c ? ", " : "",
                               trl_coll_name((trl_coll)c));
}

/* Options take their value as the next argument or after '='. simulate
 * takes --model, --delay and --out instead of --rank and the output forms. */
int parse_call_args(int argc, char **argv, explain_opts *o, bool simulate)
{
    *o = (explain_opts){
        .root = 0, .elem_size = 1, .commutative = true, .only_rank = -1, .simulate = simulate};
    const char *cmd = simulate ? "simulate" : "explain";
    char names[512];
    coll_list(names, sizeof names);
    if (argc < 1 || argv[0][0] == '-')
        return usage_error("%s: which collective? one of %s", cmd, names);
    int c = trl_coll_from_name(argv[0], strlen(argv[0]));
    if (c < 0)
        return usage_error("%s: unknown collective '%s' (one of %s)", cmd, argv[0], names);
    o->coll = (trl_coll)c;
    bool ranks_given = false, mode_given = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        size_t name_len = strcspn(arg, "=");
        const char *value = arg[name_len] == '=' ? arg + name_len + 1 : NULL;
        char name[64];
        if (name_len >= sizeof name)
            return usage_error("%s: unknown option '%s'", cmd, arg);
        memcpy(name, arg, name_len);
        name[name_len] = '\0';

        bool is_form = !strcmp(name, "--steps") || !strcmp(name, "--goal") ||
                       !strcmp(name, "--json");
        bool is_flag = !strcmp(name, "--noncommutative") || !strcmp(name, "--nonblocking") ||
                       (is_form && !simulate);
        if (is_flag) {
            if (value)
                return usage_error("%s: %s takes no value", cmd, name);
            if (!strcmp(name, "--noncommutative")) {
                o->commutative = false;
                continue;
            }
            if (!strcmp(name, "--nonblocking")) {
                o->nonblocking = true;
                continue;
            }
            if (mode_given)
                return usage_error("%s: use only one of --steps, --goal and --json", cmd);
            mode_given = true;
            o->mode = !strcmp(name, "--steps")  ? OUT_STEPS
                      : !strcmp(name, "--goal") ? OUT_GOAL
                                                : OUT_JSON;
            continue;
        }
        bool sim_only = !strcmp(name, "--model") || !strcmp(name, "--delay") ||
                        !strcmp(name, "--out");
        bool takes_value = !strcmp(name, "--ranks") || !strcmp(name, "--bytes") ||
                           !strcmp(name, "--root") || !strcmp(name, "--elem-size") ||
                           !strcmp(name, "--rules") || !strcmp(name, "--topology") ||
                           !strcmp(name, "--neighbors") || (!strcmp(name, "--rank") && !simulate) ||
                           (sim_only && simulate) || (!strcmp(name, "--remote-ranks") && !simulate);
        if (simulate && !strcmp(name, "--remote-ranks"))
            return usage_error("%s: --remote-ranks: intercommunicator calls cannot be simulated "
                               "(explain shows their schedules)",
                               cmd);
        if (!takes_value)
            return usage_error("%s: unknown option '%s'", cmd, arg);
        if (!value) {
            if (i + 1 >= argc)
                return usage_error("%s: %s needs a value", cmd, name);
            value = argv[++i];
        }

        if (!strcmp(name, "--ranks")) {
            if (!parse_count(value, 1, MAX_RANKS, &o->ranks))
                return usage_error("%s: --ranks: expected a number of ranks from 1 to %d, "
                                   "got '%s'",
                                   cmd, MAX_RANKS, value);
            ranks_given = true;
        } else if (!strcmp(name, "--remote-ranks")) {
            if (!parse_count(value, 1, MAX_RANKS, &o->remote))
                return usage_error("%s: --remote-ranks: expected a number of ranks from 1 to "
                                   "%d, got '%s'",
                                   cmd, MAX_RANKS, value);
        } else if (!strcmp(name, "--bytes")) {
            if (!parse_bytes(value, &o->bytes))
                return usage_error("%s: --bytes: expected a size such as 4096, 64K or 1M, "
                                   "got '%s'",
                                   cmd, value);
            o->bytes_given = true;
        } else if (!strcmp(name, "--root")) {
            if (!parse_count(value, 0, MAX_RANKS - 1, &o->root))
                return usage_error("%s: --root: expected a rank, got '%s'", cmd, value);
            o->root_given = true;
        } else if (!strcmp(name, "--elem-size")) {
            if (!parse_bytes(value, &o->elem_size) || o->elem_size == 0)
                return usage_error("%s: --elem-size: expected a positive number of bytes, "
                                   "got '%s'",
                                   cmd, value);
        } else if (!strcmp(name, "--rules")) {
            o->rules = value;
        } else if (!strcmp(name, "--topology")) {
            o->topology = value;
        } else if (!strcmp(name, "--neighbors")) {
            o->neighbors = value;
        } else if (!strcmp(name, "--rank")) {
            if (!parse_count(value, 0, MAX_RANKS - 1, &o->only_rank))
                return usage_error("%s: --rank: expected a rank, got '%s'", cmd, value);
        } else if (!strcmp(name, "--model")) {
            o->model = value;
        } else if (!strcmp(name, "--out")) {
            o->out_dir = value;
        } else if (!strcmp(name, "--delay")) {
            if (o->ndelays == MAX_DELAYS)
                return usage_error("%s: at most %d --delay options", cmd, MAX_DELAYS);
            o->delay[o->ndelays++] = value; /* checked against --ranks below */
        }
    }

    if (!ranks_given)
        return usage_error("%s: --ranks N is required", cmd);
    if (simulate && !o->model)
        return usage_error("%s: --model FILE is required", cmd);
    if (o->coll != TRL_COLL_BARRIER && !o->bytes_given)
        return usage_error("%s: --bytes B is required for %s", cmd, trl_coll_name(o->coll));
    if (o->coll == TRL_COLL_BARRIER) {
        if (o->bytes_given && o->bytes != 0)
            return usage_error("%s: a barrier carries no data; leave out --bytes", cmd);
        o->bytes = 0;
    }
    if (o->root_given && !trl_coll_is_rooted(o->coll))
        return usage_error("%s: --root applies to rooted collectives only (%s has no root)", cmd,
                           trl_coll_name(o->coll));
    if (o->root >= o->ranks)
        return usage_error("%s: --root %lld is not a rank of %lld", cmd, o->root, o->ranks);
    if (o->remote && (o->coll == TRL_COLL_SCAN || o->coll == TRL_COLL_EXSCAN))
        return usage_error("%s: MPI defines no %s on intercommunicators (--remote-ranks)", cmd,
                           trl_coll_name(o->coll));
    if (o->remote && o->ranks + o->remote > MAX_RANKS)
        return usage_error("%s: --ranks and --remote-ranks: more than %d ranks together", cmd,
                           MAX_RANKS);
    if (o->only_rank >= o->ranks + o->remote)
        return usage_error("%s: --rank %lld is not a rank of %lld", cmd, o->only_rank,
                           o->ranks + o->remote);
    if (o->bytes % o->elem_size)
        return usage_error("%s: --bytes %llu is not a whole number of %llu-byte elements", cmd,
                           o->bytes, o->elem_size);
    if (o->coll == TRL_COLL_REDUCE_SCATTER_BLOCK &&
        (o->bytes / o->elem_size) % (unsigned long long)o->ranks)
        return usage_error("%s: --bytes %llu (the whole vector) does not split into %lld "
                           "equal blocks of %llu-byte elements",
                           cmd, o->bytes, o->ranks, o->elem_size);
    /* On an intercommunicator each group splits the same vector in its own blocks. */
    if (o->coll == TRL_COLL_REDUCE_SCATTER_BLOCK && o->remote &&
        (o->bytes / o->elem_size) % (unsigned long long)o->remote)
        return usage_error("%s: --bytes %llu (the whole vector) does not split into %lld "
                           "equal blocks of %llu-byte elements (--remote-ranks)",
                           cmd, o->bytes, o->remote, o->elem_size);
    if (o->neighbors && !trl_coll_is_neighbor(o->coll))
        return usage_error("%s: --neighbors applies to the neighbor_* collectives only", cmd);
    if (o->remote && trl_coll_is_neighbor(o->coll))
        return usage_error("%s: MPI defines no %s on intercommunicators (--remote-ranks)", cmd,
                           trl_coll_name(o->coll));
    if (!o->commutative && !trl_coll_is_reduction(o->coll))
        return usage_error("%s: --noncommutative applies to reductions only (%s has no "
                           "operation)",
                           cmd, trl_coll_name(o->coll));
    return 0;
}

/* The call that --bytes describes, as the rules see it (docs/rules.md):
 * the message, one rank's block, the whole vector reduced, or for the
 * v-variants every rank's block alike. On an intercommunicator the same
 * for both groups (reduce_scatter: the vector split in each group's own
 * blocks). The arrays live in *v. */

/* The vector of n elements split as evenly as it goes into p counts. */
static void split_evenly(size_t n, size_t p, size_t *counts)
{
    for (size_t i = 0; i < p; i++)
        counts[i] = n / p + (i < n % p);
}

/* An intercommunicator's groups: ranks 0..ranks-1 and the rest. */
static int make_inter(const explain_opts *o, call_vectors *v)
{
    int n0 = (int)o->ranks, n1 = (int)o->remote;
    int *members = malloc((size_t)(n0 + n1) * sizeof *members);
    if (!members)
        return -1;
    for (int r = 0; r < n0 + n1; r++)
        members[r] = r;
    int rc = trl_inter_init(&v->inter, members, n0, members + n0, n1);
    free(members);
    if (rc == 0)
        v->has_inter = true;
    return rc;
}

static int call_shape(const explain_opts *o, trl_coll_args *a, call_vectors *v)
{
    size_t p = (size_t)(o->ranks + o->remote), n = (size_t)(o->bytes / o->elem_size);
    *a = (trl_coll_args){.coll = o->coll,
                         .size = (int)p,
                         .root = (int)o->root,
                         .count = n,
                         .elem_size = (size_t)o->elem_size,
                         .commutative = o->commutative,
                         .call = o->nonblocking ? TRL_CALL_NONBLOCKING : TRL_CALL_BLOCKING};
    v->counts = calloc(p, sizeof *v->counts);
    v->displs = calloc(p, sizeof *v->displs);
    if (!v->counts || !v->displs)
        return -1;
    /* reduce_scatter: the vector split as evenly as it goes. */
    if (o->coll == TRL_COLL_REDUCE_SCATTER)
        split_evenly(n, p, v->counts);
    for (size_t i = 0; i < p; i++) {
        if (o->coll != TRL_COLL_REDUCE_SCATTER)
            v->counts[i] = n;
        v->displs[i] = i ? v->displs[i - 1] + v->counts[i - 1] : 0;
    }
    if (o->remote) {
        size_t n_of[2] = {(size_t)o->ranks, (size_t)o->remote};
        for (int g = 0; g < 2; g++) {
            v->split[g] = calloc(p, sizeof *v->split[g]);
            if (!v->split[g])
                return -1;
            split_evenly(n, n_of[g], v->split[g]);
        }
        if (make_inter(o, v))
            return -1;
        a->inter = &v->inter;
    }
    switch (o->coll) {
    case TRL_COLL_REDUCE_SCATTER_BLOCK: a->count = n / (size_t)o->ranks; break;
    case TRL_COLL_REDUCE_SCATTER:
        a->count = 0;
        a->counts = v->counts;
        break;
    case TRL_COLL_GATHERV:
    case TRL_COLL_SCATTERV:
    case TRL_COLL_ALLGATHERV:
        a->count = 0;
        a->counts = v->counts;
        a->displs = v->displs;
        break;
    case TRL_COLL_ALLTOALLV:
    case TRL_COLL_ALLTOALLW:
        a->count = 0;
        a->send_counts = a->recv_counts = v->counts;
        a->send_displs = a->recv_displs = v->displs;
        /* The matrix of all counts, as the runtime gathers it for an
         * algorithm that needs it (the others never read it). */
        v->matrix = malloc(p * p * sizeof *v->matrix);
        if (!v->matrix)
            return -1;
        for (size_t i = 0; i < p * p; i++)
            v->matrix[i] = n;
        a->counts = v->matrix;
        break;
    case TRL_COLL_ALLGATHER: /* an intercommunicator's: one block from each remote rank */
        if (o->remote) {
            a->counts = v->counts;
            a->displs = v->displs;
        }
        break;
    case TRL_COLL_ALLTOALL:
        if (o->remote) {
            a->send_counts = a->recv_counts = v->counts;
            a->send_displs = a->recv_displs = v->displs;
        }
        break;
    default: break;
    }
    /* allgatherv on an intercommunicator: every rank sends its block. */
    if (o->remote && o->coll == TRL_COLL_ALLGATHERV)
        a->count = n;
    if (trl_coll_is_neighbor(o->coll)) {
        a->counts = a->displs = NULL;
        return nbhd_call_make(o->neighbors, o->ranks, n, &v->nbhd);
    }
    return 0;
}

/* a as rank r calls: on an intercommunicator the root's group's other
 * ranks pass MPI_PROC_NULL (root -1), and the reductions that scatter
 * split the vector in their own group's blocks. */
void shape_for_rank(const explain_opts *o, const call_vectors *v, trl_coll_args *a, int r)
{
    a->rank = r;
    if (trl_coll_is_neighbor(o->coll))
        nbhd_call_for_rank(&v->nbhd, o->coll, a, r);
    if (!o->remote)
        return;
    int g = r < o->ranks ? 0 : 1;
    size_t n = (size_t)(o->bytes / o->elem_size), ng = (size_t)(g ? o->remote : o->ranks);
    if (trl_coll_is_rooted(o->coll))
        a->root = g == 0 && r != o->root ? -1 : (int)o->root;
    if (o->coll == TRL_COLL_REDUCE_SCATTER_BLOCK)
        a->count = n / ng;
    if (o->coll == TRL_COLL_REDUCE_SCATTER)
        a->counts = v->split[g];
}

int resolve_call(const explain_opts *o, resolved_call *c)
{
    memset(c, 0, sizeof *c);
    trl_rules_error err = {0};
    char msg[900];

    /* The runtime's own loader, so a file name or inline text is told apart
     * exactly as in a run. */
    if (o->rules && setenv("TRELLIS_RULES", o->rules, 1)) {
        fprintf(stderr, "trellis: cannot set TRELLIS_RULES\n");
        return EXIT_FAIL;
    }
    if (trl_rules_load_env(&c->user, &c->text, &err)) {
        trl_rules_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: %s\n", msg);
        return EXIT_USAGE;
    }
    if (trl_builtin_rules_load(&c->builtin, &err)) {
        trl_rules_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: the built-in rules do not parse: %s\n", msg);
        return EXIT_FAIL;
    }
    int shape_rc = call_shape(o, &c->args, &c->shape);
    if (shape_rc > 0)
        return shape_rc; /* --neighbors' error, printed */
    if (shape_rc) {
        fprintf(stderr, "trellis: out of memory\n");
        return EXIT_FAIL;
    }
    /* Where the ranks sit, as a run would see it: --topology, else
     * TRELLIS_TOPOLOGY, else one host. */
    if (o->topology && setenv("TRELLIS_TOPOLOGY", o->topology, 1)) {
        fprintf(stderr, "trellis: cannot set TRELLIS_TOPOLOGY\n");
        return EXIT_FAIL;
    }
    bool described = false;
    trl_topo_error terr = {0};
    if (trl_topo_load_env(&c->topo, &described, &terr)) {
        trl_topo_error_format(&terr, msg, sizeof msg);
        fprintf(stderr, "trellis: %s\n", msg);
        return EXIT_USAGE;
    }
    long long all = o->ranks + o->remote; /* both groups of an intercommunicator */
    if (described && c->topo.size != all) {
        fprintf(stderr, "trellis: the layout describes %d ranks; --ranks%s is %lld\n", c->topo.size,
                o->remote ? " with --remote-ranks" : "", all);
        return EXIT_USAGE;
    }
    if (!described && trl_topo_single_host((int)all, &c->topo)) {
        fprintf(stderr, "trellis: out of memory\n");
        return EXIT_FAIL;
    }
    c->args.topo = &c->topo;
    /* The rules as the root sees the call (on an intercommunicator every
     * rank that takes part sees the same). */
    shape_for_rank(o, &c->shape, &c->args, trl_coll_is_rooted(o->coll) ? (int)o->root : 0);
    if (trl_select(&c->user, &c->builtin, &c->args, trl_coll_rule_bytes(&c->args), &c->choice) ||
        !c->choice.algo) {
        fprintf(stderr, "trellis: no rule chooses an algorithm for this %s\n",
                trl_coll_name(o->coll));
        return EXIT_FAIL;
    }
    c->args.params = c->choice.params;
    trl_topo_format(&c->topo, c->layout, sizeof c->layout);
    return 0;
}

void release_call(resolved_call *c)
{
    free(c->shape.counts);
    free(c->shape.displs);
    free(c->shape.matrix);
    free(c->shape.split[0]);
    free(c->shape.split[1]);
    if (c->shape.has_inter)
        trl_inter_free(&c->shape.inter);
    nbhd_call_free(&c->shape.nbhd);
    trl_topo_free(&c->topo);
    free(c->text);
    trl_rules_free(&c->user);
    trl_rules_free(&c->builtin);
}
