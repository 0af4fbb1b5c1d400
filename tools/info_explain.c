/* trellis-info explain: which algorithm the rules choose for a call and
 * why, then every rank's schedule (or one rank's): GOAL text, the steps
 * spelled out, or everything as JSON. */
#include <stdio.h>
#include <stdlib.h>

#include "info_call.h"
#include "info_choice.h"
#include "info_commands.h"
#include "info_common.h"

#include "core/status.h"
#include "sched/sched.h"

/* Build and print every rank's schedule (or the one asked for). */
static int print_schedules(const explain_opts *o, const trl_choice *ch, trl_coll_args a,
                           const call_vectors *shape, FILE *out)
{
    trl_build_memo *memo = trl_build_memo_new();
    if (!memo) {
        fprintf(stderr, "trellis: out of memory\n");
        return EXIT_FAIL;
    }
    a.memo = memo;
    int status = 0;
    long long all = o->ranks + o->remote;
    int first = o->only_rank >= 0 ? (int)o->only_rank : 0;
    int last = o->only_rank >= 0 ? (int)o->only_rank : (int)all - 1;

    if (o->mode == OUT_JSON)
        fputs(",\n \"schedules\": [", out);
    else if (o->mode != OUT_STEPS)
        fprintf(out, "num_ranks %lld\n", all);

    for (int r = first; r <= last; r++) {
        trl_sched s;
        shape_for_rank(o, shape, &a, r);
        int rc = trl_algo_build(ch->algo, &a, &s);
        if (rc) {
            fflush(out);
            fprintf(stderr, "trellis: %s %s cannot build the schedule of rank %d of %lld: %s\n",
                    trl_coll_name(o->coll), ch->algo->name, r, all, trl_status_str(rc));
            status = EXIT_FAIL;
            break;
        }
        if (o->mode == OUT_JSON) {
            char *goal = NULL, *steps = NULL;
            size_t goal_len = 0, steps_len = 0;
            FILE *g = open_memstream(&goal, &goal_len);
            FILE *t = open_memstream(&steps, &steps_len);
            if (g)
                trl_sched_print_goal(&s, a.elem_size, g);
            if (t)
                trl_sched_print_steps(&s, t);
            if (g)
                fclose(g);
            if (t)
                fclose(t);
            fprintf(out, "%s\n  {\"rank\": %d, \"nsteps\": %zu, \"scratch\": %zu, \"goal\": ",
                    r == first ? "" : ",", r, s.nsteps, s.scratch);
            json_string(out, goal ? goal : "");
            fputs(", \"steps\": ", out);
            json_string(out, steps ? steps : "");
            fputs(", \"phases\": [", out); /* each step's phase */
            for (size_t i = 0; i < s.nsteps; i++) {
                fputs(i ? ", " : "", out);
                json_string(out, trl_sched_phase_name(&s, s.steps[i].phase));
            }
            fputs("]}", out);
            free(goal);
            free(steps);
            if (!g || !t) {
                trl_sched_free(&s);
                fprintf(stderr, "trellis: out of memory\n");
                status = EXIT_FAIL;
                break;
            }
        } else if (o->mode == OUT_STEPS) {
            trl_sched_print_steps(&s, out);
        } else {
            trl_sched_print_goal(&s, a.elem_size, out);
        }
        trl_sched_free(&s);
    }
    trl_build_memo_free(memo);
    if (status == 0 && o->mode == OUT_JSON)
        fputs("]", out);
    return status;
}

int cmd_explain(int argc, char **argv)
{
    explain_opts o;
    int status = parse_call_args(argc, argv, &o, false);
    if (status)
        return status;
    resolved_call c;
    status = resolve_call(&o, &c);
    if (status)
        goto out;
    const trl_choice *ch = &c.choice;
    /* What the layout filters saw, so a rule's hosts=, ranks_per_host= and
     * placement= can be checked against it. */
    trl_layout_stats seen = trl_topo_stats(&c.topo, (int)(o.ranks + o.remote));
    const char *placement = seen.block ? "block" : "other";
    if (o.mode == OUT_JSON) {
        print_choice_json(&o, &c, stdout);
        fputs(", \"layout\": ", stdout);
        json_string(stdout, c.layout);
        fprintf(stdout, ",\n \"hosts\": %d, \"ranks_per_host\": %d, \"placement\": \"%s\"",
                seen.hosts, seen.ranks_per_host, placement);
    } else if (o.mode != OUT_GOAL) {
        print_choice_text(&o, &c, stdout);
        printf("%s\n", c.layout);
        printf("the rules saw: hosts=%d ranks_per_host=%d placement=%s\n", seen.hosts,
               seen.ranks_per_host, placement);
    }

    if (!ch->algo->build) {
        /* The MPI library's own collective: nothing of Trellis runs. */
        if (o.mode == OUT_JSON)
            fputs(",\n \"schedules\": null}\n", stdout);
        else if (o.mode == OUT_GOAL)
            fprintf(stderr, "trellis: no schedule: the MPI library's own %s runs\n",
                    trl_coll_mpi_name(o.coll));
        else
            printf("no schedule: the MPI library's own %s runs\n", trl_coll_mpi_name(o.coll));
        goto out;
    }

    if (o.mode == OUT_TEXT)
        printf("\nschedule of %s (GOAL, LogGOPSim's format):\n",
               o.only_rank >= 0 ? "one rank" : "every rank");
    else if (o.mode == OUT_STEPS)
        printf("\nschedule of %s:\n", o.only_rank >= 0 ? "one rank" : "every rank");
    status = print_schedules(&o, ch, c.args, &c.shape, stdout);
    if (status == 0 && o.mode == OUT_JSON)
        fputs("}\n", stdout);

out:
    release_call(&c);
    return status;
}
