#!/usr/bin/env python3
"""Draws `minigpu model --plot`: efficiency vs GPU count (log2 axis), one panel per scaling mode.

Usage: plot_model.py TABLES.json OUT.png
TABLES.json is what `minigpu model` computed (title, details, tables with p and efficiency per
algorithm): this script draws, it computes nothing. Exit codes: 0 done, 2 usage error."""
import json
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# matplotlib through Debian's python if need be
from plot import DPI, import_pyplot, main_until_interrupted  # noqa: E402

STYLES = {"row": ("#1f77b4", "o", "-"), "summa": ("#ff7f0e", "s", "-"),
          "summa_overlap": ("#2ca02c", "^", "--"), "2.5d_bound": ("#7f7f7f", "D", ":")}


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as f:
            data = json.load(f)
        tables = data["tables"]
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_model.py: {argv[0]}: {e}", file=sys.stderr)
        return 2
    plt = import_pyplot()
    fig, axes = plt.subplots(1, len(tables), figsize=(6.5 * len(tables), 5.6), squeeze=False)
    for ax, table in zip(axes[0], tables):
        for name, values in table["efficiency"].items():
            colour, marker, line = STYLES.get(name, ("#000000", "x", "-"))
            ax.plot(table["p"], values, color=colour, marker=marker, linestyle=line, label=name)
        ax.set_xscale("log", base=2)
        ax.set_xticks(table["p"])
        ax.set_xticklabels([str(p) for p in table["p"]])
        ax.set_ylim(0, 105)
        ax.set_xlabel("GPUs p")
        ax.set_ylabel("efficiency % (model)")
        ax.set_title("\n".join(textwrap.wrap(table["title"], 60)), fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Model figures, not measurements", fontsize=12, fontweight="bold")
    footer = textwrap.fill(data.get("title", ""), 160)
    fig.text(0.01, 0.01, footer, fontsize=6, va="bottom")
    fig.tight_layout(rect=(0, 0.06, 1, 0.95))
    fig.savefig(argv[1], dpi=DPI)
    return 0


if __name__ == "__main__":
    sys.exit(main_until_interrupted(main, sys.argv[1:]))
