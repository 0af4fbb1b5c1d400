/* trellis-info simulate: one call, chosen and built exactly as explain
 * does, simulated under a model (src/sim, docs/simulate.md) for
 * `trellis simulate`.
 *
 * Prints one JSON object: the choice (as explain --json), the layout, the
 * predicted time and counts of the run, and the phase names. With --out
 * DIR it also writes the timeline python/trellis/timeline.py reads:
 *
 *   DIR/meta.json   the same object
 *   DIR/steps.bin   one 60-byte record per step, little-endian, packed,
 *                   each rank's steps together and in order, the ranks
 *                   in the order they finish: call, rank, step (i32), kind
 *                   (u8: send recv copy reduce nop), link (u8: socket
 *                   host world, 3 for local steps), phase (u16), peer,
 *                   tag, after (i32), bytes (u64), t_ready, t_posted,
 *                   t_done (f64, ns); timeline.py's STEP_DTYPE
 *   DIR/ranks.bin   one 32-byte record per rank: t_enter, t_exit (f64),
 *                   rank, host, socket, numa (i32)
 *
 * --delay R=NS (repeatable) makes rank R enter the call NS ns late.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "info_call.h"
#include "info_choice.h"
#include "info_commands.h"
#include "info_common.h"

#include "core/status.h"
#include "sim/model.h"
#include "sim/sim.h"

typedef struct __attribute__((packed)) {
    int32_t call, rank, step;
    uint8_t kind, link;
    uint16_t phase;
    int32_t peer, tag, after;
    uint64_t bytes;
    double t_ready, t_posted, t_done;
} step_record;

typedef struct __attribute__((packed)) {
    double t_enter, t_exit;
    int32_t rank, host, socket, numa;
} rank_record;

_Static_assert(sizeof(step_record) == 60, "steps.bin records are 60 bytes");
_Static_assert(sizeof(rank_record) == 32, "ranks.bin records are 32 bytes");

typedef struct {
    FILE *steps, *ranks;
    const trl_topo *topo;
} writer;

static int write_rank(void *ctx, const trl_sim_rank *r)
{
    writer *w = ctx;
    for (size_t i = 0; i < r->nsteps; i++) {
        const trl_sim_step *x = &r->steps[i];
        step_record out = {0,      r->rank,  x->step,  x->kind,    x->link,     x->phase, x->peer,
                           x->tag, x->after, x->bytes, x->t_ready, x->t_posted, x->t_done};
        if (fwrite(&out, sizeof out, 1, w->steps) != 1)
            return TRL_ERR_IO;
    }
    rank_record rr = {r->t_enter,
                      r->t_exit,
                      r->rank,
                      w->topo->host[r->rank],
                      w->topo->socket[r->rank],
                      w->topo->numa[r->rank]};
    return fwrite(&rr, sizeof rr, 1, w->ranks) == 1 ? TRL_OK : TRL_ERR_IO;
}

static FILE *open_in(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "trellis: simulate: cannot write %s: %s\n", path, strerror(errno));
    else
        setvbuf(f, NULL, _IOFBF, 1 << 20);
    return f;
}

/* --delay R=NS into per-rank entry times; NULL when there is none. */
static int entry_times(const explain_opts *o, double **enter)
{
    *enter = NULL;
    if (o->ndelays == 0)
        return 0;
    *enter = calloc((size_t)o->ranks, sizeof **enter);
    if (!*enter) {
        fprintf(stderr, "trellis: out of memory\n");
        return EXIT_FAIL;
    }
    for (int i = 0; i < o->ndelays; i++) {
        const char *eq = strchr(o->delay[i], '=');
        char rank_text[32], *end;
        long long rank;
        size_t len = eq ? (size_t)(eq - o->delay[i]) : 0;
        double ns = eq ? strtod(eq + 1, &end) : -1;
        bool ok = eq && len < sizeof rank_text && end != eq + 1 && !*end && isfinite(ns) && ns >= 0;
        if (ok) {
            memcpy(rank_text, o->delay[i], len);
            rank_text[len] = '\0';
            ok = parse_count(rank_text, 0, o->ranks - 1, &rank);
        }
        if (!ok) {
            free(*enter);
            *enter = NULL;
            return usage_error("simulate: --delay: expected RANK=NS with a rank of %lld and a "
                               "time >= 0 in ns, got '%s'",
                               o->ranks, o->delay[i]);
        }
        (*enter)[rank] = ns;
    }
    return 0;
}

