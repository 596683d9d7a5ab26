"""Fixtures shared by test modules."""

import pytest


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
