"""Drawing ranks grouped by host with the messages between them, like seed 000's Figures
2 and 3: one box per host, a circle per rank, an arrow per pair of ranks that exchange a
message (sender to receiver), dashed where it crosses hosts.

Every arrow is a curve that bends to the left of its direction (in the picture): the two
directions between a pair of ranks make a lens instead of one line, and an arc between
ranks of one row arches over (or under) the ranks between them, a quarter of its length
high, instead of running along the row. For a schedule each arrow is coloured by the round of
its first message (the messages on the longest chain up to and including it) and
labelled with every round it carries; a legend maps colours to rounds.

One scene is computed, then written twice, so the two agree: as SVG by hand (its
structure is plain: one <g class="host"> per host, one <circle class="rank"> per rank,
one <path class="arc"> per arrow with data-from, data-to and data-rounds, class "arc cross"
across hosts) and as PNG (matplotlib)."""

import math
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

BOX_GAP, RANK_GAP, LEVEL_GAP, RADIUS, MARGIN = 30.0, 56.0, 70.0, 14.0, 20.0
# How far a curve's control point is off its chord (the apex is half as far): along a
# row, far enough to clear the ranks between; across rows, a lens for the two directions.
ROW_BEND, ROW_MIN_BEND, CROSS_ROW_BEND, CROSS_ROW_MIN_BEND = 0.5, 40.0, 0.15, 24.0
HEAD_LENGTH, HEAD_WIDTH = 9.0, 7.0
TITLE_BAND, LEGEND_BAND = 24.0, 20.0
LEGEND_MOST = 16  # rounds a legend lists one by one
CROSS_COLOUR, LOCAL_COLOUR = "#c0392b", "#34495e"
# Rounds 1..10 (matplotlib's tab10); more rounds than that are spread over viridis.
ROUND_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"]  # fmt: skip
VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779",
           "#6ece58", "#b5de2b", "#fde725"]  # fmt: skip

Point = tuple[float, float]


@dataclass
class Arc:
    src: int  # the sender
    dst: int  # the receiver
    rounds: tuple[int, ...] = ()  # the rounds its messages go in (a schedule); () for a tree


@dataclass
class Picture:
    title: str
    host_of: list[int]
    level: list[int]  # a rank's row (its depth in a tree, its hops from a root)
    arcs: list[Arc]

    @property
    def nhosts(self) -> int:
        return max(self.host_of) + 1 if self.host_of else 0

    @property
    def rounds(self) -> int:
        return max((max(a.rounds) for a in self.arcs if a.rounds), default=0)


@dataclass
class Arrow:
    arc: Arc
    cross: bool
    colour: str
    curve: tuple[Point, Point, Point]  # start, control, end of a quadratic Bezier
    head: tuple[Point, Point, Point]  # the filled triangle at the end
    label: str
    label_at: Point


@dataclass
class Scene:
    """Everything placed, in picture coordinates (pixels, y down)."""

    title: str
    width: float
    height: float
    boxes: list[tuple[float, float, float, float]]  # x, y, width, height per host
    centres: dict[int, Point]
    arrows: list[Arrow]
    legend: list[tuple[str, str]] = field(default_factory=list)  # (colour, text)


def round_colour(r: int, rounds: int) -> str:
    if rounds <= len(ROUND_COLOURS):
        return ROUND_COLOURS[r - 1]
    return VIRIDIS[round((r - 1) * (len(VIRIDIS) - 1) / max(rounds - 1, 1))]


