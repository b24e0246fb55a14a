"""The fragment reports at scale: size and time to write HTML, JSON lines and SARIF for N
regions.

    python benchmarks/bench_fragments_reports.py --regions 10000 --browser

Writes a tree of Python-like files into a temporary folder: ``--regions`` blocks of 8
lines, each planted in two files (20 blocks per file, filler lines between them), and
makes the result a scan would give for it (one region and one class of two occurrences
per block, found from where the blocks were planted; the scan itself is not timed here,
see ``bench_fragments_quality.py``). Then it times :func:`~samecode.reports.html.to_html`,
the JSON lines report and :func:`~samecode.reports.sarif.to_sarif` (``--runs`` rounds,
each calling the three in turn; medians of wall and CPU time) and prints the sizes, plain
and gzipped, and the HTML's time over the JSON lines' (the median of the rounds' ratios).
With ``--browser``, it opens the HTML page in a headless Chromium (Debian's
chromium and chromium-driver, through selenium) and reports, timed in the page, when it
had loaded and when its lines were unpacked (``performance.now()``), the elements it
holds then, and the time to show the last region side by side.
"""

from __future__ import annotations

import argparse
import gzip
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from samecode.fragments.classes import region_classes
from samecode.fragments.options import FragmentOptions
from samecode.fragments.regions import Region
from samecode.fragments.result import FragmentResult
from samecode.reports.fragments import jsonl_pieces
from samecode.reports.html import to_html
from samecode.reports.sarif import to_sarif

PER_FILE = 20
BLOCK_LINES = 8
FILLER = 3


def block(number: int, rng: random.Random) -> list[str]:
    names = [f"value_{number}_{i}" for i in range(BLOCK_LINES)]
    lines = [f"def step_{number}(data, limit={rng.randint(1, 99)}):"]
    lines += [f"    {n} = transform(data, {rng.randint(0, 999)}) + limit  # step {i}"
              for i, n in enumerate(names[: BLOCK_LINES - 2])]  # fmt: skip
    lines.append(f"    return {' + '.join(names[: BLOCK_LINES - 2])}")
    return lines


