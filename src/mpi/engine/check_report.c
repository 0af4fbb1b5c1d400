/* TRELLIS_CHECK's report of a mismatch (check_report.h): one message, from
 * one rank, naming the call, what differs rank by rank, and where each
 * rank made the call; then the job stops. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo/algo.h"
#include "mpi/engine/check_ops.h"
#include "mpi/engine/check_report.h"
#include "mpi/engine/mode.h"

/* ---- the text, grown as it is written ---- */

typedef struct {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = 2 * (t->cap + (size_t)n) + 256;
        char *s = realloc(t->s, cap);
        if (!s)
            return;
        t->s = s;
        t->cap = cap;
    }
}

/* ---- names ---- */

void trl_check_call_name(const int64_t *row, char *buf, size_t len)
{
    trl_mode mode = {(trl_mode_kind)(row[TRL_CK_MODE] & 7), NULL, NULL};
    trl_coll_call_name((trl_coll)row[TRL_CK_COLL], trl_call_of(&mode), buf, len);
}

static void root_text(int64_t v, char *buf, size_t len)
{
    if (v == MPI_ROOT)
        snprintf(buf, len, "MPI_ROOT");
    else if (v == MPI_PROC_NULL)
        snprintf(buf, len, "MPI_PROC_NULL");
    else
        snprintf(buf, len, "%lld", (long long)v);
}

/* ---- call sites: (object index << 48) | offset in that object ---- */

typedef struct {
    const void *addr;
    int index, found;
    uintptr_t base;
    char path[512];
} find_obj;

static int find_by_addr(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    find_obj *f = arg;
    uintptr_t a = (uintptr_t)f->addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz) {
            f->found = 1;
            f->base = info->dlpi_addr;
            return 1;
        }
    }
    f->index++;
    return 0;
}

static int find_by_index(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    find_obj *f = arg;
    if (f->index-- > 0)
        return 0;
    f->found = 1;
    f->base = info->dlpi_addr;
    snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
    return 1;
}

static int64_t site_of(const void *addr)
{
    find_obj f = {.addr = addr};
    dl_iterate_phdr(find_by_addr, &f);
    if (!f.found)
        return 0;
    return ((int64_t)f.index << 48) | (int64_t)(((uintptr_t)addr - f.base) & 0xffffffffffffULL);
}

/* Calls come from a few places, again and again: those seen last, per
 * thread, without asking the dynamic linker each time. */
int64_t trl_check_site_of(const void *addr)
{
    enum { WAYS = 64 };
    static TRL_CHECK_TLS struct {
        const void *addr;
        int64_t site;
    } seen[WAYS];
    size_t way = ((uintptr_t)addr >> 2) % WAYS;
    if (seen[way].addr != addr) {
        seen[way].site = site_of(addr);
        seen[way].addr = addr;
    }
    return seen[way].site;
}

/* Whether a frame's object is one a call passes through on its way from the
 * program: Trellis itself, or an MPI library's Fortran bindings (MPICH's
 * `use mpi` calls the C entry point from libmpichfort). */
static bool passed_through(const void *addr)
{
    static const char *const skip[] = {"libtrellis", "libmpichfort", "libmpi_mpifh",
                                       "libmpi_usempi", "libmpifort"};
    Dl_info di;
    if (!dladdr(addr, &di) || !di.dli_fname)
        return false;
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strstr(di.dli_fname, skip[i]))
            return true;
    return false;
}

int64_t trl_check_site_deep(int64_t site)
{
    void *frames[24];
    int n = backtrace(frames, 24);
    for (int i = 1; i < n; i++)
        if (!passed_through(frames[i]))
            return site_of(frames[i]);
    return site;
}