def rounds_text(rounds: tuple[int, ...]) -> str:
    """(1, 2, 3, 5) -> "1-3,5"."""
    parts: list[str] = []
    values = sorted(set(rounds))
    start = prev = values[0]
    for r in [*values[1:], None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if r is not None:
            start = prev = r
    return ",".join(parts)


def place(pic: Picture) -> tuple[dict[int, Point], list[tuple[float, float, float, float]]]:
    """Each rank's centre, and each host's box (x, y, width, height); a host's ranks side
    by side within their row, in rank order, rows one level apart."""
    centre: dict[int, Point] = {}
    boxes = []
    x = 0.0
    rows = max(pic.level) + 1 if pic.level else 1
    height = rows * LEVEL_GAP
    for h in range(pic.nhosts):
        ranks = [r for r, host in enumerate(pic.host_of) if host == h]
        widest = max((sum(1 for r in ranks if pic.level[r] == lv) for lv in range(rows)), default=1)
        width = max(widest, 1) * RANK_GAP + RANK_GAP / 2
        for lv in range(rows):
            row = [r for r in ranks if pic.level[r] == lv]
            for i, r in enumerate(row):
                cx = x + RANK_GAP * (i + 0.75) + (width - RANK_GAP / 2 - len(row) * RANK_GAP) / 2
                centre[r] = (cx, 22 + RADIUS + lv * LEVEL_GAP)
        boxes.append((x, 0.0, width, height))
        x += width + BOX_GAP
    return centre, boxes


def _unit(dx: float, dy: float) -> Point:
    length = math.hypot(dx, dy) or 1.0
    return dx / length, dy / length


def curve_of(p0: Point, p2: Point) -> tuple[tuple[Point, Point, Point], tuple[Point, Point, Point]]:
    """The curve from one rank's circle to another's, bent to the left of its direction,
    and its arrowhead."""
    (x0, y0), (x2, y2) = p0, p2
    length = math.hypot(x2 - x0, y2 - y0)
    ux, uy = _unit(x2 - x0, y2 - y0)
    same_row = abs(y2 - y0) < 1
    bend = (max(ROW_MIN_BEND, ROW_BEND * length) if same_row
            else max(CROSS_ROW_MIN_BEND, CROSS_ROW_BEND * length))  # fmt: skip
    control = ((x0 + x2) / 2 + uy * bend, (y0 + y2) / 2 - ux * bend)
    sx, sy = _unit(control[0] - x0, control[1] - y0)
    ex, ey = _unit(control[0] - x2, control[1] - y2)
    start = (x0 + sx * RADIUS, y0 + sy * RADIUS)
    end = (x2 + ex * RADIUS, y2 + ey * RADIUS)
    # The head points along the curve's tangent at its end: from the control point.
    dx, dy = _unit(end[0] - control[0], end[1] - control[1])
    base = (end[0] - dx * HEAD_LENGTH, end[1] - dy * HEAD_LENGTH)
    half = HEAD_WIDTH / 2
    head = (
        end,
        (base[0] - dy * half, base[1] + dx * half),
        (base[0] + dy * half, base[1] - dx * half),
    )
    return (start, control, end), head


def _bezier(curve: tuple[Point, Point, Point], t: float) -> Point:
    (x0, y0), (x1, y1), (x2, y2) = curve
    a, b, c = (1 - t) ** 2, 2 * (1 - t) * t, t * t
    return a * x0 + b * x1 + c * x2, a * y0 + b * y1 + c * y2


def scene(pic: Picture) -> Scene:
    """Place everything, then move it so that the title, the legend, every box and every
    arc's bulge fit inside the picture."""
    centres, boxes = place(pic)
    rounds = pic.rounds
    arrows = []
    for arc in pic.arcs:
        cross = pic.host_of[arc.src] != pic.host_of[arc.dst]
        curve, head = curve_of(centres[arc.src], centres[arc.dst])
        if arc.rounds:
            colour = round_colour(min(arc.rounds), rounds)
            label = rounds_text(arc.rounds)
        else:
            colour, label = (CROSS_COLOUR if cross else LOCAL_COLOUR), ""
        arrows.append(Arrow(arc, cross, colour, curve, head, label, _bezier(curve, 0.5)))
    legend = [(round_colour(r, rounds), str(r)) for r in range(1, rounds + 1)]
    if len(legend) > LEGEND_MOST:  # a gradient: say where it starts, and where it ends
        legend = [legend[0], (legend[-1][0], f"... {rounds}")]

    points = [p for a in arrows for t in (0.0, 0.25, 0.5, 0.75, 1.0) for p in [_bezier(a.curve, t)]]
    points += [(x, y) for x, y, w, h in boxes] + [(x + w, y + h) for x, y, w, h in boxes]
    left = min(p[0] for p in points) - MARGIN
    top = min(p[1] for p in points) - MARGIN - TITLE_BAND - (LEGEND_BAND if legend else 0)
    right = max(p[0] for p in points) + MARGIN
    bottom = max(p[1] for p in points) + MARGIN
    right = max(right, left + 2 * MARGIN + 7 * len(pic.title), left + 60 + 34 * len(legend))

    def moved(p: Point) -> Point:
        return p[0] - left, p[1] - top

    for a in arrows:
        a.curve = (moved(a.curve[0]), moved(a.curve[1]), moved(a.curve[2]))
        a.head = (moved(a.head[0]), moved(a.head[1]), moved(a.head[2]))
        a.label_at = moved(a.label_at)
    return Scene(
        pic.title, right - left, bottom - top,
        [(x - left, y - top, w, h) for x, y, w, h in boxes],
        {r: moved(p) for r, p in centres.items()}, arrows, legend,
    )  # fmt: skip


def _legend_items(s: Scene) -> list[tuple[float, str, str]]:
    """(x, colour, text) of each legend entry, after the word "round"."""
    return [(MARGIN + 50 + 34 * i, colour, text) for i, (colour, text) in enumerate(s.legend)]


def svg(pic: Picture) -> str:
    s = scene(pic)
    font = 'font-family="sans-serif"'
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{s.width:.0f}" '
         f'height="{s.height:.0f}" viewBox="0 0 {s.width:.0f} {s.height:.0f}">'),
        f"<title>{escape(s.title)}</title>",
        f'<text x="{MARGIN}" y="{MARGIN + 4}" {font} font-size="14">{escape(s.title)}</text>',
    ]  # fmt: skip
    if s.legend:
        y = MARGIN + TITLE_BAND + 4
        out.append(f'<g class="legend"><text x="{MARGIN}" y="{y}" {font} font-size="11">round'
                   "</text>")  # fmt: skip
        for x, colour, text in _legend_items(s):
            out.append(f'<rect x="{x:.1f}" y="{y - 9}" width="10" height="10" fill="{colour}"/>'
                       f'<text x="{x + 13:.1f}" y="{y}" {font} font-size="11">{text}'
                       "</text>")  # fmt: skip
        out.append("</g>")
    for h, (x, y, w, hgt) in enumerate(s.boxes):
        out.append(f'<g class="host" id="host{h}">')
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{hgt:.1f}" '
                   'fill="#f4f6f7" stroke="#7f8c8d" rx="6"/>')  # fmt: skip
        out.append(f'<text x="{x + 6:.1f}" y="{y + 14:.1f}" {font} font-size="11">host {h}</text>')
        out.append("</g>")
    for a in s.arrows:
        (x0, y0), (x1, y1), (x2, y2) = a.curve
        dash = ' stroke-dasharray="5,3"' if a.cross else ""
        rounds = ",".join(map(str, a.arc.rounds))
        out.append(
            f'<path class="arc{" cross" if a.cross else ""}" data-from="{a.arc.src}" '
            f'data-to="{a.arc.dst}" data-rounds="{rounds}" d="M {x0:.1f} {y0:.1f} Q {x1:.1f} '
            f'{y1:.1f} {x2:.1f} {y2:.1f}" fill="none" stroke="{a.colour}" stroke-width="1.5"'
            f"{dash}/>"
        )
        head = " ".join(f"{x:.1f},{y:.1f}" for x, y in a.head)
        out.append(f'<polygon class="head" points="{head}" fill="{a.colour}"/>')
    for a in s.arrows:  # labels over every line
        if a.label:
            x, y = a.label_at
            out.append(f'<text class="round" x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" '
                       f'{font} font-size="10" fill="{a.colour}" stroke="white" stroke-width="3" '
                       f'paint-order="stroke">{a.label}</text>')  # fmt: skip
    for r, (cx, cy) in sorted(s.centres.items()):
        out.append(f'<circle class="rank" data-rank="{r}" cx="{cx:.1f}" cy="{cy:.1f}" '
                   f'r="{RADIUS}" fill="white" stroke="black"/>')  # fmt: skip
        out.append(f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle" {font} '
                   f'font-size="11">{r}</text>')  # fmt: skip
    out.append("</svg>")
    return "\n".join(out) + "\n"


