"""The HTML report in a real headless Chromium (Debian's chromium and chromium-driver):
following a region's link shows and highlights the region's lines in both files.

Skipped when Chromium or its driver is missing, unless ``CI`` is ``true``: then it fails.
``SAMECODE_SCREENSHOT=PATH`` saves the screenshot there too (the docs' picture).
"""

from __future__ import annotations

import os
import shutil

import pytest

from samecode.fragments.options import FragmentOptions
from samecode.fragments.tree import scan_fragments
from samecode.reports.html import to_html
from samecode.sources.walk import WalkOptions

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

LOADER = '''"""Read rows from a table, a page at a time."""

import logging

log = logging.getLogger(__name__)


def load_rows(cursor, table, limit=100):
    query = build_query(table)
    if limit > 0:
        query = query.limit(limit)
    rows = []
    for record in cursor.execute(query):
        rows.append(convert(record, strict=True))
    log.debug("loaded %d rows from %s", len(rows), table)
    return rows
'''


@pytest.fixture
def browser(monkeypatch):
    if CHROMIUM is None or DRIVER is None:
        missing = "chromium" if CHROMIUM is None else "chromedriver"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing} is missing, and CI=true needs the browser test to run")
        pytest.skip(f"{missing} is not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # never download a browser or a driver
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,900"):  # fmt: skip
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=DRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def test_a_region_link_highlights_its_lines_in_both_files(browser, tmp_path):
    from selenium.webdriver.common.by import By

    root = tmp_path / "project"
    (root / "lib").mkdir(parents=True)
    (root / "app.py").write_text(
        "import sys\n\n\ndef main():\n    return 0\n\n\n" + LOADER.split("\n", 5)[5]
    )
    (root / "lib" / "loader.py").write_text(LOADER + "\n\nVERSION = '1.0'\n")
    (root / "notes.txt").write_text("Nothing copied here.\n")
    result = scan_fragments(
        [str(root)], FragmentOptions(tokens="code"), WalkOptions(gitignore=False)
    )
    (region,) = result.regions
    page = tmp_path / "report.html"
    page.write_text(to_html(result, root=root))
    browser.get(page.as_uri())
    assert browser.find_element(By.ID, "pair").is_displayed() is False
    browser.find_element(By.CSS_SELECTOR, 'a.region-link[href="#region-1"]').click()
    assert browser.find_element(By.ID, "pair").is_displayed()
    for pane, (start, end) in (("a", (region.a_start, region.a_end)),
                               ("b", (region.b_start, region.b_end))):  # fmt: skip
        hits = browser.find_elements(By.CSS_SELECTOR, f"#pane-{pane} .l.hit")
        assert [int(h.get_attribute("data-n")) for h in hits] == list(range(start, end + 1))
        shown = browser.find_elements(By.CSS_SELECTOR, f"#pane-{pane} .l")
        assert len(shown) > len(hits)  # context around the region
    title = browser.find_element(By.CSS_SELECTOR, "#pane-b .pane-title").text
    assert title == f"lib/loader.py:{region.b_start}-{region.b_end}"
    first_line = browser.find_element(By.CSS_SELECTOR, "#pane-a .l.hit").text
    app_lines = (root / "app.py").read_text().split("\n")
    assert first_line == app_lines[region.a_start - 1]
    assert browser.current_url.endswith("#region-1")
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    wanted = os.environ.get("SAMECODE_SCREENSHOT")
    if wanted:
        shutil.copyfile(shot, wanted)


def test_a_copied_minified_bundle_is_shown_cut(browser, tmp_path):
    from selenium.webdriver.common.by import By

    bundle = "".join(f"var a{i}=function(b,c){{return b+c*{i % 997}}};" for i in range(25_000))
    (tmp_path / "a.min.js").write_text(bundle)
    (tmp_path / "b.min.js").write_text("var first=1;\n" + bundle + "\n")
    result = scan_fragments([str(tmp_path)], FragmentOptions(), WalkOptions(gitignore=False))
    page = tmp_path / "report.html"
    page.write_text(to_html(result, root=tmp_path))
    browser.get(page.as_uri())
    browser.find_element(By.CSS_SELECTOR, 'a.region[href="#region-1"]').click()
    for pane in "ab":
        (hit,) = browser.find_elements(By.CSS_SELECTOR, f"#pane-{pane} .l.hit")
        cut = hit.find_element(By.CLASS_NAME, "cut").text
        assert cut.startswith(f"\u2026 {len(bundle) - 1000:,} more characters not shown")
        assert hit.text.startswith(bundle[:200])
