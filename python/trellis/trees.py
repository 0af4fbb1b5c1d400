"""Trees over ranks for `trellis plan` and `trellis show`: a cluster description, the
named schemes of seed 000 (and a k-nomial hierarchy), and the tree and script file
formats of docs/trees.md (written here, read back for drawing).

A tree is a list `parent` (None at the root) and a list of ordered child lists."""

from dataclasses import dataclass, field
from pathlib import Path

from trellis.native import TrellisError

LAM_LINEAR_UP_TO = 4  # LAM-MPI used the linear scheme up to 4 processes (seed 000)
TREE_LINE_WORDS = 4  # "rank R parent P": children follow


@dataclass
class Tree:
    parent: list[int | None]
    children: list[list[int]]

    @property
    def size(self) -> int:
        return len(self.parent)

    @property
    def root(self) -> int:
        return next(r for r, p in enumerate(self.parent) if p is None)

    @classmethod
    def from_parents(cls, parent: list[int | None], order: list[list[int]] | None = None):
        """Children in rank order unless an order is given."""
        children: list[list[int]] = [[] for _ in parent]
        for r, p in enumerate(parent):
            if p is not None:
                children[p].append(r)
        return cls(parent, order if order is not None else children)

    def subtree_size(self, rank: int) -> int:
        return 1 + sum(self.subtree_size(c) for c in self.children[rank])

    def depth_of(self, rank: int) -> int:
        d = 0
        while self.parent[rank] is not None:
            rank = self.parent[rank]  # type: ignore[assignment]
            d += 1
        return d


@dataclass
class Cluster:
    """Hosts with their rank counts, ranks placed by block or round-robin."""

    per_host: list[int]
    placement: str = "block"
    sockets_per_host: int = 0
    host_of: list[int] = field(init=False)

    def __post_init__(self) -> None:
        if not self.per_host or min(self.per_host) < 1:
            raise TrellisError("trellis plan: every host needs at least one rank", 2)
        if self.placement not in {"block", "round-robin"}:
            raise TrellisError(
                f"trellis plan: --placement must be block or round-robin, not {self.placement}", 2
            )
        left = list(self.per_host)
        self.host_of = []
        h = 0
        for _ in range(sum(self.per_host)):
            while left[h] == 0:
                h = (h + 1) % len(left)
            self.host_of.append(h)
            left[h] -= 1
            if self.placement == "round-robin":
                h = (h + 1) % len(left)

    @property
    def size(self) -> int:
        return len(self.host_of)

    def ranks_of(self, host: int) -> list[int]:
        return [r for r, h in enumerate(self.host_of) if h == host]

    def socket_lists(self) -> list[list[int]]:
        """Each host's ranks in rank order cut into sockets_per_host runs, the first ones
        one larger (as TRELLIS_TOPOLOGY's sockets_per_host does)."""
        out = []
        for h in range(len(self.per_host)):
            ranks = self.ranks_of(h)
            base, extra = divmod(len(ranks), self.sockets_per_host)
            at = 0
            for j in range(self.sockets_per_host):
                n = base + (1 if j < extra else 0)
                if n:
                    out.append(ranks[at : at + n])
                at += n
        return out

    def layout_text(self) -> str:
        """The cluster as TRELLIS_TOPOLOGY takes it: explicit host= (and socket=) lists."""
        lines = [f"host={ranges(self.ranks_of(h))}" for h in range(len(self.per_host))]
        if self.sockets_per_host:
            lines += [f"socket={ranges(s)}" for s in self.socket_lists()]
        return "\n".join(lines) + "\n"


def ranges(ranks: list[int]) -> str:
    """[0, 1, 2, 5] -> "0-2,5"."""
    parts, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        parts.append(str(ranks[i]) if i == j else f"{ranks[i]}-{ranks[j]}")
        i = j + 1
    return ",".join(parts)


# ---- schemes -----------------------------------------------------------------------


def linear(ranks: list[int]) -> list[tuple[int, int]]:
    """(child, parent) arcs: every rank a child of the first, in order."""
    return [(r, ranks[0]) for r in ranks[1:]]