/* addr2line's "function\nfile:line", where the object has line numbers. */
static bool addr2line(const char *path, uintptr_t off, char *buf, size_t len)
{
    if (access("/usr/bin/addr2line", X_OK) != 0)
        return false;
    char cmd[700];
    /* A return address is the instruction after the call: one byte back
     * lies inside the call's line. */
    snprintf(cmd, sizeof cmd, "/usr/bin/addr2line -f -C -e '%s' 0x%lx 2>/dev/null", path,
             (unsigned long)(off ? off - 1 : 0));
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    char fn[256] = "", where[512] = "";
    bool ok = fgets(fn, sizeof fn, p) && fgets(where, sizeof where, p);
    pclose(p);
    fn[strcspn(fn, "\n")] = 0;
    where[strcspn(where, "\n")] = 0;
    if (!ok || strncmp(where, "??", 2) == 0)
        return false;
    const char *slash = strrchr(where, '/');
    snprintf(buf, len, "%s (%s)", slash ? slash + 1 : where, fn);
    return true;
}

void trl_check_site_text(int64_t site, char *buf, size_t len)
{
    find_obj f = {.index = (int)(site >> 48)};
    uintptr_t off = (uintptr_t)(site & 0xffffffffffffLL);
    dl_iterate_phdr(find_by_index, &f);
    if (!site || !f.found) {
        snprintf(buf, len, "an unknown place");
        return;
    }
    char path[600];
    if (f.path[0])
        snprintf(path, sizeof path, "%s", f.path);
    else
        snprintf(path, sizeof path, "/proc/%d/exe", (int)getpid());
    if (addr2line(path, off, buf, len))
        return;
    Dl_info di;
    const void *addr = (const void *)(f.base + off);
    if (dladdr(addr, &di) && di.dli_sname)
        snprintf(buf, len, "%s+0x%lx in %s", di.dli_sname,
                 (unsigned long)((uintptr_t)addr - (uintptr_t)di.dli_saddr),
                 f.path[0] ? f.path : "the program");
    else
        snprintf(buf, len, "offset 0x%lx in %s (built without symbols)", (unsigned long)off,
                 f.path[0] ? f.path : "the program");
}

/* ---- comparing rows ---- */

static bool cares(const int64_t *row, int f)
{
    return (row[TRL_CK_FIELDS] >> f) & 1;
}

/* Whether field f differs among the rows that care for it. */
static bool field_differs(const int64_t *rows, int n, int f)
{
    bool seen = false;
    int64_t first = 0;
    for (int i = 0; i < n; i++) {
        const int64_t *r = rows + (size_t)i * TRL_CK_ROW;
        if (!cares(r, f))
            continue;
        if (seen && r[f] != first)
            return true;
        seen = true;
        first = r[f];
    }
    return false;
}

/* Intracommunicator: the X and Y data are one block, both directions. */
static bool xy_differ(const int64_t *rows, int n)
{
    int64_t h = 0, b = 0;
    bool seen_h = false, seen_b = false;
    for (int i = 0; i < n; i++) {
        const int64_t *r = rows + (size_t)i * TRL_CK_ROW;
        const int hs[2] = {TRL_CK_XH, TRL_CK_YH}, bs[2] = {TRL_CK_XB, TRL_CK_YB};
        for (int k = 0; k < 2; k++) {
            if (cares(r, hs[k])) {
                if (seen_h && r[hs[k]] != h)
                    return true;
                seen_h = true;
                h = r[hs[k]];
            }
            if (cares(r, bs[k])) {
                if (seen_b && r[bs[k]] != b)
                    return true;
                seen_b = true;
                b = r[bs[k]];
            }
        }
    }
    return false;
}

static bool no_root(const int64_t *rows, int n)
{
    bool any = false;
    for (int i = 0; i < n; i++) {
        const int64_t *r = rows + (size_t)i * TRL_CK_ROW;
        if (cares(r, TRL_CK_ISROOT)) {
            any = true;
            if (r[TRL_CK_ISROOT] == 1)
                return false;
        }
    }
    return any;
}

