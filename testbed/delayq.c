/* trellis-delayq QUEUE DELAY_US: hold every packet of netfilter queue QUEUE for DELAY_US
 * microseconds, then let it go, in the order it came (docs/testbed.md, "--delay").
 *
 * The testbed's delay where the kernel has no netem qdisc: `trellis testbed up --delay`
 * sends the frames its bridge forwards between hosts to this queue (an iptables NFQUEUE
 * rule), and this process gives each its verdict DELAY_US after it arrived. Every packet
 * is held equally long and ids rise in arrival order, so the packets due are always the
 * oldest: one batch verdict ("accept every id up to this one") releases them.
 *
 * Only the packet's id is read (copy mode meta: no payload crosses to user space). The
 * queue fails open: a packet that finds it full passes at once rather than being
 * dropped. Plain netlink, no libraries. Stops on SIGTERM or SIGINT. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Packets held at once: the queue's kernel-side length too. */
#define HELD_MAX 65536
#define MSG_ROOM 8192

typedef struct {
    uint32_t id;
    int64_t due_ns;
} held_packet;

static held_packet held[HELD_MAX];
static size_t head, count; /* a ring: held[head] is the oldest */
static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Appends one attribute to the message in buf. */
static void put_attr(struct nlmsghdr *n, uint16_t type, const void *data, size_t len)
{
    struct nlattr *a = (struct nlattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));
    a->nla_type = type;
    a->nla_len = (uint16_t)(NLA_HDRLEN + len);
    memcpy((char *)a + NLA_HDRLEN, data, len);
    n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* A queue message of the given type, to be filled with attributes. */
static struct nlmsghdr *start_msg(char *buf, int type, uint16_t queue, uint16_t flags)
{
    memset(buf, 0, MSG_ROOM);
    struct nlmsghdr *n = (struct nlmsghdr *)buf;
    n->nlmsg_len = NLMSG_LENGTH(sizeof(struct nfgenmsg));
    n->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | type;
    n->nlmsg_flags = NLM_F_REQUEST | flags;
    struct nfgenmsg *g = NLMSG_DATA(n);
    g->nfgen_family = AF_UNSPEC;
    g->version = NFNETLINK_V0;
    g->res_id = htons(queue);
    return n;
}

static int send_msg(int fd, struct nlmsghdr *n)
{
    struct sockaddr_nl to = {.nl_family = AF_NETLINK};
    return sendto(fd, n, n->nlmsg_len, 0, (struct sockaddr *)&to, sizeof to) < 0 ? -1 : 0;
}

/* Sends a configuration message and waits for the kernel's acknowledgement. */
static int configure(int fd, struct nlmsghdr *n, const char *what)
{
    n->nlmsg_flags |= NLM_F_ACK;
    if (send_msg(fd, n) < 0) {
        fprintf(stderr, "trellis-delayq: %s: %s\n", what, strerror(errno));
        return -1;
    }
    char buf[MSG_ROOM];
    ssize_t got = recv(fd, buf, sizeof buf, 0);
    struct nlmsghdr *r = (struct nlmsghdr *)buf;
    if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) || r->nlmsg_type != NLMSG_ERROR) {
        fprintf(stderr, "trellis-delayq: %s: no acknowledgement\n", what);
        return -1;
    }
    int err = ((struct nlmsgerr *)NLMSG_DATA(r))->error;
    if (err) {
        fprintf(stderr, "trellis-delayq: %s: %s\n", what, strerror(-err));
        return -1;
    }
    return 0;
}

static int bind_queue(int fd, uint16_t queue)
{
    char buf[MSG_ROOM];
    struct nlmsghdr *n = start_msg(buf, NFQNL_MSG_CONFIG, queue, 0);
    struct nfqnl_msg_config_cmd cmd = {.command = NFQNL_CFG_CMD_BIND};
    put_attr(n, NFQA_CFG_CMD, &cmd, sizeof cmd);
    if (configure(fd, n, "binding the queue (is another process bound to it?)") < 0)
        return -1;
    n = start_msg(buf, NFQNL_MSG_CONFIG, queue, 0);
    struct nfqnl_msg_config_params params = {.copy_range = 0, .copy_mode = NFQNL_COPY_META};
    put_attr(n, NFQA_CFG_PARAMS, &params, sizeof params);
    uint32_t maxlen = htonl(HELD_MAX);
    put_attr(n, NFQA_CFG_QUEUE_MAXLEN, &maxlen, sizeof maxlen);
    uint32_t flags = htonl(NFQA_CFG_F_FAIL_OPEN);
    put_attr(n, NFQA_CFG_MASK, &flags, sizeof flags);
    put_attr(n, NFQA_CFG_FLAGS, &flags, sizeof flags);
    return configure(fd, n, "setting the queue's mode");
}

