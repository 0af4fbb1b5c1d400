/* trellis-info layout: where N ranks sit (docs/topology.md), as the
 * "layout: ..." line or as JSON. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info_commands.h"
#include "info_common.h"

#include "topo/topo.h"

static void json_ints(FILE *out, const char *name, const int *v, int n)
{
    fprintf(out, ", \"%s\": [", name);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%d", i ? ", " : "", v[i]);
    fputc(']', out);
}

/* "hosts": each host's ranks, in rank order. */
static int json_hosts(FILE *out, const trl_topo *t)
{
    int *first = malloc((size_t)t->nhosts * sizeof *first);
    int *next = malloc((size_t)t->size * sizeof *next);
    if (!first || !next) {
        free(first);
        free(next);
        return EXIT_FAIL;
    }
    for (int h = 0; h < t->nhosts; h++)
        first[h] = -1;
    for (int r = t->size - 1; r >= 0; r--) { /* lists built backwards read forwards */
        next[r] = first[t->host[r]];
        first[t->host[r]] = r;
    }
    fputs(", \"hosts\": [", out);
    for (int h = 0; h < t->nhosts; h++) {
        fputs(h ? ", [" : "[", out);
        for (int r = first[h]; r >= 0; r = next[r])
            fprintf(out, "%s%d", r == first[h] ? "" : ", ", r);
        fputc(']', out);
    }
    fputc(']', out);
    free(first);
    free(next);
    return 0;
}

static int print_layout(const trl_topo *t, bool json)
{
    /* Room for the whole line: a rank takes at most 11 characters
     * ("1048575," and a socket's "[] "), a host 22 (" | host N: ", "[?: "). */
    size_t len = 128 + 32 * (size_t)t->size;
    char *text = malloc(len);
    if (!text) {
        fprintf(stderr, "trellis: layout: out of memory\n");
        return EXIT_FAIL;
    }
    trl_topo_format(t, text, len);
    int status = 0;
    if (json) {
        printf("{\"ranks\": %d, \"described\": %s, \"nhosts\": %d", t->size,
               t->described ? "true" : "false", t->nhosts);
        json_ints(stdout, "host", t->host, t->size);
        json_ints(stdout, "socket", t->socket, t->size);
        json_ints(stdout, "numa", t->numa, t->size);
        status = json_hosts(stdout, t);
        if (status)
            fprintf(stderr, "trellis: layout: out of memory\n");
        fputs(", \"text\": ", stdout);
        json_string(stdout, text);
        fputs("}\n", stdout);
    } else {
        printf("%s\n", text);
    }
    free(text);
    return status;
}

static bool option_is(const char *arg, size_t name_len, const char *name)
{
    return strlen(name) == name_len && !strncmp(arg, name, name_len);
}

/* The layout a run of N ranks would see: --topology (set as
 * TRELLIS_TOPOLOGY and read by the runtime's own loader), else
 * TRELLIS_TOPOLOGY, else every rank on one host. Without --ranks, a
 * described layout is printed at its own size. Options take their value
 * as the next argument or after '=', as explain's do. */
int cmd_layout(int argc, char **argv)
{
    long long ranks = 0;
    bool json = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        size_t name_len = strcspn(arg, "=");
        const char *value = arg[name_len] == '=' ? arg + name_len + 1 : NULL;
        bool is_ranks = option_is(arg, name_len, "--ranks");
        bool is_topology = option_is(arg, name_len, "--topology");
        if (option_is(arg, name_len, "--json")) {
            if (value)
                return usage_error("layout: --json takes no value");
            json = true;
            continue;
        }
        if (!is_ranks && !is_topology)
            return usage_error("layout: unknown option '%s'", arg);
        if (!value) {
            if (i + 1 >= argc)
                return usage_error("layout: %.*s needs a value", (int)name_len, arg);
            value = argv[++i];
        }
        if (is_ranks && !parse_count(value, 1, MAX_RANKS, &ranks))
            return usage_error("layout: --ranks: expected a number of ranks from 1 to %d, got '%s'",
                               MAX_RANKS, value);
        if (is_topology && setenv("TRELLIS_TOPOLOGY", value, 1))
            return usage_error("layout: cannot set TRELLIS_TOPOLOGY");
    }
    trl_topo topo;
    trl_topo_error err;
    bool described;
    if (trl_topo_load_env(&topo, &described, &err)) {
        char msg[900];
        trl_topo_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: layout: %s\n", msg);
        return EXIT_USAGE;
    }
    if (!described && ranks == 0)
        return usage_error("layout: give --ranks N, a layout (--topology), or both");
    if (described && ranks && topo.size != ranks) {
        fprintf(stderr, "trellis: layout: the layout describes %d rank%s, but --ranks is %lld\n",
                topo.size, topo.size == 1 ? "" : "s", ranks);
        trl_topo_free(&topo);
        return EXIT_USAGE;
    }
    if (!described && trl_topo_single_host((int)ranks, &topo)) {
        fprintf(stderr, "trellis: layout: out of memory\n");
        return EXIT_FAIL;
    }
    int status = print_layout(&topo, json);
    trl_topo_free(&topo);
    return status;
}
