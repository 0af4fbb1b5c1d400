"""Drawing ranks grouped by host with arcs between them, like seed 000's Figures 2 and
3: one box per host, a circle per rank, arcs that cross hosts dashed and red. The same
picture is written as SVG (by hand, so its structure is plain: one <g class="host"> per
host, one <circle class="rank"> per rank, one <line class="arc"> per arc, "arc cross"
for those between hosts) and as PNG (matplotlib)."""

from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

BOX_GAP, RANK_GAP, LEVEL_GAP, RADIUS, MARGIN = 30.0, 44.0, 70.0, 14.0, 20.0
CROSS_COLOUR, LOCAL_COLOUR = "#c0392b", "#34495e"


@dataclass
class Picture:
    title: str
    host_of: list[int]
    level: list[int]  # a rank's row (its depth in a tree; 0 for schedules)
    arcs: list[tuple[int, int]]  # (from, to)

    @property
    def nhosts(self) -> int:
        return max(self.host_of) + 1 if self.host_of else 0


def place(pic: Picture) -> tuple[dict[int, tuple[float, float]], list[tuple[float, float, float]]]:
    """Each rank's centre, and each host's box (x, width, height); a host's ranks side
    by side within their row, rows one level apart."""
    centre: dict[int, tuple[float, float]] = {}
    boxes = []
    x = MARGIN
    rows = max(pic.level) + 1 if pic.level else 1
    height = rows * LEVEL_GAP + 2 * RADIUS
    for h in range(pic.nhosts):
        ranks = [r for r, host in enumerate(pic.host_of) if host == h]
        widest = max((sum(1 for r in ranks if pic.level[r] == lv) for lv in range(rows)), default=1)
        width = max(widest, 1) * RANK_GAP + RANK_GAP / 2
        for lv in range(rows):
            row = [r for r in ranks if pic.level[r] == lv]
            for i, r in enumerate(row):
                cx = x + RANK_GAP * (i + 0.75) + (width - RANK_GAP / 2 - len(row) * RANK_GAP) / 2
                centre[r] = (cx, MARGIN + 30 + RADIUS + lv * LEVEL_GAP)
        boxes.append((x, width, height))
        x += width + BOX_GAP
    return centre, boxes


def crosses(pic: Picture, arc: tuple[int, int]) -> bool:
    return pic.host_of[arc[0]] != pic.host_of[arc[1]]


def svg(pic: Picture) -> str:
    centre, boxes = place(pic)
    width = (boxes[-1][0] + boxes[-1][1] + MARGIN) if boxes else 2 * MARGIN
    height = (max(b[2] for b in boxes) if boxes else 0) + 2 * MARGIN + 30
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
        ),
        f"<title>{escape(pic.title)}</title>",
        (
            f'<text x="{MARGIN}" y="{MARGIN}" font-family="sans-serif" font-size="14">'
            f"{escape(pic.title)}</text>"
        ),
    ]
    for h, (x, w, hgt) in enumerate(boxes):
        out.append(f'<g class="host" id="host{h}">')
        out.append(
            f'<rect x="{x:.1f}" y="{MARGIN + 10:.1f}" width="{w:.1f}" height="{hgt:.1f}" '
            'fill="#f4f6f7" stroke="#7f8c8d" rx="6"/>'
        )
        out.append(
            f'<text x="{x + 6:.1f}" y="{MARGIN + 24:.1f}" font-family="sans-serif" '
            f'font-size="11">host {h}</text>'
        )
        out.append("</g>")
    for a in pic.arcs:
        (x1, y1), (x2, y2) = centre[a[0]], centre[a[1]]
        cross = crosses(pic, a)
        style = (
            f'stroke="{CROSS_COLOUR}" stroke-dasharray="5,3"'
            if cross
            else f'stroke="{LOCAL_COLOUR}"'
        )
        out.append(
            f'<line class="arc{" cross" if cross else ""}" data-from="{a[0]}" data-to="{a[1]}" '
            f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" {style} stroke-width="1.5"/>'
        )
    for r, (cx, cy) in sorted(centre.items()):
        out.append(
            f'<circle class="rank" data-rank="{r}" cx="{cx:.1f}" cy="{cy:.1f}" r="{RADIUS}" '
            'fill="white" stroke="black"/>'
        )
        out.append(
            f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle" font-family="sans-serif" '
            f'font-size="11">{r}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def png(pic: Picture, path: Path) -> tuple[int, int]:
    """The same drawing with matplotlib; returns the image's (width, height) in pixels."""
    import matplotlib  # noqa: PLC0415 -- loaded only when a picture is drawn

    matplotlib.use("Agg")
    from matplotlib import patches  # noqa: PLC0415
    from matplotlib import pyplot as plt  # noqa: PLC0415

    centre, boxes = place(pic)
    width = (boxes[-1][0] + boxes[-1][1] + MARGIN) if boxes else 2 * MARGIN
    height = (max(b[2] for b in boxes) if boxes else 0) + 2 * MARGIN + 30
    dpi = 100
    fig = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.axis("off")
    ax.text(MARGIN, MARGIN, pic.title, fontsize=10, va="bottom")
    for h, (x, w, hgt) in enumerate(boxes):
        box = patches.FancyBboxPatch(
            (x, MARGIN + 10), w, hgt, boxstyle="round,pad=0,rounding_size=6",
            facecolor="#f4f6f7", edgecolor="#7f8c8d",
        )  # fmt: skip
        ax.add_patch(box)
        ax.text(x + 6, MARGIN + 24, f"host {h}", fontsize=8)
    for a in pic.arcs:
        (x1, y1), (x2, y2) = centre[a[0]], centre[a[1]]
        cross = crosses(pic, a)
        ax.plot([x1, x2], [y1, y2], color=CROSS_COLOUR if cross else LOCAL_COLOUR,
                linestyle="--" if cross else "-", linewidth=1.2, zorder=1)  # fmt: skip
    for r, (cx, cy) in centre.items():
        ax.add_patch(
            patches.Circle((cx, cy), RADIUS, facecolor="white", edgecolor="black", zorder=2)
        )
        ax.text(cx, cy, str(r), ha="center", va="center", fontsize=8, zorder=3)
    fig.savefig(path, dpi=dpi)
    size = fig.canvas.get_width_height()
    plt.close(fig)
    return size