/* Accepts every packet up to and including id. */
static int release_to(int fd, uint16_t queue, uint32_t id)
{
    char buf[MSG_ROOM];
    struct nlmsghdr *n = start_msg(buf, NFQNL_MSG_VERDICT_BATCH, queue, 0);
    struct nfqnl_msg_verdict_hdr v = {.verdict = htonl(NF_ACCEPT), .id = htonl(id)};
    put_attr(n, NFQA_VERDICT_HDR, &v, sizeof v);
    return send_msg(fd, n);
}

/* The packet id in one queue message, or -1 if it has none. */
static int64_t packet_id(struct nlmsghdr *n)
{
    if (n->nlmsg_type != ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
        return -1;
    size_t off = NLMSG_ALIGN(NLMSG_LENGTH(sizeof(struct nfgenmsg)));
    while (off + NLA_HDRLEN <= n->nlmsg_len) {
        struct nlattr *a = (struct nlattr *)((char *)n + off);
        if (a->nla_len < NLA_HDRLEN || off + a->nla_len > n->nlmsg_len)
            break;
        if ((a->nla_type & NLA_TYPE_MASK) == NFQA_PACKET_HDR &&
            a->nla_len >= NLA_HDRLEN + sizeof(struct nfqnl_msg_packet_hdr)) {
            struct nfqnl_msg_packet_hdr *h = (void *)((char *)a + NLA_HDRLEN);
            return ntohl(h->packet_id);
        }
        off += NLA_ALIGN(a->nla_len);
    }
    return -1;
}

/* Reads every message waiting, holding each packet until now + delay. */
static int take_packets(int fd, int64_t delay_ns)
{
    static char buf[1 << 16];
    for (;;) {
        ssize_t got = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (got < 0)
            return errno == EAGAIN || errno == EINTR || errno == ENOBUFS ? 0 : -1;
        int64_t due = now_ns() + delay_ns;
        size_t left = (size_t)got;
        for (struct nlmsghdr *n = (struct nlmsghdr *)buf; NLMSG_OK(n, left);
             n = NLMSG_NEXT(n, left)) {
            int64_t id = packet_id(n);
            if (id < 0 || count == HELD_MAX)
                continue; /* full: the kernel queue is as long and fails open first */
            held[(head + count++) % HELD_MAX] = (held_packet){(uint32_t)id, due};
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: trellis-delayq QUEUE DELAY_US\n");
        return 2;
    }
    char *end_q, *end_d;
    long queue = strtol(argv[1], &end_q, 10);
    long delay_us = strtol(argv[2], &end_d, 10);
    if (queue < 0 || queue > 65535 || delay_us < 0 || *end_q || *end_d || end_q == argv[1] ||
        end_d == argv[2]) {
        fprintf(stderr, "trellis-delayq: QUEUE 0-65535 and DELAY_US >= 0, whole numbers\n");
        return 2;
    }
    int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER);
    if (fd < 0) {
        fprintf(stderr, "trellis-delayq: netlink socket: %s\n", strerror(errno));
        return 1;
    }
    int room = 8 << 20; /* many packets' messages may wait while the process sleeps */
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof room);
    int one = 1; /* ENOBUFS is no reason to stop: the packets lost fail open */
    setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);
    struct sockaddr_nl me = {.nl_family = AF_NETLINK};
    if (bind(fd, (struct sockaddr *)&me, sizeof me) < 0 || bind_queue(fd, (uint16_t)queue) < 0)
        return 1;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("trellis-delayq: queue %ld, %ld us\n", queue, delay_us);
    fflush(stdout);
    const int64_t delay_ns = delay_us * 1000;
    while (!stopping) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        struct timespec wait = {.tv_sec = 1}, *timeout = &wait;
        if (count) {
            int64_t in = held[head].due_ns - now_ns();
            wait = (struct timespec){.tv_sec = in > 0 ? in / 1000000000 : 0,
                                     .tv_nsec = in > 0 ? in % 1000000000 : 0};
        }
        if (ppoll(&p, 1, timeout, NULL) < 0 && errno != EINTR)
            break;
        if ((p.revents & POLLIN) && take_packets(fd, delay_ns) < 0) {
            fprintf(stderr, "trellis-delayq: reading the queue: %s\n", strerror(errno));
            break;
        }
        int64_t now = now_ns();
        size_t due = 0;
        while (due < count && held[(head + due) % HELD_MAX].due_ns <= now)
            due++;
        if (due) {
            if (release_to(fd, (uint16_t)queue, held[(head + due - 1) % HELD_MAX].id) < 0)
                fprintf(stderr, "trellis-delayq: verdict: %s\n", strerror(errno));
            head = (head + due) % HELD_MAX;
            count -= due;
        }
    }
    if (count) /* let the rest go now rather than have them dropped */
        release_to(fd, (uint16_t)queue, held[(head + count - 1) % HELD_MAX].id);
    close(fd);
    return 0;
}