def make_tree(root: Path, regions: int, seed: int) -> FragmentResult:
    rng = random.Random(seed)
    files = max(2, 2 * regions // PER_FILE)
    slots = [(f, s) for f in range(files) for s in range(PER_FILE)]
    rng.shuffle(slots)
    content: dict[int, dict[int, int]] = {}  # file -> slot -> block
    for number in range(regions):
        for f, s in (slots[2 * number], slots[2 * number + 1]):
            content.setdefault(f, {})[s] = number
    blocks = {n: block(n, rng) for n in range(regions)}
    where: dict[int, list[tuple[str, int]]] = {}
    paths = []
    for f in range(files):
        path = root / f"pkg{f % 50}" / f"module_{f}.py"
        path.parent.mkdir(exist_ok=True)
        lines = [f'"""Module {f}."""', "", "import os"]
        for s in range(PER_FILE):
            lines += [f"CONSTANT_{f}_{s}_{i} = {rng.random()!r}" for i in range(FILLER)]
            if s in content.get(f, {}):
                number = content[f][s]
                where.setdefault(number, []).append((str(path), len(lines) + 1))
                lines += blocks[number]
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    found = []
    for number in range(regions):
        (a, a_line), (b, b_line) = sorted(where[number])
        found.append(Region(a, b, a_line, a_line + BLOCK_LINES - 1, b_line,
                            b_line + BLOCK_LINES - 1, 90, 0.05, 0.05, a_line * 10,
                            a_line * 10 + 90, b_line * 10, b_line * 10 + 90, ()))  # fmt: skip
    found.sort(key=lambda r: (r.a, r.b, r.a_first, r.b_first, r.a_stop, r.b_stop))
    classes, region_class = region_classes(found)
    digests = [tuple(f"{rng.getrandbits(128):032x}" for _ in c.occurrences) for c in classes]
    tokens = dict.fromkeys(paths, 1800)  # 90 tokens are 5 % of a file (the regions' share)
    for r in found:  # and a file holds its regions' tokens
        tokens[r.a], tokens[r.b] = max(tokens[r.a], r.a_stop), max(tokens[r.b], r.b_stop)
    return FragmentResult(FragmentOptions(), sorted(paths), [], found, classes, region_class,
                          0, 0, 10, 0, digests=digests, tokens=tokens)  # fmt: skip


def timed(writers: dict[str, Callable[[], str]], runs: int) -> dict[str, list[Any]]:
    """Each writer's wall and CPU seconds over ``runs`` rounds, and what its last call
    made; each round calls every writer once, in turn, so that a change in the machine's
    load falls on all of them alike."""
    made: dict[str, list[Any]] = {name: [[], [], ""] for name in writers}
    for _ in range(runs):
        for name, function in writers.items():
            started, used = time.perf_counter(), time.process_time()
            made[name][2] = function()
            made[name][0].append(time.perf_counter() - started)
            made[name][1].append(time.process_time() - used)
    return made


def browse(page: Path, regions: int) -> dict[str, float]:
    """``page`` in a headless Chromium: milliseconds to load and to unpack its lines
    (from the navigation's start), its elements then, and the seconds to show its last
    region."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,900"):  # fmt: skip
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    try:
        driver.get(page.as_uri())
        for _ in range(600):
            if driver.execute_script("return document.body.getAttribute('data-ready')"):
                break
            time.sleep(0.05)
        loaded, ready, nodes = driver.execute_script(
            "return [performance.getEntriesByType('navigation')[0].loadEventEnd,"
            " Number(document.body.getAttribute('data-ready')),"
            " document.getElementsByTagName('*').length]"
        )
        started = time.perf_counter()
        driver.execute_script("location.hash = arguments[0]", f"#region-{regions}")
        hits: list[object] = []
        while len(hits) < 2 * BLOCK_LINES and time.perf_counter() - started < 30:
            hits = driver.find_elements(By.CSS_SELECTOR, "#pane-a .l.hit, #pane-b .l.hit")
        shown = time.perf_counter() - started
        assert len(hits) == 2 * BLOCK_LINES, len(hits)
        return {"loaded": loaded, "ready": ready, "nodes": nodes, "shown": shown}
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--regions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--browser", action="store_true", help="time the page in Chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        result = make_tree(root, args.regions, args.seed)
        lines = sum(p.read_text().count("\n") for p in root.rglob("*.py"))
        print(f"{len(result.regions):,} regions, {len(result.classes):,} classes, "
              f"{len(result.files):,} files, {lines:,} lines")  # fmt: skip
        made = timed({"html": lambda: to_html(result, root=root),
                      "jsonl": lambda: "".join(jsonl_pieces(result, None)),
                      "sarif": lambda: to_sarif(result, root=root)}, args.runs)  # fmt: skip
        for name, (walls, cpus, text) in made.items():
            seconds, cpu = statistics.median(walls), statistics.median(cpus)
            data = text.encode("utf-8")
            packed = len(gzip.compress(data, compresslevel=6, mtime=0))
            print(f"  {name:5}: {len(data) / 2**20:6.1f} MiB ({packed / 2**20:5.1f} MiB "
                  f"gzipped), {seconds:5.2f} s to write, {cpu:5.2f} s CPU "
                  f"(median of {args.runs})")  # fmt: skip
            if name == "html" and args.browser:
                page = root / "report.html"
                page.write_text(text)
                seen = browse(page, len(result.regions))
                print(f"         Chromium: loaded at {seen['loaded'] / 1000:.2f} s, lines "
                      f"unpacked at {seen['ready'] / 1000:.2f} s, {seen['nodes']:,} elements, "
                      f"{seen['shown']:.2f} s to show the last region side by side")  # fmt: skip
        ratios = [statistics.median(h / j for h, j in zip(made["html"][n], made["jsonl"][n]))
                  for n in (0, 1)]  # fmt: skip
        print(f"  html / jsonl: {ratios[0]:.2f}x the time, {ratios[1]:.2f}x the CPU time "
              f"(median of the rounds' ratios)")  # fmt: skip


if __name__ == "__main__":
    main()