def png(pic: Picture, path: Path) -> tuple[int, int]:
    """The same drawing with matplotlib; returns the image's (width, height) in pixels."""
    import matplotlib  # noqa: PLC0415 -- loaded only when a picture is drawn

    matplotlib.use("Agg")
    from matplotlib import patches, patheffects  # noqa: PLC0415
    from matplotlib import pyplot as plt  # noqa: PLC0415
    from matplotlib.path import Path as CurvePath  # noqa: PLC0415

    s = scene(pic)
    dpi = 100
    pt = 72 / dpi  # font sizes are in points, the scene in pixels
    fig = plt.figure(figsize=(s.width / dpi, s.height / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, s.width)
    ax.set_ylim(s.height, 0)
    ax.axis("off")
    ax.text(MARGIN, MARGIN + 4, s.title, fontsize=14 * pt, va="baseline")
    if s.legend:
        y = MARGIN + TITLE_BAND + 4
        ax.text(MARGIN, y, "round", fontsize=11 * pt, va="baseline")
        for x, colour, text in _legend_items(s):
            ax.add_patch(patches.Rectangle((x, y - 9), 10, 10, facecolor=colour))
            ax.text(x + 13, y, text, fontsize=11 * pt, va="baseline")
    for h, (x, y, w, hgt) in enumerate(s.boxes):
        ax.add_patch(patches.FancyBboxPatch((x, y), w, hgt,
                                            boxstyle="round,pad=0,rounding_size=6",
                                            facecolor="#f4f6f7", edgecolor="#7f8c8d"))  # fmt: skip
        ax.text(x + 6, y + 14, f"host {h}", fontsize=11 * pt, va="baseline")
    curve_codes = [CurvePath.MOVETO, CurvePath.CURVE3, CurvePath.CURVE3]
    for a in s.arrows:
        ax.add_patch(patches.PathPatch(CurvePath(list(a.curve), curve_codes), fill=False,
                                       edgecolor=a.colour, linewidth=1.5 * pt,
                                       linestyle=(0, (5 / 1.5, 3 / 1.5)) if a.cross else "-",
                                       zorder=1))  # fmt: skip
        ax.add_patch(patches.Polygon(list(a.head), closed=True, facecolor=a.colour,
                                     edgecolor="none", zorder=1))  # fmt: skip
    halo = [patheffects.withStroke(linewidth=3 * pt, foreground="white")]
    for a in s.arrows:
        if a.label:
            ax.text(*a.label_at, a.label, fontsize=10 * pt, color=a.colour, ha="center",
                    va="center", zorder=2, path_effects=halo)  # fmt: skip
    for r, (cx, cy) in s.centres.items():
        ax.add_patch(patches.Circle((cx, cy), RADIUS, facecolor="white", edgecolor="black",
                                    zorder=3))  # fmt: skip
        ax.text(cx, cy, str(r), ha="center", va="center", fontsize=11 * pt, zorder=4)
    fig.savefig(path, dpi=dpi)
    size = fig.canvas.get_width_height()
    plt.close(fig)
    return size
