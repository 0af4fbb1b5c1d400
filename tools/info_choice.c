/* Which algorithm the rules chose for a call and why: the call, the
 * algorithm with its parameters (given or default), the rule with the
 * reason written above it, and the rules passed over. */
#include "info_choice.h"

#include <stdbool.h>
#include <string.h>

#include "info_common.h"

#include "algo/params.h"

static const trl_param_value *given_param(const trl_params *p, const trl_param_spec *spec)
{
    for (int i = 0; p && i < p->n; i++)
        if (p->v[i].spec == spec || !strcmp(p->v[i].spec->name, spec->name))
            return &p->v[i];
    return NULL;
}

/* The value of one parameter as text: the rule's, or the default. */
static bool param_text(const trl_param_spec *spec, const trl_params *params, char *buf, size_t len)
{
    const trl_param_value *v = given_param(params, spec);
    if (!v) {
        snprintf(buf, len, "%s", spec->default_text ? spec->default_text : "(none)");
        return false;
    }
    trl_param_format(v, buf, len);
    return true;
}

/* The reason written above rule r (trl_rules_reason): in the built-in
 * rules and rules files; inline rules carry no comments. */
static void rule_reason(const resolved_call *c, const trl_rule *r, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!r)
        return;
    if (r >= c->builtin.rules && r < c->builtin.rules + c->builtin.n)
        trl_rules_reason(trl_builtin_text_of(r), r->line, buf, len);
    else if (strcmp(r->source, "TRELLIS_RULES") && c->text)
        trl_rules_reason(c->text, r->line, buf, len);
}

static void print_passed_over_text(const trl_rule *r, const char *why, void *out);

void print_choice_text(const explain_opts *o, const resolved_call *c, FILE *out)
{
    const trl_choice *ch = &c->choice;
    const trl_algo *algo = ch->algo;
    if (o->remote) {
        /* Where each group's ranks are in the schedules below. */
        char first[32] = "0", second[48];
        if (o->ranks > 1)
            snprintf(first, sizeof first, "0-%lld", o->ranks - 1);
        if (o->remote > 1)
            snprintf(second, sizeof second, "%lld-%lld", o->ranks, o->ranks + o->remote - 1);
        else
            snprintf(second, sizeof second, "%lld", o->ranks);
        fprintf(out, "%s, intercommunicator of %lld + %lld ranks (ranks %s and %s below)",
                trl_coll_name(o->coll), o->ranks, o->remote, first, second);
    } else
        fprintf(out, "%s, %lld ranks", trl_coll_name(o->coll), o->ranks);
    if (o->coll != TRL_COLL_BARRIER)
        fprintf(out, ", %llu bytes (%llu elements of %llu byte%s)", o->bytes,
                o->bytes / o->elem_size, o->elem_size, o->elem_size == 1 ? "" : "s");
    if (trl_coll_is_rooted(o->coll))
        fprintf(out, ", root %lld%s", o->root, o->remote ? " (of the first group)" : "");
    if (trl_coll_is_reduction(o->coll))
        fprintf(out, ", %s operation", o->commutative ? "commutative" : "non-commutative");
    if (o->nonblocking)
        fputs(", non-blocking call", out);
    fputc('\n', out);

    fprintf(out, "algorithm: %s: %s\n", algo->name, algo->description);
    if (algo->params && algo->params->name) {
        fputs("parameters:", out);
        for (const trl_param_spec *p = algo->params; p->name; p++) {
            char value[600];
            bool given = param_text(p, ch->params, value, sizeof value);
            fprintf(out, " %s=%s%s", p->name, value, given ? "" : " (default)");
        }
        fputc('\n', out);
    }
    if (ch->rule) {
        char why[2000];
        fprintf(out, "chosen by: %s:%d: %s\n", ch->rule->source, ch->rule->line, ch->rule->text);
        rule_reason(c, ch->rule, why, sizeof why);
        if (why[0])
            fprintf(out, "reason: %s\n", why);
    }
    trl_select_passed_over(&c->user, &c->builtin, &c->args, trl_coll_rule_bytes(&c->args),
                           print_passed_over_text, out);
}

static void print_passed_over_text(const trl_rule *r, const char *why, void *out)
{
    fprintf(out, "passed over: %s:%d: %s: %s\n", r->source, r->line, r->text, why);
}

static void print_rule_json(const trl_rule *r, const char *why, FILE *out)
{
    if (!r) {
        fputs("null", out);
        return;
    }
    fputs("{\"source\": ", out);
    json_string(out, r->source);
    fprintf(out, ", \"line\": %d, \"text\": ", r->line);
    json_string(out, r->text);
    if (why) {
        fputs(", \"why\": ", out);
        json_string(out, why);
    }
    fputc('}', out);
}

typedef struct {
    FILE *out;
    int n;
} json_list;

static void print_passed_over_json(const trl_rule *r, const char *why, void *ctx)
{
    json_list *list = ctx;
    fputs(list->n++ ? ", " : "", list->out);
    print_rule_json(r, why, list->out);
}

void print_choice_json(const explain_opts *o, const resolved_call *c, FILE *out)
{
    const trl_choice *ch = &c->choice;
    fputs("{\"collective\": ", out);
    json_string(out, trl_coll_name(o->coll));
    fprintf(out, ", \"ranks\": %lld, \"bytes\": %llu, \"count\": %llu, \"elem_size\": %llu",
            o->ranks, o->bytes, o->bytes / o->elem_size, o->elem_size);
    if (o->remote)
        fprintf(out, ", \"remote_ranks\": %lld", o->remote);
    else
        fputs(", \"remote_ranks\": null", out);
    if (trl_coll_is_rooted(o->coll))
        fprintf(out, ", \"root\": %lld", o->root);
    else
        fputs(", \"root\": null", out);
    fprintf(out, ", \"commutative\": %s", o->commutative ? "true" : "false");
    fprintf(out, ", \"nonblocking\": %s", o->nonblocking ? "true" : "false");
    fputs(",\n \"algorithm\": ", out);
    json_string(out, ch->algo->name);
    fputs(", \"description\": ", out);
    json_string(out, ch->algo->description);
    fputs(", \"params\": [", out);
    for (const trl_param_spec *p = ch->algo->params; p && p->name; p++) {
        char value[600];
        bool given = param_text(p, ch->params, value, sizeof value);
        fprintf(out, "%s{\"name\": ", p == ch->algo->params ? "" : ", ");
        json_string(out, p->name);
        fputs(", \"value\": ", out);
        json_string(out, value);
        fprintf(out, ", \"default\": %s}", given ? "false" : "true");
    }
    fputs("],\n \"rule\": ", out);
    print_rule_json(ch->rule, NULL, out);
    char why[2000];
    rule_reason(c, ch->rule, why, sizeof why);
    fputs(",\n \"reason\": ", out);
    json_string(out, why[0] ? why : NULL);
    fputs(",\n \"rejected\": ", out);
    print_rule_json(ch->rejected, ch->rejected ? (ch->why ? ch->why : "") : NULL, out);
    fputs(",\n \"passed_over\": [", out);
    json_list list = {out, 0};
    trl_select_passed_over(&c->user, &c->builtin, &c->args, trl_coll_rule_bytes(&c->args),
                           print_passed_over_json, &list);
    fputc(']', out);
    fprintf(out, ",\n \"mpi\": %s", ch->algo->build ? "false" : "true");
}
