"""`trellis trace DIR`: what a traced run (TRELLIS_TRACE=DIR, `trellis run --trace DIR`)
recorded, three ways:

- a Chrome trace-event JSON file for the Perfetto UI (ui.perfetto.dev): a process per
  host, a track per rank (more where its steps overlap), a slice per call and per step,
  a flow arrow per message;
- printed: the breakdown of the last calls (time per phase on the critical path, each
  rank's time transferring, waiting for a late peer, reducing and copying, the path) and
  the aggregate per (collective, bytes, algorithm), from timeline.py as `trellis
  simulate` prints it;
- a PNG timeline of one call.

The records' format: docs/trace-format.md."""

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from trellis import timeline
from trellis.native import TrellisError


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "trace",
        help="show where a traced run's collectives spent their time",
        description="Read the records a traced run wrote (TRELLIS_TRACE=DIR, or trellis run "
        "--trace DIR): print the breakdown of the last calls and the aggregate per "
        "collective, size and algorithm; write a trace-event JSON file for the Perfetto UI "
        "and a PNG timeline of one call (docs/trace-format.md).",
    )
    parser.add_argument("dir", type=Path, metavar="DIR|FILE",
                        help="the directory a traced run wrote, or a records file "
                        "(trellis simulate --records)")  # fmt: skip
    parser.add_argument("--run", metavar="ID",
                        help="the run to analyse where DIR holds the files of several (its id "
                        "or the start of it; default: the newest)")  # fmt: skip
    parser.add_argument("--calls", type=int, default=1, metavar="N",
                        help="print the breakdown of the last N calls (1); 0: none")  # fmt: skip
    parser.add_argument("--perfetto", type=Path, metavar="FILE",
                        help="the trace-event JSON file (default DIR/trace.json, or "
                        "FILE's name with .trace.json)")  # fmt: skip
    parser.add_argument("--png", type=Path, metavar="FILE",
                        help="the timeline picture (default DIR/timeline.png, or FILE's "
                        "name with .timeline.png)")  # fmt: skip
    parser.add_argument("--call", type=int, metavar="K",
                        help="the call the picture shows: K-th in the timeline, from 0, "
                        "negative from the end (default: the last)")  # fmt: skip
    parser.add_argument("--json", action="store_true",
                        help="print the reports as JSON instead of text")  # fmt: skip
    parser.add_argument("--path-rows", type=int, default=24, metavar="N",
                        help="rows of the critical path to print (24)")  # fmt: skip
    parser.set_defaults(func=run)


@dataclass
class Loaded:
    """The timeline read, the run it is (None: files that name none), and what the
    reading left out or found missing, to say."""

    timeline: timeline.Timeline
    run: str | None
    notes: list[str]
    source: str = "trace"  # the trace record's: "simulate" for trellis simulate --records


def _header(path: Path) -> dict:
    """A file's `trace` record (its first), or {} where it has none."""
    try:
        with path.open() as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    return rec if isinstance(rec, dict) and rec.get("type") == "trace" else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        pass
    return {}


NAMES_LISTED = 3  # files named one by one; more as a range
MISSING_LISTED = 8  # missing files named


def _names(paths: list[Path]) -> str:
    if len(paths) <= NAMES_LISTED:
        return ", ".join(p.name for p in paths)
    return f"{paths[0].name} .. {paths[-1].name} ({len(paths)} files)"


def _run_name(run: str | None) -> str:
    return f"run {run}" if run else "files naming no run"


def _pick_run(where: Path, groups: dict[str | None, list[Path]], wanted: str | None,
              notes: list[str]) -> str | None:  # fmt: skip
    """The run to analyse: --run's, else the only one, else the newest (said)."""
    if wanted is not None:
        hits = [r for r in groups if r and r.startswith(wanted)]
        if len(hits) != 1:
            held = "; ".join(f"{_run_name(r)}: {_names(p)}" for r, p in groups.items())
            what = "no run" if not hits else "several runs"
            raise TrellisError(f"trace: --run {wanted}: {where} holds {what} of that id "
                               f"({held})", 2)  # fmt: skip
        return hits[0]
    if len(groups) == 1:
        return next(iter(groups))

    def newest(run: str | None) -> float:
        return max(p.stat().st_mtime for p in groups[run])

    chosen = max(groups, key=newest)
    others = "; ".join(f"{_run_name(r)}: {_names(p)}" for r, p in groups.items() if r != chosen)
    notes.append(f"{where} holds the files of {len(groups)} runs: this is the newest, "
                 f"{_run_name(chosen)} ({_names(groups[chosen])}); left out {others} "
                 "(--run ID analyses another)")  # fmt: skip
    return chosen


