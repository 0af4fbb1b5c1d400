#include "mpi/context/verbose.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "algo/inter/inter.h"
#include "core/log.h"
#include "mpi/context/rules.h"

/* The choices reported already. */
static struct {
    pthread_mutex_t lock;
    uint64_t *said;
    size_t nsaid, cap_said;
    bool said_full;
} vb = {.lock = PTHREAD_MUTEX_INITIALIZER};

void trl_say_comm(int size, const trl_topo *topo, const trl_shm *shm)
{
    char line[1024];
    trl_topo_format(topo, line, sizeof line);
    char mem[96] = "; shared memory: off";
    if (shm->n > 0)
        snprintf(mem, sizeof mem, "; shared memory: %d ranks on rank 0's node, up to %d bytes",
                 shm->n, (int)shm->max_bytes);
    trl_log("communicator of %d ranks: %s%s", size, line, mem);
}

/* Has this exact choice been reported already? The set is bounded: a
 * program sweeping message sizes could otherwise grow it without end, and
 * it is scanned on every cache miss. Past the bound, new choices are no
 * longer reported, and verbose mode says so once. */
enum { SAID_MAX = 4096 };

static bool first_time(uint64_t key)
{
    bool first = true;
    pthread_mutex_lock(&vb.lock);
    for (size_t i = 0; i < vb.nsaid && first; i++)
        first = vb.said[i] != key;
    if (first && vb.nsaid == vb.cap_said && vb.cap_said < SAID_MAX) {
        size_t cap = vb.cap_said ? 2 * vb.cap_said : 32;
        uint64_t *p = realloc(vb.said, cap * sizeof *p);
        if (p) {
            vb.said = p;
            vb.cap_said = cap;
        }
    }
    if (first && vb.nsaid < vb.cap_said) {
        vb.said[vb.nsaid++] = key;
    } else if (first) {
        if (!vb.said_full)
            trl_log("verbose: %d distinct choices reported; further ones are not", SAID_MAX);
        vb.said_full = true;
        first = false;
    }
    pthread_mutex_unlock(&vb.lock);
    return first;
}

/* The rules passed over, appended to a verbose line as far as it goes. */
typedef struct {
    char text[768];
    size_t used;
} passed_list;

static void add_passed(const trl_rule *r, const char *why, void *ctx)
{
    passed_list *l = ctx;
    if (l->used >= sizeof l->text)
        return;
    int n = snprintf(l->text + l->used, sizeof l->text - l->used,
                     "; passed over %s (%s:%d: %s) because %s", r->algo->name, r->source, r->line,
                     r->text, why);
    l->used += n > 0 ? (size_t)n : 0;
}

void trl_say_choice(const trl_coll_args *a, size_t bytes, const trl_choice *ch)
{
    trl_coll coll = a->coll;
    unsigned current = trl_rules_current;
    uint64_t key = trl_fnv1a(TRL_FNV_START, &coll, sizeof coll);
    key = trl_fnv1a(key, &a->size, sizeof a->size);
    key = trl_fnv1a(key, &bytes, sizeof bytes);
    key = trl_fnv1a(key, &ch->rule, sizeof ch->rule);
    key = trl_fnv1a(key, &current, sizeof current); /* said again under other rules */
    key = trl_fnv1a(key, &a->call, sizeof a->call);
    trl_layout_stats seen = trl_topo_stats(a->topo, a->size);
    key = trl_fnv1a(key, &seen.hosts, sizeof seen.hosts);
    key = trl_fnv1a(key, &seen.ranks_per_host, sizeof seen.ranks_per_host);
    key = trl_fnv1a(key, &seen.block, sizeof seen.block);
    /* An intercommunicator's call: both groups' sizes as the rules saw them. */
    unsigned long long big = (unsigned long long)a->size, small = 0;
    if (a->inter)
        trl_inter_rule_sizes(a, &big, &small);
    key = trl_fnv1a(key, &small, sizeof small);
    if (!first_time(key))
        return;
    passed_list passed = {.used = 0};
    passed.text[0] = '\0';
    if (ch->rejected)
        trl_select_passed_over(trl_rules_user(), trl_rules_builtin(), a, bytes, add_passed,
                               &passed);
    char size[48] = "";
    /* Where ranks do not share a size, the rules saw none. */
    if (trl_coll_has_bytes(coll))
        snprintf(size, sizeof size, " bytes=%zu", bytes);
    /* Named as the program called it: iallreduce, allreduce_init. */
    const char *pre = a->call == TRL_CALL_NONBLOCKING ? "i" : "";
    const char *post = a->call == TRL_CALL_PERSISTENT ? "_init" : "";
    char ranks[64];
    snprintf(ranks, sizeof ranks, a->inter ? "inter ranks=%llu remote_ranks=%llu" : "ranks=%llu",
             big, small);
    /* What the layout filters saw, where there is more than one host. */
    char layout[96] = "";
    if (seen.hosts > 1)
        snprintf(layout, sizeof layout, "; hosts=%d ranks_per_host=%d placement=%s", seen.hosts,
                 seen.ranks_per_host, seen.block ? "block" : "other");
    trl_log("%s%s%s %s%s: %s (%s:%d: %s)%s%s", pre, trl_coll_name(coll), post, ranks, size,
            ch->algo->name, ch->rule->source, ch->rule->line, ch->rule->text, layout, passed.text);
}

void trl_verbose_finalize(void)
{
    free(vb.said);
    vb.said = NULL;
}
