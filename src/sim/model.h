/* The cost model `trellis simulate` runs schedules under (docs/simulate.md):
 * LogGP per link class, plus the cost of local steps.
 *
 * A message of s bytes between two ranks whose link class is c costs the
 * sender overhead_c of its CPU, then leaves through the sender's port for
 * class c (and, across hosts, its host's link out) in s * per_byte_c ns,
 * at least gap_c after the port's previous message; its last byte reaches
 * the receiver latency_c later (across hosts after passing the receiving
 * host's link in, one message at a time), and the receiver takes it in:
 * its CPU spends overhead_c + s * recv_per_byte_c on it, and its receiving
 * port for class c is held max(recv_gap_c, s * recv_per_byte_c), each
 * message waiting for both (recv_gap and recv_per_byte default to 0: the
 * receiver limited by its CPU's overhead only). Uncontended: latency + 2
 * overhead + s (per_byte + recv_per_byte), the alpha + n beta of the
 * textbooks with alpha = latency + 2 overhead. A message over eager_c
 * bytes goes by rendezvous: the data leaves only once the receiver has
 * posted its receive and said so (one latency each way). Reduce and copy
 * steps keep their rank's CPU busy per_step + s per_byte.
 *
 * The engine line changes the rules (sim.h): bytes=s-1 charges every
 * per-byte cost of a message for s-1 bytes (LogGP's convention, the first
 * byte's time being in the latency or the gap; none for an empty message);
 * style=loggopsim runs LogGOPSim's rules instead of the executor's: a send
 * waits for its CPU and its rank's one port, which it holds gap + s
 * per_byte; its message is at the receiver overhead + latency after it
 * started, its bytes charged there, where it is taken in as soon as the CPU
 * and the port are free (posted or not), holding them overhead + s
 * recv_per_byte and recv_gap + s recv_per_byte; the CPU serves whatever
 * was ready first. Every message is eager under it.
 *
 * Model files are text, one line per part:
 *
 *   # comment
 *   socket latency=150 overhead=100 gap=0 per_byte=0.05 eager=4K
 *   host   latency=400 overhead=300 gap=0 per_byte=0.1
 *   world  latency=20000 overhead=5000 gap=0 per_byte=8 eager=64K recv_gap=0 recv_per_byte=0
 *   reduce per_step=50 per_byte=0.25
 *   copy   per_step=20 per_byte=0.05
 *   engine style=executor bytes=s
 *
 * Times in ns, per_byte and recv_per_byte in ns per byte, eager in bytes
 * (K, M, G suffixes; none: every message eager, the default). Every key
 * defaults to 0; the engine to style=executor bytes=s.
 */
#ifndef TRL_SIM_MODEL_H
#define TRL_SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "topo/topo.h" /* the link classes */

typedef struct {
    double latency, overhead, gap, per_byte; /* ns, ns, ns, ns per byte */
    double recv_gap, recv_per_byte;          /* the receiving side: ns, ns per byte */
    double eager;                            /* bytes; larger: rendezvous */
} trl_link_model;

typedef struct {
    double per_step, per_byte; /* ns, ns per byte */
} trl_local_model;

/* The rules the engine follows (sim.h). */
typedef enum {
    TRL_ENGINE_EXECUTOR,  /* as the MPI executor runs a schedule (the default) */
    TRL_ENGINE_LOGGOPSIM, /* as LogGOPSim runs a GOAL schedule */
} trl_engine_style;

typedef struct {
    trl_link_model link[TRL_LINK_COUNT];
    trl_local_model reduce, copy;
    trl_engine_style style;
    bool bytes_after_first; /* per-byte costs of a message count s-1 bytes, not s */
} trl_model;

typedef struct {
    char source[256];
    int line, column; /* 1-based; 0: no position */
    char message[256];
} trl_model_error;

/* Parse a model's text; source names it in errors. On error returns a
 * negative status and fills *err; *out is then undefined. */
int trl_model_parse(const char *text, const char *source, trl_model *out, trl_model_error *err);

/* Read and parse a model file. */
int trl_model_load(const char *path, trl_model *out, trl_model_error *err);

/* "source:line:column: message", as much of it as there is. */
void trl_model_error_format(const trl_model_error *err, char *buf, size_t len);

#endif