def load(where: Path, run: str | None = None) -> Loaded:
    """The records of one run: a traced run's directory (every rank-*.jsonl file in it
    written by one run: the newest, or --run's) or one records file (`trellis simulate
    --records`)."""
    if where.is_file():
        files = [where]
    elif where.is_dir():
        files = sorted(where.glob("rank-*.jsonl"))
        if not files:
            raise TrellisError(f"trace: {where} holds no rank-*.jsonl files: was the run "
                               "traced (TRELLIS_TRACE, trellis run --trace) and did it reach "
                               "MPI_Finalize?")  # fmt: skip
    else:
        raise TrellisError(f"trace: {where}: no such directory or records file")
    headers = {p: _header(p) for p in files}
    groups: dict[str | None, list[Path]] = {}
    for p in files:
        groups.setdefault(headers[p].get("run"), []).append(p)
    notes: list[str] = []
    chosen = _pick_run(where, groups, run, notes)
    files = groups[chosen]
    size = headers[files[0]].get("world_size")
    if isinstance(size, int) and len(files) < size:
        have = {p.name for p in files}
        missing = [name for name in (f"rank-{r:05d}.jsonl" for r in range(size))
                   if name not in have]  # fmt: skip
        more = ", ..." if len(missing) > MISSING_LISTED else ""
        notes.append(f"{_run_name(chosen)} had {size} ranks, {len(files)} of them left a file "
                     f"(missing: {', '.join(missing[:MISSING_LISTED])}{more}): did every rank "
                     "reach MPI_Finalize?")  # fmt: skip
    try:
        source = str(headers[files[0]].get("source", "trace"))
        return Loaded(timeline.read_records(files), chosen, notes, source)
    except timeline.TimelineError as err:
        raise TrellisError(f"trace: {err}") from None


def chronological(tl: timeline.Timeline) -> list[int]:
    """The calls in the order they started (their first entry)."""
    first: dict[int, float] = {}
    for e in tl.entries:
        c = int(e["call"])
        first[c] = min(first.get(c, float(e["t_enter"])), float(e["t_enter"]))
    return sorted(tl.calls, key=lambda c: first.get(c, 0.0))


def complete(tl: timeline.Timeline, call: int) -> bool:
    """Whether every rank of the call left its record (each keeps its last calls)."""
    return int((tl.entries["call"] == call).sum()) == tl.calls[call].ranks


def call_title(c: timeline.Call) -> str:
    return f"{c.collective} {c.algorithm}, {c.bytes} bytes, {c.ranks} ranks"


# ---- Perfetto ------------------------------------------------------------------------


