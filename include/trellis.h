/* Trellis: run-time configurable, topology-aware collectives for MPI.
 *
 * Programs need nothing from this header: libtrellis.so takes over their
 * collectives through the MPI profiling interface. It is for tools that
 * want to know whether Trellis is loaded (dlsym "trellis_version"). */
#ifndef TRELLIS_H
#define TRELLIS_H

#ifdef __cplusplus
extern "C" {
#endif

/* "trellis <version>" */
const char *trellis_version(void);

#ifdef __cplusplus
}
#endif

#endif
