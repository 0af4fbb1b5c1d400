/* The rules in force in this process: the built-in ones, TRELLIS_RULES'
 * (read at MPI_Init, entry/init.c) and every distinct text that
 * trellis_set_rules installed since. All are kept until MPI_Finalize,
 * since cache entries (persistent requests among them) and the tracer's
 * records point at their rules; a text installed again takes its earlier
 * version back, so a program switching among a few sets of rules keeps a
 * few. */
#ifndef TRL_MPI_RULES_H
#define TRL_MPI_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "select/rules.h"

/* FNV-1a over len bytes, from h (start with TRL_FNV_START): the hash by
 * which ranks compare their rules and layouts, and verbose mode its
 * reports. */
#define TRL_FNV_START 0xcbf29ce484222325ULL
static inline uint64_t trl_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Parse the built-in rules (the tuned ones, then those written by hand:
 * trl_builtin_rules_load); false, with err set, when they do not parse. */
bool trl_rules_load_builtin(trl_rules_error *err);

/* Put TRELLIS_RULES' rules in force (taking over rs; an empty set where
 * there are none), hash being that of their text; false when out of memory
 * (rs is then freed). */
bool trl_rules_install_env(trl_ruleset *rs, uint64_t hash);

/* trellis_set_rules' work once Trellis runs: put text's rules in force,
 * parsed or found among those kept. 0, or 1 with the message in err. */
int trl_rules_use(const char *text, char *err, size_t errlen);

/* The message of a refused trellis_set_rules in err, as
 * trl_rules_error_format writes one without a position; returns 1. */
int trl_rules_refused(char *err, size_t errlen, const char *what);

/* Free every version and the built-in rules (MPI_Finalize). */
void trl_rules_free_all(void);

/* The user's rules in force (TRELLIS_RULES' or trellis_set_rules'), and
 * the built-in ones. */
const trl_ruleset *trl_rules_user(void);
const trl_ruleset *trl_rules_builtin(void);

/* The number of the version in force: part of every cache key, read at
 * every lookup. */
extern unsigned trl_rules_current;

/* A hash of the user's rules text, the same on every rank of one job (the
 * start checked it): intercommunicators joining two jobs compare it. */
unsigned long long trl_rules_hash(void);

/* Moves on whenever trellis_set_rules puts other rules in force. A
 * communicator's memos and answers kept outside its cache's keys are from
 * older rules while its own count differs (schedule.h,
 * trl_comm_sync_rules). */
extern unsigned trl_rules_gen;

#endif
