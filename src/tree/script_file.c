/* Script rank lines, "rank R: cmd, cmd, ...", read as the tree they
 * describe. In a reduce section a rank receives from its children, in
 * order, then sends to its parent; in a bcast section it receives from its
 * parent, then sends to its children in order. The tree checks then make
 * every send match a recv at the other end. */
#include "tree/script_file.h"

#include <stdbool.h>

#include "core/status.h"
#include "tree/tree_section.h"

/* One command, "recv P" or "send P", starting at w. */
static int command(trl__reader *rd, trl__cursor *c, const trl__word *w, int r, bool *send,
                   int *peer)
{
    char q[48];
    trl__word arg;
    *send = trl__word_is(w, "send");
    if (!*send && !trl__word_is(w, "recv"))
        return trl__fail(rd, rd->line, "unknown command '%s' (expected recv or send)",
                         trl__quote(w, q));
    const char *cmd = *send ? "send" : "recv";
    if (!trl__next_word(c, &arg) || trl__word_is(&arg, ","))
        return trl__fail(rd, rd->line, "%s needs a rank", cmd);
    int rc = trl__rank(rd, &arg, cmd, peer);
    if (rc == TRL_OK && *peer == r)
        return trl__fail(rd, rd->line, "rank %d cannot %s itself", r,
                         *send ? "send to" : "recv from");
    return rc;
}

/* Where the command may stand: the one message to or from the parent
 * comes last in a reduce (the send) and first in a bcast (the recv). */
static int check_order(trl__reader *rd, int r, bool bcast, bool up, int ups, int downs)
{
    if (!bcast && up && ups)
        return trl__fail(rd, rd->line, "rank %d: a second send (a rank sends to one rank)", r);
    if (!bcast && !up && ups)
        return trl__fail(rd, rd->line, "rank %d: recv after its send (the send comes last)", r);
    if (bcast && up && ups)
        return trl__fail(rd, rd->line, "rank %d: a second recv (a rank receives from one rank)", r);
    if (bcast && up && downs)
        return trl__fail(rd, rd->line, "rank %d: recv after a send (the recv comes first)", r);
    return TRL_OK;
}

/* After a command: the end of the line, or ',' and the next command. */
static int next_command(trl__reader *rd, trl__cursor *c, trl__word *w, bool *more)
{
    char q[48];
    *more = trl__next_word(c, w);
    if (!*more)
        return TRL_OK;
    if (!trl__word_is(w, ","))
        return trl__fail(rd, rd->line, "expected ',' between commands, got '%s'", trl__quote(w, q));
    if (!trl__next_word(c, w))
        return trl__fail(rd, rd->line, "expected a command after ','");
    return TRL_OK;
}

int trl__script_line(trl__reader *rd, trl__cursor *c, int r)
{
    trl__word w;
    if (!trl__next_word(c, &w) || !trl__word_is(&w, ":"))
        return trl__fail(rd, rd->line, "expected 'rank %d:' followed by commands", r);
    bool bcast = trl__section_is_bcast(rd);
    int parent = -1, ups = 0, downs = 0, rc = TRL_OK;
    bool more = trl__next_word(c, &w);
    while (rc == TRL_OK && more) {
        bool send;
        int peer;
        rc = command(rd, c, &w, r, &send, &peer);
        bool up = send != bcast; /* reduce: send goes up; bcast: recv comes down */
        if (rc == TRL_OK)
            rc = check_order(rd, r, bcast, up, ups, downs);
        if (rc == TRL_OK && up) {
            parent = peer;
            ups++;
        } else if (rc == TRL_OK) {
            rc = trl__add_child(rd, r, peer);
            downs++;
        }
        if (rc == TRL_OK)
            rc = next_command(rd, c, &w, &more);
    }
    return rc ? rc : trl__set_parent(rd, r, parent);
}
