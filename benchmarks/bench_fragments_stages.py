"""Where the time of ``samecode scan --fragments`` goes, step by step, beside jscpd 5.

    python benchmarks/bench_fragments_stages.py [--repeat 3] [--trees stdlib django]
        [--wait-idle 120]

On the trees of :mod:`bench_fragments_speed`, in one process, each step of the scan is
timed over every file (or every candidate pair) with the library's own functions, as
``--jobs 1`` runs them but with the files held in memory (no scratch files, no worker
processes). Reading and fingerprinting a file:

* ``read``: the file's text (:func:`samecode.sources.reading.read_text`);
* ``tokens``: its tokens with their spans, ids and line starts
  (:meth:`TokenSpans.of <samecode.fragments.tokens.TokenSpans.of>`);
* ``boilerplate``: licence headers, import blocks and a catalogue's message ids masked
  (:func:`samecode.fragments.boilerplate.mask`), and its translations' copies of them
  (:func:`samecode.fragments.boilerplate.kgram_masks`), as the scan masks them;
* ``k-gram hashes``: :func:`samecode.text.shingling.kgram_hashes`;
* ``winnowing``: :func:`samecode.fragments.winnowing.winnow`;
* ``look-up arrays``: the k-grams sorted by hash, and the sieves
  (:meth:`Kgrams.selecting <samecode.fragments.kgrams.Kgrams.selecting>`).

Then the index and its candidate pairs, and for each pair (:func:`find_regions
<samecode.fragments.regions.find_regions>`): ``exact matches`` (:func:`exact_matches
<samecode.fragments.regions.exact_matches>`), ``chains`` (:func:`chain_matches
<samecode.fragments.regions.chain_matches>`) and ``regions`` (the rest: the largest of
overlapping chains, their ends grown, their lines); then the clone ``classes`` and their
digests; then the ``report``: the JSON lines of the regions, classes and ranges ignored
(:func:`~samecode.reports.fragments.jsonl_pieces`, written as the command writes them,
to ``os.devnull``), which the main process writes alone whatever ``--jobs``.

Three lower bounds, each a single call into C per file (or per k-gram) that any design
fingerprinting every token in this interpreter makes: the tokenizer's regular
expression alone (``regex``, :meth:`Shingling.token_list
<samecode.text.shingling.Shingling.token_list>`), the k-gram hashes, and sorting the
k-grams by hash (``sort``, ``sorted(range(n), key=hashes.__getitem__)``).

In the same run, each a fresh process: ``samecode scan --fragments --jobs 1`` and
``--jobs 2``, and jscpd, as :mod:`bench_fragments_speed` runs them. The report gives each
step's median seconds and nanoseconds per token, and the CPU seconds two cores have in
twice jscpd's wall time (the issue's bar for ``--jobs 2``). Not part of CI.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_fragments_speed import Tree, arguments, commands, save, trees
from bench_pipeline import timed, wait_idle
from samecode.cli.output import write
from samecode.fragments import FragmentOptions
from samecode.fragments.boilerplate import kgram_masks, mask
from samecode.fragments.classes import region_classes
from samecode.fragments.digest import class_digests
from samecode.fragments.ignored import IgnoredRanges, masked_ranges
from samecode.fragments.index import FingerprintIndex
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.regions import chain_matches, exact_matches, find_regions, region_order
from samecode.fragments.result import FragmentResult
from samecode.fragments.tokens import TokenSpans
from samecode.fragments.winnowing import winnow
from samecode.reports.fragments import jsonl_pieces
from samecode.sources.reading import read_text
from samecode.sources.walk import WalkOptions, discover
from samecode.text.shingling import kgram_hashes

STEPS = [
    "read",
    "tokens",
    "boilerplate",
    "k-gram hashes",
    "winnowing",
    "look-up arrays",
    "index and pairs",
    "exact matches",
    "chains",
    "regions",
    "classes",
    "report",
]
FLOORS = ["regex", "k-gram hashes", "sort"]


class Clock:
    """Seconds spent per step, summed over calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, step: str, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = work(*args, **kwargs)
        self.seconds[step] = self.seconds.get(step, 0.0) + time.perf_counter() - started
        return result


def write_jsonl(result: FragmentResult) -> None:
    """The JSON lines report of ``result``, written as the command writes it (joined in
    chunks), to nowhere."""
    write(jsonl_pieces(result, {}), os.devnull)


