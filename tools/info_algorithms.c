/* trellis-info algorithms: the table of algorithms as JSON. */
#include <stdbool.h>
#include <stdio.h>

#include "info_commands.h"
#include "info_common.h"

#include "algo/algo.h"
#include "algo/params.h"

static const char *param_kind_name(trl_param_kind kind)
{
    switch (kind) {
    case TRL_PARAM_INT: return "int";
    case TRL_PARAM_SIZE: return "size";
    case TRL_PARAM_ALGO: return "algorithm";
    case TRL_PARAM_CHOICE: return "choice";
    case TRL_PARAM_LEVELS: return "levels";
    case TRL_PARAM_LEVEL: return "level algorithm";
    case TRL_PARAM_FILE: return "file";
    }
    return "?";
}

/* ---- trellis-info algorithms ------------------------------------------- */

static void print_param_spec_json(const trl_param_spec *p, FILE *out)
{
    fputs("{\"name\": ", out);
    json_string(out, p->name);
    fputs(", \"kind\": ", out);
    json_string(out, param_kind_name(p->kind));
    fputs(", \"default\": ", out);
    json_string(out, p->default_text);
    if (p->kind == TRL_PARAM_INT || p->kind == TRL_PARAM_SIZE)
        fprintf(out, ", \"min\": %lld, \"max\": %lld", p->min, p->max);
    else
        fputs(", \"min\": null, \"max\": null", out);
    fputs(", \"help\": ", out);
    json_string(out, p->help);
    fputs(", \"of\": ", out);
    bool names_algo = p->kind == TRL_PARAM_ALGO || p->kind == TRL_PARAM_LEVEL;
    json_string(out, names_algo ? trl_coll_name(p->of) : NULL);
    fputs(", \"choices\": ", out);
    json_string(out, p->choices);
    fprintf(out, ", \"required\": %s", p->flags & TRL_PARAM_REQUIRED ? "true" : "false");
    /* What an ALGO or LEVEL parameter may name, in table order (the tuner's
     * candidates come from here). */
    fputs(", \"runs\": ", out);
    if (names_algo) {
        fputc('[', out);
        bool listed = false;
        for (const trl_algo *a = trl_algorithms; a->name; a++) {
            if (!trl_param_runs(p, a))
                continue;
            fputs(listed ? ", " : "", out);
            json_string(out, a->name);
            listed = true;
        }
        fputc(']', out);
    } else {
        fputs("null", out);
    }
    fputc('}', out);
}

int cmd_algorithms(int argc, char **argv)
{
    (void)argv;
    if (argc > 0)
        return usage_error("algorithms takes no arguments");
    fputs("[\n", stdout);
    for (const trl_algo *a = trl_algorithms; a->name; a++) {
        fputs("  {\"collective\": ", stdout);
        json_string(stdout, trl_coll_name(a->coll));
        fputs(", \"name\": ", stdout);
        json_string(stdout, a->name);
        fputs(", \"description\": ", stdout);
        json_string(stdout, a->description);
        fputs(", \"cost\": ", stdout);
        json_string(stdout, a->cost);
        fputs(", \"restrictions\": [", stdout);
        /* What a call needs for the algorithm to serve it. */
        static const struct {
            unsigned flag;
            const char *name;
        } restrictions[] = {{TRL_NEEDS_COMMUTATIVE, "commutative"},
                            {TRL_NEEDS_BLOCK_PLACEMENT, "placement=block"},
                            {TRL_NEEDS_INTER, "intercommunicator"}};
        bool listed = false;
        for (size_t i = 0; i < sizeof restrictions / sizeof *restrictions; i++) {
            if (!(a->needs & restrictions[i].flag))
                continue;
            fputs(listed ? ", " : "", stdout);
            json_string(stdout, restrictions[i].name);
            listed = true;
        }
        fputs("], \"params\": [", stdout);
        for (const trl_param_spec *p = a->params; p && p->name; p++) {
            if (p != a->params)
                fputs(", ", stdout);
            print_param_spec_json(p, stdout);
        }
        fprintf(stdout, "], \"mpi\": %s}%s\n", a->build ? "false" : "true", a[1].name ? "," : "");
    }
    fputs("]\n", stdout);
    return 0;
}
