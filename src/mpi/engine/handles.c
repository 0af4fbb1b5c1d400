#include "mpi/engine/handles.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(MPI_Request r, size_t cap)
{
    uint64_t h = 0;
    memcpy(&h, &r, sizeof r < sizeof h ? sizeof r : sizeof h);
    return (size_t)((h * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

/* Put s in slots, cap of them, at its place or the first free one after. */
static void place(trl_handle_slot *slots, size_t cap, trl_handle_slot s)
{
    size_t k = slot_of(s.request, cap);
    while (slots[k].value)
        k = (k + 1) & (cap - 1);
    slots[k] = s;
}

bool trl_handles_reserve(trl_handles *t)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        trl_handle_slot *s = calloc(cap, sizeof *s);
        if (!s)
            return false;
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].value)
                place(s, cap, t->slots[i]);
        free(t->slots);
        t->slots = s;
        t->cap = cap;
    }
    return true;
}

void trl_handles_put(trl_handles *t, MPI_Request request, void *value)
{
    place(t->slots, t->cap, (trl_handle_slot){request, value});
    t->n++;
}

void *trl_handles_find(const trl_handles *t, MPI_Request request)
{
    for (size_t k = slot_of(request, t->cap); t->slots[k].value; k = (k + 1) & (t->cap - 1))
        if (t->slots[k].request == request)
            return t->slots[k].value;
    return NULL;
}

/* Remove the slot, then put back the slots after it that it displaced. */
void trl_handles_del(trl_handles *t, MPI_Request request, const void *value)
{
    size_t cap = t->cap, k = slot_of(request, cap);
    while (t->slots[k].value != value)
        k = (k + 1) & (cap - 1);
    t->slots[k] = (trl_handle_slot){MPI_REQUEST_NULL, NULL};
    t->n--;
    for (size_t j = (k + 1) & (cap - 1); t->slots[j].value; j = (j + 1) & (cap - 1)) {
        trl_handle_slot s = t->slots[j];
        t->slots[j] = (trl_handle_slot){MPI_REQUEST_NULL, NULL};
        place(t->slots, cap, s);
    }
}