/* An intercommunicator v or w form whose ranks all vouch for their
 * per-peer digests, which do not cancel out: a block one group sends is
 * not what the other group's receiver expects. */
bool trl_check_digests_differ(const int64_t *rows, int n)
{
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        const int64_t *r = rows + (size_t)i * TRL_CK_ROW;
        if (!r[TRL_CK_DIGESTED])
            return false;
        sum += (uint64_t)r[TRL_CK_DIGEST];
    }
    return sum != 0;
}

bool trl_check_rows_differ(const int64_t *rows, int n, bool inter)
{
    for (int f = 0; f < TRL_CK_COMPARED; f++)
        if (field_differs(rows, n, f))
            return true;
    for (int i = 0; i < n; i++)
        if (rows[(size_t)i * TRL_CK_ROW + TRL_CK_LOCAL] != TRL_CK_LOCAL_OK)
            return true;
    return no_root(rows, n) || (!inter && xy_differ(rows, n)) ||
           (inter && trl_check_digests_differ(rows, n));
}

/* ---- the report ---- */

/* "ranks 0-2, 5" of the rows whose value of key is v (key NULL: all rows
 * in sel), with "first group"/"second group" prefixes on an
 * intercommunicator. */
typedef int64_t (*key_fn)(const int64_t *row, bool *care);

static bool in_set(const int64_t *r, int g, key_fn key, int64_t v)
{
    bool care = false;
    return r[TRL_CK_GROUP] == g && key(r, &care) == v && care;
}

static void put_ranks(text *t, const int64_t *rows, int n, bool inter, key_fn key, int64_t v)
{
    bool first_group_done = false;
    for (int g = 0; g < (inter ? 2 : 1); g++) {
        int members = 0;
        for (int i = 0; i < n; i++)
            members += in_set(rows + (size_t)i * TRL_CK_ROW, g, key, v);
        if (!members)
            continue;
        if (first_group_done)
            put(t, "; ");
        first_group_done = true;
        if (inter)
            put(t, "%s group's ", g ? "the second" : "the first");
        put(t, "rank%s ", members > 1 ? "s" : "");
        int count = 0, start = -1, prev = -2;
        for (int i = 0; i <= n; i++) {
            const int64_t *r = i < n ? rows + (size_t)i * TRL_CK_ROW : NULL;
            bool in = r && in_set(r, g, key, v);
            int rank = r ? (int)r[TRL_CK_RANK] : -1;
            if (in && start >= 0 && rank == prev + 1) {
                prev = rank;
                continue;
            }
            if (start >= 0) {
                put(t, "%s", count++ ? ", " : "");
                if (prev > start)
                    put(t, "%d-%d", start, prev);
                else
                    put(t, "%d", start);
                start = -1;
            }
            if (in)
                start = prev = rank;
        }
    }
}

typedef void (*show_fn)(int64_t v, const int64_t *row, char *buf, size_t len);

/* One line: label: value on ranks ...; value on ranks ... */
static void put_groups(text *t, const char *label, const int64_t *rows, int n, bool inter,
                       key_fn key, show_fn show)
{
    put(t, "  %s: ", label);
    int64_t *seen = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int nseen = 0;
    for (int i = 0; i < n && seen; i++) {
        const int64_t *r = rows + (size_t)i * TRL_CK_ROW;
        bool care = false;
        int64_t v = key(r, &care);
        if (!care)
            continue;
        bool dup = false;
        for (int k = 0; k < nseen; k++)
            dup = dup || seen[k] == v;
        if (dup)
            continue;
        seen[nseen++] = v;
        char buf[600];
        show(v, r, buf, sizeof buf);
        put(t, "%s%s on ", nseen > 1 ? "; " : "", buf);
        put_ranks(t, rows, n, inter, key, v);
    }
    put(t, "\n");
    free(seen);
}

