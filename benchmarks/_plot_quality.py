"""Draw the figure of bench_quality.py (runs in a virtual environment with matplotlib)."""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main(source, target):
    with open(source) as handle:
        data = json.load(handle)
    kinds = data["kinds"]
    fig, axes = plt.subplots(1, len(kinds), figsize=(4 * len(kinds), 4), sharex=True)
    for axis, kind in zip(axes, kinds):
        summary = data["summary"][kind]
        width = summary["width"]
        groups = (
            ("different modules", "tab:gray", lambda r: r["old"] != r["new"]),
            ("same module, two versions", "tab:blue", lambda r: r["old"] == r["new"]),
        )
        for label, colour, chosen in groups:
            rows = [r for r in data["rows"] if chosen(r)]
            axis.scatter(
                [r["jaccard"] for r in rows], [r[kind] for r in rows], s=6, c=colour, label=label
            )
        axis.axhline(
            summary["threshold"],
            color="tab:red",
            lw=1,
            label=f"best d <= {summary['threshold']} (F1 {summary['f1']})",
        )
        axis.axvline(data["near"], color="tab:green", lw=1, ls="--")
        axis.set_title(kind, fontsize=10)
        axis.set_xlabel("Jaccard similarity of 4-token shingles")
        axis.set_ylim(0, width * 0.6)
        axis.legend(fontsize=7, loc="upper right")
    axes[0].set_ylabel("Hamming distance (bits)")
    fig.tight_layout()
    fig.savefig(target, dpi=90)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
