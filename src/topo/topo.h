/* Where the ranks of a communicator sit: host, socket, NUMA domain
 * (docs/topology.md). Discovered at start-up (src/mpi/topo_mpi.c) or
 * described by TRELLIS_TOPOLOGY, parsed here. Pure C, no MPI. */
#ifndef TRL_TOPO_H
#define TRL_TOPO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct trl_topo {
    int size; /* ranks */
    int nhosts;
    int *host;   /* per rank: host index 0..nhosts-1 */
    int *socket; /* per rank: socket id, unique across hosts, or -1 unknown */
    int *numa;   /* per rank: NUMA id, unique across hosts, or -1 unknown */
    bool described;   /* from TRELLIS_TOPOLOGY rather than discovered */
    bool world_order; /* rank i of this communicator is MPI_COMM_WORLD rank i */
} trl_topo;

typedef struct {
    char source[256];
    int line, column; /* 1-based; 0: no position */
    char message[512];
} trl_topo_error;

/* A described layout (docs/topology.md). inline_text: the variable's own
 * text (positions are columns of line 1... as written); else a file's. */
int trl_topo_parse(const char *text, const char *source, bool inline_text, trl_topo *out,
                   trl_topo_error *err);

/* TRELLIS_TOPOLOGY: a file name or the layout itself, told apart as
 * TRELLIS_RULES is. *set is false (and *out empty) when it is unset or
 * blank. */
int trl_topo_load_env(trl_topo *out, bool *set, trl_topo_error *err);

/* Every rank on one host, sockets and NUMA domains unknown. */
int trl_topo_single_host(int size, trl_topo *out);

/* A communicator's view: its rank i is world rank world_ranks[i]. Hosts
 * are renumbered by first appearance. */
int trl_topo_subset(const trl_topo *world, const int *world_ranks, int n, trl_topo *out);

void trl_topo_free(trl_topo *t);

/* "layout: 16 ranks on 4 hosts (described): host 0: 0-3 | host 1: 4-7 ..."
 * with sockets as "host 0: [0-1] [2-3]"; cut with "..." to fit. */
void trl_topo_format(const trl_topo *t, char *buf, size_t len);

/* "source:line:column: message" (fewer parts where there is no position). */
void trl_topo_error_format(const trl_topo_error *err, char *buf, size_t len);

#endif