#define KEY(name, expr, carebit)                                                                   \
    static int64_t key_##name(const int64_t *r, bool *care)                                        \
    {                                                                                              \
        *care = (carebit);                                                                         \
        return (expr);                                                                             \
    }
KEY(call, r[TRL_CK_COLL] * 16 + r[TRL_CK_MODE], true)
KEY(root, r[TRL_CK_ROOT_ARG],
    cares(r, TRL_CK_ROOT) || cares(r, TRL_CK_ROOT_GROUP) || cares(r, TRL_CK_ISROOT))
KEY(op, r[TRL_CK_OP], cares(r, TRL_CK_OP))
KEY(x, r[TRL_CK_XB] * 1000003 + (cares(r, TRL_CK_XH) ? r[TRL_CK_XH] : -1), cares(r, TRL_CK_XB))
KEY(y, r[TRL_CK_YB] * 1000003 + (cares(r, TRL_CK_YH) ? r[TRL_CK_YH] : -1), cares(r, TRL_CK_YB))
KEY(inplace, r[TRL_CK_INPLACE], cares(r, TRL_CK_INPLACE))
KEY(site, r[TRL_CK_SITE], true)

static void show_call(int64_t v, const int64_t *r, char *buf, size_t len)
{
    (void)v;
    trl_check_call_name(r, buf, len);
}
static void show_root(int64_t v, const int64_t *r, char *buf, size_t len)
{
    (void)r;
    root_text(v, buf, len);
}
static void show_op(int64_t v, const int64_t *r, char *buf, size_t len)
{
    (void)r;
    snprintf(buf, len, "%s", trl_check_op_name(v));
}
static void show_sig(int64_t bytes, int64_t hash, bool hashed, char *buf, size_t len)
{
    if (hashed)
        snprintf(buf, len, "%lld bytes (signature %04llx)", (long long)bytes,
                 (unsigned long long)(hash & 0xffff));
    else
        snprintf(buf, len, "%lld bytes (MPI_PACKED)", (long long)bytes);
}
static void show_x(int64_t v, const int64_t *r, char *buf, size_t len)
{
    (void)v;
    show_sig(r[TRL_CK_XB], r[TRL_CK_XH], cares(r, TRL_CK_XH), buf, len);
}
static void show_y(int64_t v, const int64_t *r, char *buf, size_t len)
{
    (void)v;
    show_sig(r[TRL_CK_YB], r[TRL_CK_YH], cares(r, TRL_CK_YH), buf, len);
}
static void show_inplace(int64_t v, const int64_t *r, char *buf, size_t len)
{
    (void)r;
    snprintf(buf, len, "%s", v ? "MPI_IN_PLACE" : "a buffer");
}
static void show_site(int64_t v, const int64_t *r, char *buf, size_t len)
{
    (void)r;
    snprintf(buf, len, "called from ");
    size_t k = strlen(buf);
    trl_check_site_text(v, buf + k, len - k);
}

static void put_local(text *t, const trl_check_call_info *call, const int64_t *r, bool inter)
{
    const trl_check_labels *lb = call->labels;
    char who[64];
    snprintf(who, sizeof who, "%srank %d",
             inter ? (r[TRL_CK_GROUP] ? "the second group's " : "the first group's ") : "",
             (int)r[TRL_CK_RANK]);
    switch (r[TRL_CK_LOCAL]) {
    case TRL_CK_LOCAL_PEER: {
        char want[128], got[128];
        snprintf(want, sizeof want, lb->peer_want, (int)r[TRL_CK_PEER], (int)r[TRL_CK_RANK]);
        snprintf(got, sizeof got, lb->peer_got, (int)r[TRL_CK_PEER], (int)r[TRL_CK_RANK]);
        put(t, "  on %s: %s say %lld bytes, %s %lld bytes (or a different type signature)\n", who,
            want, (long long)r[TRL_CK_WANT], got, (long long)r[TRL_CK_GOT]);
        break;
    }
    case TRL_CK_LOCAL_ROOT_SELF:
        put(t,
            "  on %s (the root): its own send block (%lld bytes) and receive block (%lld "
            "bytes) differ\n",
            who, (long long)r[TRL_CK_WANT], (long long)r[TRL_CK_GOT]);
        break;
    case TRL_CK_LOCAL_INPLACE:
        put(t, "  on %s: MPI_IN_PLACE, which only the root may pass here\n", who);
        break;
    default: break;
    }
}

