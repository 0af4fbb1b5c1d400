"""`trellis simulate` against the 4-byte calls bench/sim_small.sh measured: 4 hosts,
round-robin, 1, 2 and 4 ranks per host.

    python3 bench/sim_small.py OUT MODEL"""

import sys
from pathlib import Path

from sim_accuracy import measured, predict

RULES = {
    "linear": "allreduce reduce_bcast reduce=linear bcast=linear",
    "hier1": "allreduce hier levels=host,world host=linear "
    "world=reduce_bcast(reduce=linear,bcast=linear)",
}


def main() -> int:
    out, model = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    rows = measured([out], by_ranks=True)
    head = "| ranks (per host) | config | measured us (min..max, repetitions) | predicted us |"
    lines = [head + " error |", "|---:|---|---:|---:|---:|"]
    for r in rows:
        layout = f"hosts=4 ranks_per_host={r['ranks'] // 4} placement=round-robin"
        p = predict(model, RULES[r["config"]], layout, r["bytes"], r["ranks"])
        lines.append(f"| {r['ranks']} ({r['ranks'] // 4}) | {r['config']} | {r['us']:.1f} "
                     f"({r['min']:.1f}..{r['max']:.1f}, {r['reps']}) | {p:.1f} | "
                     f"{100 * (p / r['us'] - 1):+.0f}% |")  # fmt: skip
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
