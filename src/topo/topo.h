/* Where the ranks of a communicator sit: host, socket, NUMA domain
 * (docs/topology.md). Discovered at start-up (src/mpi/context/topo_mpi.c) or
 * described by TRELLIS_TOPOLOGY (src/topo/layout_parse.c). Pure C, no MPI. */
#ifndef TRL_TOPO_H
#define TRL_TOPO_H

#include <stdbool.h>
#include <stddef.h>

/* The most ranks a described layout may hold. */
#define TRL_TOPO_MAX_RANKS (1 << 20)

typedef struct trl_topo {
    int size; /* ranks */
    int nhosts;
    int *host;        /* per rank: host index 0..nhosts-1 */
    int *socket;      /* per rank: socket id, unique across hosts, or -1 unknown */
    int *numa;        /* per rank: NUMA id, unique across hosts, or -1 unknown */
    bool described;   /* from TRELLIS_TOPOLOGY rather than discovered */
    bool world_order; /* this is all of MPI_COMM_WORLD, rank i being WORLD rank i */
    /* What the rules' layout filters see (docs/rules.md), set with host[]
     * by every function here that makes a layout (trl_topo_summarize), so
     * a communicator computes them once: */
    int max_per_host; /* ranks_per_host=: the most ranks on one host */
    bool block;       /* placement=block: every host holds consecutive ranks */
} trl_topo;

typedef struct {
    char source[256]; /* a file name, or "TRELLIS_TOPOLOGY" for the layout inline */
    int line, column; /* 1-based; 0 where there is none (files give lines only) */
    char message[512];
} trl_topo_error;

/* A described layout (docs/topology.md); out->size is the number of ranks
 * it describes. inline_text: the variable's own text, whose errors give
 * line and column; a file's give the line. On error returns a negative
 * status (TRL_ERR_INVALID), fills *err and leaves *out empty.
 *
 * Ids: hosts are numbered in the order written (host= lists) or 0..N-1
 * (hosts=N); socket= and numa= lists in the order written; sockets made by
 * sockets_per_host= host by host, NUMA domains by numa_per_socket= socket
 * by socket. Every id in 0..k-1 has at least one rank. */
int trl_topo_parse(const char *text, const char *source, bool inline_text, trl_topo *out,
                   trl_topo_error *err);

/* TRELLIS_TOPOLOGY: a file name or the layout itself. The value is a file
 * name if it names an existing file, or if (blanks at either end aside) it
 * has neither a blank nor '=' (every layout has a key=value word). *set is
 * false and *out empty when the variable is unset or blank; a file that
 * cannot be read is an error with no position. */
int trl_topo_load_env(trl_topo *out, bool *set, trl_topo_error *err);

/* Every rank on one host, sockets and NUMA domains unknown; not described,
 * in world order. */
int trl_topo_single_host(int size, trl_topo *out);

/* A communicator's view: its rank i is world rank world_ranks[i]. Hosts
 * are renumbered by first appearance; socket and NUMA ids are kept (still
 * unique). world_order is set when world_ranks is 0..n-1 and n is
 * world->size. TRL_ERR_INVALID if a world rank is out of range. */
int trl_topo_subset(const trl_topo *world, const int *world_ranks, int n, trl_topo *out);

void trl_topo_free(trl_topo *t);

/* Link classes, by where two ranks sit: one socket; one host (different or
 * unknown sockets); different hosts. */
typedef enum { TRL_LINK_SOCKET, TRL_LINK_HOST, TRL_LINK_WORLD, TRL_LINK_COUNT } trl_link;

const char *trl_link_name(trl_link c); /* "socket", "host", "world" */

/* The class of the link between ranks a and b (NULL topo: one host). */
trl_link trl_link_between(const trl_topo *t, int a, int b);

/* Set max_per_host and block from host[] and nhosts (O(size)); whoever
 * fills host[] by hand calls it after. */
void trl_topo_summarize(trl_topo *t);

/* The layout filters' values for a communicator of `size` ranks placed by
 * t (NULL: unknown, all on one host). */
typedef struct {
    int hosts, ranks_per_host;
    bool block;
} trl_layout_stats;
trl_layout_stats trl_topo_stats(const trl_topo *t, int size);

/* One line, no newline:
 *   "layout: 16 ranks on 4 hosts (described): host 0: 0-3 | host 1: 4-7 ..."
 * with sockets as "host 0: [0-1] [2-3]". Cut with "..." to fit len. */
void trl_topo_format(const trl_topo *t, char *buf, size_t len);

/* "source:line:column: message", "source:line: message" or
 * "source: message", as the error has a position. */
void trl_topo_error_format(const trl_topo_error *err, char *buf, size_t len);

#endif