def _lanes(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Lane per interval (in the given order, sorted by start) such that the intervals
    on a lane do not overlap: trace-event slices on one track must nest."""
    lane_end: list[float] = []
    out = np.zeros(len(starts), dtype=int)
    for i in np.argsort(starts, kind="stable"):
        for k, end in enumerate(lane_end):
            if end <= starts[i]:
                lane_end[k] = ends[i]
                out[i] = k
                break
        else:
            out[i] = len(lane_end)
            lane_end.append(ends[i])
    return out


def perfetto(tl: timeline.Timeline) -> dict:
    """The timeline as Chrome trace events (microseconds)."""
    host_of = {int(r["rank"]): int(r["host"]) for r in tl.ranks}
    events: list[dict] = []
    t0 = float(tl.entries["t_enter"].min()) if len(tl.entries) else 0.0

    def us(t: float) -> float:
        return (t - t0) / 1000.0

    lanes_used: dict[int, int] = {}
    for h in sorted(set(host_of.values()) or {0}):
        name = f"host {h}"
        hostnames = {tl.hostnames[r] for r, x in host_of.items() if x == h and r in tl.hostnames}
        if len(hostnames) == 1:
            name += f" ({hostnames.pop()})"
        events.append({"ph": "M", "name": "process_name", "pid": h, "args": {"name": name}})
    for e in tl.entries:
        c = tl.calls[int(e["call"])]
        r = tl.world(int(e["call"]), int(e["rank"]))
        events.append({"ph": "X", "name": call_title(c), "cat": "call",
                       "pid": host_of.get(r, 0), "tid": r * 64, "ts": us(e["t_enter"]),
                       "dur": us(e["t_exit"]) - us(e["t_enter"]),
                       "args": {"rule": c.rule, "call": c.id}})  # fmt: skip
        lanes_used.setdefault(r, 1)
    st = tl.steps
    sends: dict[tuple[int, int, int, int], int] = {}
    for call in np.unique(st["call"]):
        for rank in np.unique(st["rank"][st["call"] == call]):
            rows = np.flatnonzero((st["call"] == call) & (st["rank"] == rank))
            r = tl.world(int(call), int(rank))
            lane = _lanes(st["t_posted"][rows], st["t_done"][rows])
            # Lane 0 holds the call's own slice: steps nest in it.
            for row, k in zip(rows, lane, strict=True):
                s = st[row]
                kind = timeline.KINDS[int(s["kind"])]
                message = kind in ("send", "recv")
                name = kind + (f" {'to' if kind == 'send' else 'from'} {int(s['peer'])}"
                               if message else "")  # fmt: skip
                tid = int(r) * 64 + int(k)
                lanes_used[int(r)] = max(lanes_used.get(int(r), 1), int(k) + 1)
                args = {"step": int(s["step"]), "bytes": int(s["bytes"]),
                        "phase": tl.phases[int(s["phase"])],
                        "ready_us": us(s["t_ready"])}  # fmt: skip
                if message:
                    args |= {"tag": int(s["tag"]), "level": timeline.LINKS[int(s["link"])]}
                events.append({"ph": "X", "name": name, "cat": kind,
                               "pid": host_of.get(int(r), 0), "tid": tid,
                               "ts": us(s["t_posted"]),
                               "dur": max(us(s["t_done"]) - us(s["t_posted"]), 0.0),
                               "args": args})  # fmt: skip
                if message:
                    me, peer = int(rank), int(s["peer"])
                    src, dst = (me, peer) if kind == "send" else (peer, me)
                    key = (int(call), src, dst, int(s["tag"]))
                    flow = sends.setdefault(key, len(sends))
                    ph = "s" if kind == "send" else "f"
                    at = us(s["t_posted"]) if kind == "send" else us(s["t_done"])
                    ev = {"ph": ph, "name": "message", "cat": "message", "id": flow,
                          "pid": host_of.get(int(r), 0), "tid": tid, "ts": at}  # fmt: skip
                    if ph == "f":
                        ev["bp"] = "e"
                    events.append(ev)
    for r, n in lanes_used.items():
        for k in range(n):
            name = f"rank {r}" + (f" ({k + 1})" if k else "")
            events.append({"ph": "M", "name": "thread_name", "pid": host_of.get(r, 0),
                           "tid": r * 64 + k, "args": {"name": name}})  # fmt: skip
            events.append({"ph": "M", "name": "thread_sort_index", "pid": host_of.get(r, 0),
                           "tid": r * 64 + k, "args": {"sort_index": r * 64 + k}})  # fmt: skip
    return {"traceEvents": events, "displayTimeUnit": "ns"}


# ---- the picture ---------------------------------------------------------------------

COLOURS = {"send": "#1f77b4", "recv": "#ff7f0e", "copy": "#2ca02c", "reduce": "#d62728",
           "nop": "#7f7f7f"}  # fmt: skip


def png(tl: timeline.Timeline, call: int, path: Path) -> None:
    """One call: a row per rank, a bar per step (posted to done), a line per message."""
    import matplotlib  # noqa: PLC0415 -- loaded only when a picture is drawn

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt  # noqa: PLC0415
    from matplotlib.patches import Patch  # noqa: PLC0415

    c = tl.calls[call]
    st = tl.steps[tl.steps["call"] == call]
    ent = tl.entries[tl.entries["call"] == call]
    t0 = float(ent["t_enter"].min())
    ranks = sorted(int(r) for r in ent["rank"])
    row = {r: i for i, r in enumerate(ranks)}
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.45 * len(ranks)))
    for e in ent:
        y = row[int(e["rank"])]
        ax.plot([(e["t_enter"] - t0) / 1e3, (e["t_exit"] - t0) / 1e3], [y, y], color="#bbbbbb",
                linewidth=1.5, zorder=1)  # fmt: skip
    sends = {}
    for s in st:
        kind = timeline.KINDS[int(s["kind"])]
        y = row.get(int(s["rank"]))
        if y is None:
            continue
        start, end = (s["t_posted"] - t0) / 1e3, (s["t_done"] - t0) / 1e3
        # Sends above the rank's line, receives below, local work across it.
        shift, height, z = {"send": (-0.17, 0.3, 2), "recv": (0.17, 0.3, 2)}.get(kind, (0, 0.6, 3))
        ax.barh(y + shift, max(end - start, 1e-3), left=start, height=height,
                color=COLOURS[kind], zorder=z)  # fmt: skip
        if kind == "send":
            sends[(int(s["rank"]), int(s["peer"]), int(s["tag"]))] = start
    for s in st:
        if timeline.KINDS[int(s["kind"])] != "recv":
            continue
        key = (int(s["peer"]), int(s["rank"]), int(s["tag"]))
        if key in sends and key[0] in row:
            ax.annotate("", xy=((s["t_done"] - t0) / 1e3, row[int(s["rank"])] + 0.17),
                        xytext=(sends[key], row[key[0]] - 0.17),
                        arrowprops={"arrowstyle": "->", "color": "#555555", "lw": 0.6})  # fmt: skip
    ax.set_yticks(range(len(ranks)), [f"rank {r}" + (f" (world {tl.world(call, r)})"
                                                      if tl.world(call, r) != r else "")
                                      for r in ranks])  # fmt: skip
    ax.set_ylim(len(ranks) - 0.5, -0.5)
    ax.set_xlabel(
        "microseconds from the first entry (grey line: in the call; sends above it, "
        "receives below; arrows: messages, send posted to receive done)"
    )
    total = (float(ent["t_exit"].max()) - t0) / 1e3
    ax.set_title(f"{call_title(c)}: {total:.1f} us", pad=24)
    ax.legend(handles=[Patch(color=v, label=k) for k, v in COLOURS.items()],
              loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=5, frameon=False,
              fontsize="small")  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---- the command ---------------------------------------------------------------------


def clock_line(tl: timeline.Timeline) -> str:
    if not len(tl.ranks):
        return "clocks: no rank records"
    off = np.abs(tl.ranks["clock_offset"])
    err = tl.ranks["clock_error"]
    return (f"clocks: {len(tl.ranks)} ranks lined up on rank 0's clock; offsets up to "
            f"{timeline.us(float(off.max()))}, estimated error up to "
            f"{timeline.us(float(err.max()))}")  # fmt: skip


def outputs(args: argparse.Namespace) -> tuple[Path, Path]:
    """Where the trace-event file and the picture go."""
    if args.dir.is_file():
        base = args.dir.with_suffix("")
        json_default, png_default = Path(f"{base}.trace.json"), Path(f"{base}.timeline.png")
    else:
        json_default, png_default = args.dir / "trace.json", args.dir / "timeline.png"
    return args.perfetto or json_default, args.png or png_default


def run(args: argparse.Namespace) -> str:
    loaded = load(args.dir, args.run)
    tl = loaded.timeline
    if not tl.calls:
        raise TrellisError(f"trace: {args.dir} holds no traced calls (only blocking "
                           "collectives that Trellis serves are traced)")  # fmt: skip
    order = chronological(tl)
    reports = {r.call.call: r for r in timeline.analyze(tl)}
    last = [c for c in order if complete(tl, c)] or order
    shown = [reports[c] for c in last[-args.calls :]] if args.calls > 0 else []
    aggregates = timeline.aggregate(list(reports.values()))
    out_json, out_png = outputs(args)
    if args.call is not None and not -len(order) <= args.call < len(order):
        raise TrellisError(f"trace: --call {args.call}: the timeline holds {len(order)} calls "
                           f"(0..{len(order) - 1}, or -1..-{len(order)} from the end)")  # fmt: skip
    which = order[args.call] if args.call is not None else last[-1]
    out_json.write_text(json.dumps(perfetto(tl)))
    png(tl, which, out_png)
    if args.json:
        return json.dumps({
            "run": loaded.run, "notes": loaded.notes,
            "calls": len(tl.calls), "ranks": len(tl.ranks),
            "clock_error_ns": float(tl.ranks["clock_error"].max()) if len(tl.ranks) else None,
            "clock_offset_ns": [float(x) for x in tl.ranks["clock_offset"]],
            "reports": [{"call": r.call.id, "title": call_title(r.call)} | timeline.report_json(r)
                        for r in shown],
            "aggregates": [timeline.aggregate_json(a) for a in aggregates],
            "perfetto": str(out_json), "png": str(out_png),
        }, indent=1) + "\n"  # fmt: skip
    out = [f"note: {n}" for n in loaded.notes]
    if loaded.source == "simulate":
        out.append(f"{len(tl.calls)} simulated calls, {len(tl.ranks)} ranks (trellis simulate)")
    else:
        run = f" (run {loaded.run})" if loaded.run else ""
        out.append(f"{len(tl.calls)} traced calls, {len(tl.ranks)} ranks{run}; {clock_line(tl)}")
    for r in shown:
        rule = f" (rule {r.call.rule})" if r.call.rule else ""
        out += ["", f"call {r.call.id}: {call_title(r.call)}{rule}",
                timeline.format_report(r, args.path_rows)]  # fmt: skip
    out += ["", timeline.format_aggregates(aggregates), "",
            (f"wrote {out_json} (open it in https://ui.perfetto.dev) and {out_png} "
             f"(call {tl.calls[which].id})")]  # fmt: skip
    return "\n".join(out) + "\n"