static void print_summary(FILE *out, const explain_opts *o, const resolved_call *c,
                          const trl_sim_result *res, double seconds)
{
    print_choice_json(o, c, out);
    fputs(",\n \"layout\": ", out);
    json_string(out, c->layout);
    fputs(", \"model\": ", out);
    json_string(out, o->model);
    fprintf(out,
            ",\n \"predicted_ns\": %.17g, \"last_rank\": %d, \"steps\": %zu, \"messages\": %zu, "
            "\"events\": %zu, \"peak_ranks\": %zu, \"peak_bytes\": %zu",
            res->t_end, res->last_rank, res->steps, res->messages, res->events, res->peak_ranks,
            res->peak_bytes);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(out, ", \"seconds\": %.3f, \"max_rss_bytes\": %lld", seconds,
            (long long)ru.ru_maxrss * 1024);
    fputs(",\n \"phases\": [", out);
    for (int i = 0; i < res->nphases; i++) {
        fputs(i ? ", " : "", out);
        json_string(out, res->phase_names[i]);
    }
    fputs("], \"kinds\": [\"send\", \"recv\", \"copy\", \"reduce\", \"nop\"]", out);
    fprintf(out, ", \"links\": [\"%s\", \"%s\", \"%s\"]", trl_link_name(TRL_LINK_SOCKET),
            trl_link_name(TRL_LINK_HOST), trl_link_name(TRL_LINK_WORLD));
    fputs("}\n", out);
}

int cmd_simulate(int argc, char **argv)
{
    explain_opts o;
    int status = parse_call_args(argc, argv, &o, true);
    if (status)
        return status;
    trl_model model;
    trl_model_error merr;
    if (trl_model_load(o.model, &model, &merr)) {
        char msg[900];
        trl_model_error_format(&merr, msg, sizeof msg);
        fprintf(stderr, "trellis: %s\n", msg);
        return EXIT_USAGE;
    }
    double *enter = NULL;
    if ((status = entry_times(&o, &enter)))
        return status;
    resolved_call c;
    writer w = {0};
    trl_sim_result res = {0};
    status = resolve_call(&o, &c);
    if (status)
        goto out;
    if (!c.choice.algo->build) {
        fprintf(stderr,
                "trellis: simulate: the rules choose the MPI library's own %s, which "
                "has no schedule to simulate\n",
                trl_coll_mpi_name(o.coll));
        status = EXIT_NO_SCHEDULE;
        goto out;
    }
    if (o.out_dir) {
        if (mkdir(o.out_dir, 0777) && errno != EEXIST) {
            fprintf(stderr, "trellis: simulate: cannot make %s: %s\n", o.out_dir, strerror(errno));
            status = EXIT_FAIL;
            goto out;
        }
        w.topo = &c.topo;
        w.steps = open_in(o.out_dir, "steps.bin");
        w.ranks = open_in(o.out_dir, "ranks.bin");
        if (!w.steps || !w.ranks) {
            status = EXIT_FAIL;
            goto out;
        }
    }
    trl_sim_call call = {.algo = c.choice.algo,
                         .args = c.args,
                         .model = &model,
                         .enter = enter,
                         .sink = o.out_dir ? write_rank : NULL,
                         .ctx = &w};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = trl_sim_run(&call, &res);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc) {
        fprintf(stderr, "trellis: simulate: %s\n", res.why);
        status = EXIT_FAIL;
        goto out;
    }
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    print_summary(stdout, &o, &c, &res, seconds);
    if (o.out_dir) {
        FILE *meta = open_in(o.out_dir, "meta.json");
        if (!meta) {
            status = EXIT_FAIL;
            goto out;
        }
        print_summary(meta, &o, &c, &res, seconds);
        if (fclose(meta))
            status = EXIT_FAIL;
    }
out:
    if (w.steps && fclose(w.steps))
        status = EXIT_FAIL;
    if (w.ranks && fclose(w.ranks))
        status = EXIT_FAIL;
    trl_sim_result_free(&res);
    release_call(&c);
    free(enter);
    return status;
}