def steps(tree: Tree) -> tuple[dict[str, float], dict[str, float], int]:
    """One pass over ``tree``: the seconds of each step and floor, and the tokens."""
    options = FragmentOptions()
    walk = WalkOptions(gitignore=False)
    paths, _ = discover([str(root) for root in tree.paths], walk)
    clock, floors = Clock(), Clock()
    files = []
    held = []  # each file's ranges ignored, as the scan keeps them
    for path in paths:
        text = clock("read", read_text, path, walk.max_size)
        if not hasattr(text, "text"):
            continue
        text = text.text
        floors("regex", options.shingling.token_list, text, path)
        spans = clock("tokens", TokenSpans.of, text, options.shingling, path)
        ignored = clock("boilerplate", mask, path, text, spans, options.k)
        tokens = spans  # masking leaves the tokens as they are
        if len(tokens) < walk.min_tokens:
            continue
        clock("k-gram hashes", kgram_hashes, tokens.ids, options.k)
        masked = clock(
            "boilerplate", kgram_masks, path, tokens.ids, ignored, options.k,
            options.masks_msgid_copies,
        )  # fmt: skip
        # the k-grams as the scan makes them (boilerplate's hashes blocked), not timed;
        # then their two steps, timed
        kgrams = Kgrams.of(tokens.ids, options.k, options.window, masked)
        floors("sort", sorted, range(len(kgrams.hashes)), key=kgrams.hashes.__getitem__)
        clock("winnowing", winnow, kgrams.hashes, options.window)
        clock("look-up arrays", Kgrams.selecting, kgrams.hashes, kgrams.selected)
        files.append((path, tokens, kgrams, masked_ranges(ignored)))  # as digests take them
        held.append(ignored)
    floors.seconds["k-gram hashes"] = clock.seconds["k-gram hashes"]
    index = FingerprintIndex()
    for number, (_, _, kgrams, _) in enumerate(files):
        clock("index and pairs", index.add, number, kgrams.fingerprints())
    limit = options.boilerplate_limit(len(files))
    ignored_hashes = clock("index and pairs", index.boilerplate, limit)
    pairs = clock("index and pairs", index.candidate_pairs, ignored_hashes)
    regions = []
    for i, j in pairs:
        (a_path, a, a_kgrams, _), (b_path, b, b_kgrams, _) = files[i], files[j]
        if b_path < a_path:
            a_path, a, a_kgrams, b_path, b, b_kgrams = b_path, b, b_kgrams, a_path, a, a_kgrams
        started = time.perf_counter()
        found_regions, _ = find_regions(
            a, b, options, paths=(a_path, b_path), ignored=ignored_hashes,
            kgrams=(a_kgrams, b_kgrams),
        )  # fmt: skip
        whole = time.perf_counter() - started
        regions += found_regions
        exact = clock("exact matches", exact_matches, a.ids, b.ids, k=options.k,
                      window=options.window, max_repeats=options.max_repeats, same=a is b,
                      ignored=ignored_hashes, kgrams=(a_kgrams, b_kgrams))  # fmt: skip
        clock("chains", chain_matches, exact[0], options.gap)
        clock.seconds["regions"] = clock.seconds.get("regions", 0.0) + whole
    # the regions' share: find_regions less the exact matches and chains it made
    clock.seconds["regions"] -= clock.seconds["exact matches"] + clock.seconds["chains"]
    regions.sort(key=region_order)
    classes, numbers = clock("classes", region_classes, regions)
    ids = {path: tokens.ids for path, tokens, _, _ in files}
    masked_by_path = {path: masked for path, _, _, masked in files if masked}
    clock("classes", class_digests, classes, ids, masked_by_path)
    result = FragmentResult(
        options, list(ids), [], regions, classes, numbers, 0, 0, 1, 0,
        ignored=IgnoredRanges.join(held),
        tokens={path: len(tokens) for path, tokens, _, _ in files},
    )  # fmt: skip
    clock("report", write_jsonl, result)
    return clock.seconds, floors.seconds, sum(result.tokens.values())


def main() -> int:
    args = arguments(__doc__)
    report = []
    for name, tree in trees(args.trees).items():
        measured: list[dict[str, float]] = []
        least: list[dict[str, float]] = []
        walls: dict[str, list[float]] = {}
        tokens = 0
        with tempfile.TemporaryDirectory() as out:
            for number in range(args.repeat):
                print(f"[{name}: repeat {number + 1} of {args.repeat}]", file=sys.stderr)
                wait_idle(args.wait_idle)
                seconds, floors, tokens = steps(tree)
                measured.append(seconds)
                least.append(floors)
                for tool, command in commands(tree, Path(out)).items():
                    wait_idle(args.wait_idle)
                    walls.setdefault(tool, []).append(timed(command).wall)
        median = {step: statistics.median(m[step] for m in measured) for step in STEPS}
        floor = {step: statistics.median(m[step] for m in least) for step in FLOORS}
        wall = {tool: statistics.median(got) for tool, got in walls.items()}
        total = sum(median.values())
        budget = 2 * 2 * wall["jscpd"]
        report += [
            f"### {name}: {tokens:,} tokens",
            "",
            "| step | seconds | ns per token | share |",
            "|---|---|---|---|",
            *(
                f"| {step} | {median[step]:.2f} | {median[step] / tokens * 1e9:.0f} | "
                f"{median[step] / total:.0%} |"
                for step in STEPS
            ),
            f"| all steps | {total:.2f} | {total / tokens * 1e9:.0f} | 100% |",
            "",
            "| lower bound (C) | seconds | ns per token |",
            "|---|---|---|",
            *(
                f"| {step} | {floor[step]:.2f} | {floor[step] / tokens * 1e9:.0f} |"
                for step in FLOORS
            ),
            f"| the three | {sum(floor.values()):.2f} | {sum(floor.values()) / tokens * 1e9:.0f} |",
            "",
            f"- wall: samecode --jobs 1 {wall['samecode --jobs 1']:.2f} s, --jobs 2 "
            f"{wall['samecode --jobs 2']:.2f} s, jscpd {wall['jscpd']:.2f} s",
            f"- twice jscpd's wall time on two cores: {budget:.2f} CPU seconds "
            f"({budget / tokens * 1e9:.0f} ns per token) for everything; the three lower "
            f"bounds take {sum(floor.values()) / budget:.0%} of it, the steps "
            f"{total / budget:.1f}x it",
            "",
        ]
    save("\n".join(report), "bench_fragments_stages.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
