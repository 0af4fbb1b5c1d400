#include "mpi/context/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

/* One version of the user's rules: TRELLIS_RULES' (the first, id 0), then
 * every distinct text trellis_set_rules installed. */
typedef struct {
    trl_ruleset rules;
    char *text;    /* trellis_set_rules' text; NULL for TRELLIS_RULES' */
    uint64_t hash; /* of the text */
    unsigned id;   /* its index in versions */
} rules_version;

unsigned trl_rules_gen;
unsigned trl_rules_current;

static struct {
    const trl_ruleset *user; /* the rules in force: versions[trl_rules_current]'s */
    trl_ruleset builtin;     /* trl_builtin_rules_text */
    rules_version **versions;
    unsigned nversions, cap_versions;
    uint64_t hash; /* of the text in force */
} rs;

const trl_ruleset *trl_rules_user(void)
{
    return rs.user;
}

const trl_ruleset *trl_rules_builtin(void)
{
    return &rs.builtin;
}

unsigned long long trl_rules_hash(void)
{
    return rs.hash;
}

bool trl_rules_load_builtin(trl_rules_error *err)
{
    return trl_builtin_rules_load(&rs.builtin, err) == TRL_OK;
}

/* A new version of the user's rules, taking over set; NULL when out of
 * memory (set is then freed). */
static rules_version *add_version(trl_ruleset *set, const char *text, uint64_t hash)
{
    rules_version *v = calloc(1, sizeof *v);
    char *copy = text ? strdup(text) : NULL;
    if (v && rs.nversions == rs.cap_versions) {
        unsigned cap = rs.cap_versions ? 2 * rs.cap_versions : 8;
        rules_version **grown = realloc(rs.versions, cap * sizeof *grown);
        if (grown) {
            rs.versions = grown;
            rs.cap_versions = cap;
        }
    }
    if (!v || (text && !copy) || rs.nversions == rs.cap_versions) {
        free(v);
        free(copy);
        trl_rules_free(set);
        return NULL;
    }
    *v = (rules_version){.rules = *set, .text = copy, .hash = hash, .id = rs.nversions};
    rs.versions[rs.nversions++] = v;
    return v;
}

bool trl_rules_install_env(trl_ruleset *set, uint64_t hash)
{
    rs.hash = hash;
    rules_version *v = add_version(set, NULL, hash);
    if (!v)
        return false;
    rs.user = &v->rules;
    return true;
}

int trl_rules_refused(char *err, size_t errlen, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "trellis_set_rules: %s", what);
    return 1;
}

int trl_rules_use(const char *text, char *err, size_t errlen)
{
    /* The same text again: its version back, whose cache entries are still
     * good (a tuning program switches among a few candidates). */
    uint64_t h = trl_fnv1a(TRL_FNV_START, text, strlen(text));
    const rules_version *v = NULL;
    for (unsigned i = 0; i < rs.nversions && !v; i++) {
        const rules_version *w = rs.versions[i];
        if (w->text && w->hash == h && strcmp(w->text, text) == 0)
            v = w;
    }
    if (!v) {
        trl_ruleset set;
        trl_rules_error perr;
        if (trl_rules_parse_inline_as(text, "trellis_set_rules", &set, &perr) != TRL_OK) {
            if (err && errlen)
                trl_rules_error_format(&perr, err, errlen);
            return 1;
        }
        v = add_version(&set, text, h);
        if (!v)
            return trl_rules_refused(err, errlen, "out of memory");
    }
    if (v->id != trl_rules_current) {
        trl_rules_current = v->id;
        rs.user = &rs.versions[v->id]->rules;
        rs.hash = v->hash;
        trl_rules_gen++;
    }
    return 0;
}

void trl_rules_free_all(void)
{
    for (unsigned i = 0; i < rs.nversions; i++) {
        trl_rules_free(&rs.versions[i]->rules);
        free(rs.versions[i]->text);
        free(rs.versions[i]);
    }
    free(rs.versions);
    rs.versions = NULL;
    rs.nversions = rs.cap_versions = trl_rules_current = 0;
    rs.user = NULL;
    trl_rules_free(&rs.builtin);
}