def knomial(ranks: list[int], radix: int) -> list[tuple[int, int]]:
    """A k-nomial tree over positions 0..n-1 of ranks (position 0 at the top): the
    parent of v clears v's lowest non-zero base-radix digit."""
    arcs = []
    for v in range(1, len(ranks)):
        m = 1
        while (v // m) % radix == 0:
            m *= radix
        arcs.append((ranks[v], ranks[v - ((v // m) % radix) * m]))
    return arcs


def knomial_order(tree: Tree) -> Tree:
    """Children farthest first (largest subtree), as k-nomial trees serve them."""

    order = [sorted(kids, key=lambda c: -tree.subtree_size(c)) for kids in tree.children]
    return Tree(tree.parent, order)


def remote_first(tree: Tree, cluster: Cluster) -> Tree:
    """The bcast order of a reduce tree: children on other hosts first, then the larger
    subtrees, so the message that has the farthest to go leaves first and its latency
    overlaps the local sends. (On the oversubscribed testbed the order did not show:
    364 us against 366 us in rank order, docs/notebook/seed000.md.)"""

    def key(parent: int, c: int) -> tuple[bool, int, int]:
        return (cluster.host_of[c] == cluster.host_of[parent], -tree.subtree_size(c), c)

    order = [sorted(kids, key=lambda c, r=r: key(r, c)) for r, kids in enumerate(tree.children)]
    return Tree(tree.parent, order)


def lam_reduce(p: int) -> Tree:
    """LAM-MPI 6.5's reduce tree: rank r's parent clears its lowest set bit, its
    children are r+1, r+2, r+4, ... below that bit (rank 12: 13, 14; parent 8)."""
    parent: list[int | None] = [None] + [r & (r - 1) for r in range(1, p)]
    order = []
    for r in range(p):
        kids, bit = [], 1
        while bit < p and not (r & bit) and r + bit < p:
            kids.append(r + bit)
            bit <<= 1
        order.append(kids)
    return Tree.from_parents(parent, order)


def lam_bcast(p: int) -> Tree:
    """LAM-MPI 6.5's broadcast tree: rank r's parent clears its highest set bit, its
    children are r + 2^i for every 2^i above r's highest bit, in increasing order."""
    parent: list[int | None] = [None] + [r - (1 << (r.bit_length() - 1)) for r in range(1, p)]
    order = []
    for r in range(p):
        bit = 1 << r.bit_length() if r else 1
        kids = []
        while r + bit < p:
            kids.append(r + bit)
            bit <<= 1
        order.append(kids)
    return Tree.from_parents(parent, order)


def leaders_first(cluster: Cluster, group: int | None) -> list[list[int]]:
    """Each host's ranks cut into groups of `group` (None: the whole host); rank 0
    leads its own group, the lowest rank leads the others."""
    groups = []
    for h in range(len(cluster.per_host)):
        ranks = cluster.ranks_of(h)
        size = group or len(ranks)
        groups += [ranks[i : i + size] for i in range(0, len(ranks), size)]
    return groups


def from_arcs(p: int, arcs: list[tuple[int, int]]) -> Tree:
    parent: list[int | None] = [None] * p
    for child, up in arcs:
        parent[child] = up
    return Tree.from_parents(parent)


def scheme_trees(scheme: str, cluster: Cluster, group: int, radix: int) -> tuple[Tree, Tree]:
    """(reduce tree, bcast tree) of a named scheme; root is rank 0."""
    p = cluster.size
    if scheme == "lam":
        if p <= LAM_LINEAR_UP_TO:
            t = from_arcs(p, linear(list(range(p))))
            return t, t
        return lam_reduce(p), lam_bcast(p)
    if scheme == "linear":
        t = from_arcs(p, linear(list(range(p))))
        return t, t
    if scheme in {"hier", "hier-split"}:
        groups = leaders_first(cluster, group if scheme == "hier-split" else None)
        arcs = []
        for g in groups:
            arcs += linear(g)  # the group's ranks report to its leader
        leaders = sorted(g[0] for g in groups if g[0] != 0)
        arcs += [(leader, 0) for leader in leaders]
        # On rank 0's own host the leader is 0: its group's ranks come first.
        t = from_arcs(p, arcs)
        return t, remote_first(t, cluster)
    if scheme == "knomial-hier":
        arcs = []
        hosts = [cluster.ranks_of(h) for h in range(len(cluster.per_host))]
        for ranks in hosts:
            arcs += knomial(ranks, radix)
        leaders = sorted(ranks[0] for ranks in hosts)
        arcs += knomial(leaders, radix)
        t = knomial_order(from_arcs(p, arcs))
        return t, t
    raise TrellisError(
        f"trellis plan: unknown scheme '{scheme}' (lam, linear, hier, hier-split, knomial-hier)", 2
    )


# ---- files ---------------------------------------------------------------------------


def tree_section(tree: Tree) -> list[str]:
    lines = []
    for r in range(tree.size):
        up = "none" if tree.parent[r] is None else str(tree.parent[r])
        kids = " children " + " ".join(map(str, tree.children[r])) if tree.children[r] else ""
        lines.append(f"rank {r} parent {up}{kids}")
    return lines


def script_section(tree: Tree, *, reduce: bool) -> list[str]:
    lines = []
    for r in range(tree.size):
        up = tree.parent[r]
        if reduce:
            cmds = [f"recv {c}" for c in tree.children[r]] + (
                [f"send {up}"] if up is not None else []
            )
        else:
            cmds = ([f"recv {up}"] if up is not None else []) + [
                f"send {c}" for c in tree.children[r]
            ]
        lines.append(f"rank {r}: " + ", ".join(cmds))
    return lines


def file_text(kind: str, reduce: Tree, bcast: Tree, header: str) -> str:
    """A tree file (kind "tree") or script file (kind "script") with both directions."""
    lines = [f"trellis {kind}", f"# {header}", f"ranks {reduce.size}", f"root {reduce.root}"]
    if kind == "tree" and reduce == bcast:
        lines += ["both", *tree_section(reduce)]
    elif kind == "tree":
        lines += ["reduce", *tree_section(reduce), "bcast", *tree_section(bcast)]
    else:
        lines += ["reduce", *script_section(reduce, reduce=True)]
        lines += ["bcast", *script_section(bcast, reduce=False)]
    return "\n".join(lines) + "\n"


def read_file(path: Path) -> dict[str, Tree]:
    """The directions of a tree or script file ("reduce", "bcast"). Files are checked
    fully by the C loader when rules name them; this reader trusts their shape."""
    lines = [ln.split("#", 1)[0].strip() for ln in path.read_text().splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines or lines[0] not in {"trellis tree", "trellis script"}:
        raise TrellisError(f"{path}: not a tree or script file (first line)", 2)
    script = lines[0] == "trellis script"
    size = next(int(ln.split()[1]) for ln in lines if ln.startswith("ranks "))
    sections: dict[str, Tree] = {}
    name = ""
    parent: list[int | None] = []
    order: list[list[int]] = []

    def close() -> None:
        if name:
            tree = Tree(parent, order)
            for d in ["reduce", "bcast"] if name == "both" else [name]:
                sections[d] = tree

    for ln in lines[1:]:
        if ln in {"reduce", "bcast", "both"}:
            close()
            name, parent, order = ln, [None] * size, [[] for _ in range(size)]
        elif ln.startswith("rank "):
            parse_rank_line(ln, script=script, reduce=name != "bcast", parent=parent, order=order)
    close()
    return sections


def parse_rank_line(
    line: str, *, script: bool, reduce: bool, parent: list[int | None], order: list[list[int]]
) -> None:
    words = line.replace(",", " ").replace(":", " ").split()
    r = int(words[1])
    if not script:
        parent[r] = None if words[3] == "none" else int(words[3])
        order[r] = [int(w) for w in words[5:]] if len(words) > TREE_LINE_WORDS else []
        return
    cmds = list(zip(words[2::2], map(int, words[3::2]), strict=True))
    up = "send" if reduce else "recv"
    parent[r] = next((peer for cmd, peer in cmds if cmd == up), None)
    order[r] = [peer for cmd, peer in cmds if cmd != up]


# ---- seed 000's three factors ----------------------------------------------------------


@dataclass
class Factors:
    max_children: int
    children_per_level: list[int]  # the most children of a rank at each depth
    depth: int
    crossing_arcs: int  # arcs between ranks on different hosts

    def text(self) -> str:
        per_level = " ".join(map(str, self.children_per_level))
        return (
            f"children per node: max {self.max_children} (per level: {per_level}); "
            f"depth: {self.depth}; arcs crossing hosts: {self.crossing_arcs}"
        )


def factors(tree: Tree, host_of: list[int]) -> Factors:
    depth = max(tree.depth_of(r) for r in range(tree.size))
    per_level = [0] * (depth + 1)
    for r in range(tree.size):
        d = tree.depth_of(r)
        per_level[d] = max(per_level[d], len(tree.children[r]))
    crossing = sum(
        1 for r, p in enumerate(tree.parent) if p is not None and host_of[r] != host_of[p]
    )
    return Factors(max(per_level), per_level[:-1] or [0], depth, crossing)
