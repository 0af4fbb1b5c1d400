/* Rank blocks through a hierarchy: what the hierarchical data movers
 * (allgather, gather, scatter, alltoall and their v-variants) share on top
 * of the groups of src/algo/hier.h.
 *
 * A leader carries its group's blocks up to the next level. Sorting the
 * ranks by their chain of leaders, top level first (the rank carrying them
 * into the top level, then into the level below, ... , the rank itself),
 * makes what any rank carries into any level one contiguous range: the
 * image order. A group's members carry adjacent ranges, in the members'
 * rank order, whose union is what the leader carries on. So each level's
 * step is a gatherv (or scatterv, allgatherv) of one range per member, and
 * every message is one range of the image.
 *
 * With block placement and leaders that are the lowest rank of their group
 * (or the root) the image order is rank order, and a receive buffer that
 * holds the blocks back to back can serve as the image itself.
 */
#ifndef TRL_HIER_BLOCKS_H
#define TRL_HIER_BLOCKS_H

#include <stdbool.h>

#include "algo/hier.h"

typedef struct {
    trl_hier_map map;
    int p;
    int *order; /* the ranks in image order */
    size_t *at; /* at[k]: elements of the blocks of order[0..k) (p + 1 entries) */
    /* [i * p + x]: the positions [lo, hi) in order of the ranks x carries
     * into level i (x itself at level 0); -1 where x is not at level i. */
    int *lo, *hi;
} trl_hier_blocks;

/* The image order for the call's blocks (counts[] or count each) over the
 * levels, root leading its groups (-1: the lowest ranks lead). Free with
 * trl_hier_blocks_free. */
int trl_hier_blocks_init(trl_hier_blocks *b, const trl_coll_args *a, const trl_levels *levels,
                         int root);
void trl_hier_blocks_free(trl_hier_blocks *b);
/* The same over the levels of the rule's levels= (into *levels). */
int trl_hier_blocks_for_rule(trl_hier_blocks *b, const trl_coll_args *a, int root,
                             trl_levels *levels);


/* The last level rank x takes part in (0 .. levels.n - 1). */
int trl_hier_blocks_last(const trl_hier_blocks *b, int x);

/* Where the blocks x carries into level i start in the image, how many
 * elements and how many blocks they are. */
size_t trl_hier_carried_at(const trl_hier_blocks *b, int i, int x);
size_t trl_hier_carried_len(const trl_hier_blocks *b, int i, int x);
int trl_hier_carried_blocks(const trl_hier_blocks *b, int i, int x);

/* Rank x's group at level i, and for each member j what it carries into
 * level i: counts[j] elements at displs[j], relative to the start of the
 * first member's (returned in *start). counts and displs have room for p. */
int trl_hier_blocks_group(const trl_hier_blocks *b, int i, int x, trl_hier_group *g, size_t *counts,
                          size_t *displs, size_t *start);

/* Whether the image order is rank order. */
bool trl_hier_blocks_in_rank_order(const trl_hier_blocks *b);

/* Copy every block but `skip` (-1: none) between the image at img and its
 * place in a's buffer `buf` (displs, or i * count): out of the image into
 * RECV (to_image false), or from SEND into it. One copy per run of blocks
 * that lie end to end on both sides; each waits for deps. */
void trl_hier_blocks_copy(const trl_hier_blocks *b, const trl_coll_args *a, trl_sched *s,
                          trl_ref img, bool to_image, int skip, const int *deps, int ndeps);

/* Where a rank keeps (part of) the image: position `origin` of the image
 * lies at img. A rank that carries only some ranks' blocks keeps only
 * their range. */
typedef struct {
    trl_ref img;
    size_t origin;
} trl_hier_image;

static inline trl_ref trl_hier_image_at(const trl_hier_image *im, size_t pos)
{
    return trl_ref_at(im->img.buf, im->img.off + (pos - im->origin));
}

/* A rooted collective's image at this rank (the root is a->root): all
 * blocks at the root, in its `buf` (RECV of a gather, SEND of a scatter)
 * itself when they lie back to back there in image order (*direct), else
 * in scratch; at another rank the range it carries into its last level,
 * in scratch. Returns whether the rank has an image at all: not one that
 * carries only its own block. */
bool trl_hier_rooted_image(const trl_hier_blocks *b, const trl_coll_args *a, trl_sched *s,
                           trl_buf buf, trl_hier_image *im, bool *direct);

/* One level's step over this rank's group at level i (nothing where the
 * group is this rank alone), running the algorithm that the parameter
 * `param` names, of collective coll:
 *   gatherv, allgatherv  each member's range from `mine` into the image;
 *   scatterv             the leader's image out to each member's `mine`;
 *   bcast                the whole image (count elements) from the leader.
 * in_place is passed on (the rank's own range already lies in place).
 * *led: whether this rank led a group of more than one. */
int trl_hier_blocks_level(const trl_coll_args *a, trl_sched *s, const trl_hier_blocks *b, int i,
                          trl_coll coll, const char *param, const trl_hier_image *im, trl_ref mine,
                          bool in_place, size_t count, bool *led);

#endif
