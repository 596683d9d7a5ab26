"""Fixtures shared by test modules, and the run's fresh catalogue seeds."""

import os
import secrets

import pytest

FRESH_SEEDS = 2  # tests/test_fresh_seeds.py: how many seeds each run draws


def pytest_configure(config):
    # Drawn here, in the controlling process before pytest-xdist starts its workers (they
    # inherit the environment), so every worker collects the same seeds.
    if not os.environ.get("CATALOGUE_SEEDS"):
        seeds = (secrets.randbelow(2**31) for _ in range(FRESH_SEEDS))
        os.environ["CATALOGUE_SEEDS"] = ",".join(map(str, seeds))


def pytest_report_header(config):
    seeds = os.environ["CATALOGUE_SEEDS"]
    return f"catalogue seeds drawn afresh: {seeds} (replay: CATALOGUE_SEEDS={seeds})"


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session: Playwright's sync API runs an event loop for as
    long as it is open, so a second one in the same process is refused."""
    from browser_support import CHROMIUM_ARGS, chromium_executable
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def students_distribution(tmp_path_factory):
    """The students' distribution installed in a fresh environment, one for the session
    (tests/students_distribution.py): its site-packages."""
    from students_distribution import students_distribution

    return students_distribution(tmp_path_factory)