static void put_report(text *t, const trl_check_call_info *call, const int64_t *rows, int n)
{
    const trl_check_comm *cc = call->cc;
    bool inter = cc->where.inter;
    char name[64];
    trl_check_call_name(call->row, name, sizeof name);
    put(t,
        "Trellis check (TRELLIS_CHECK): mismatched collective: call %lld on %s, %s on "
        "rank %d",
        (long long)call->row[TRL_CK_SEQ], cc->name, name, cc->where.rank);
    put(t, inter ? " of the %s group:\n" : ":\n", cc->where.low ? "first" : "second");
    if (field_differs(rows, n, TRL_CK_COLL) || field_differs(rows, n, TRL_CK_MODE)) {
        put_groups(t, "collective", rows, n, inter, key_call, show_call);
        put(t, "  (the ranks called different collectives as this call: the calls before it "
               "did not line up, or a rank skipped one)\n");
    } else {
        if (field_differs(rows, n, TRL_CK_ROOT) || field_differs(rows, n, TRL_CK_ROOT_GROUP) ||
            no_root(rows, n))
            put_groups(t, "root", rows, n, inter, key_root, show_root);
        if (field_differs(rows, n, TRL_CK_OP))
            put_groups(t, "operation", rows, n, inter, key_op, show_op);
        bool xy = !inter && xy_differ(rows, n);
        if (xy || field_differs(rows, n, TRL_CK_XH) || field_differs(rows, n, TRL_CK_XB))
            put_groups(t, call->labels->x, rows, n, inter, key_x, show_x);
        if (xy || field_differs(rows, n, TRL_CK_YH) || field_differs(rows, n, TRL_CK_YB))
            if (call->labels->y)
                put_groups(t, call->labels->y, rows, n, inter, key_y, show_y);
        if (field_differs(rows, n, TRL_CK_INPLACE))
            put_groups(t, "send buffer", rows, n, inter, key_inplace, show_inplace);
        for (int i = 0; i < n; i++)
            put_local(t, call, rows + (size_t)i * TRL_CK_ROW, inter);
        if (inter && trl_check_digests_differ(rows, n))
            put(t, "  per-peer blocks: a count or type signature that one group's ranks send "
                   "differs from what the other group's receivers expect of it (compare each "
                   "rank's sendcounts and sendtypes with its receivers' recvcounts and "
                   "recvtypes)\n");
    }
    put_groups(t, "call site", rows, n, inter, key_site, show_site);
    put(t, "Trellis stops the job (the MPI standard makes this call erroneous).\n");
}

void trl_check_report(const trl_check_call_info *call, const int64_t *rows, int n)
{
    int me = 0;
    PMPI_Comm_rank(call->cc->check[call->stream], &me);
    /* Rank 0 reports and stops the job. Should it not (a non-blocking call
     * can hold it in the mismatched schedule itself, waiting for the ranks
     * that stopped here), the others report in turn, a rank every 2 s, the
     * first one's stop ending the job. */
    if (me > 0)
        sleep(me < 10 ? 2 * (unsigned)me : 20);
    text t = {0};
    put_report(&t, call, rows, n);
    if (t.s) {
        fputs(t.s, stderr);
        fflush(stderr);
    }
    free(t.s);
    /* Give the launcher a moment to forward the report: MPICH's tears the
     * job down at the abort and could drop the last of it. */
    usleep(200000);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    for (;;)
        pause();
}
