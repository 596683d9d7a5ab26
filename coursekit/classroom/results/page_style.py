"""A feedback page's stylesheet, small: nbconvert's classic template inlines Bootstrap 3 and
the classic notebook's CSS (117 KB, two thirds of a typical page) for the few classes a
feedback page uses. `slim` puts this in its place; the syntax colours (Pygments) and
nbgrader's own styles, in their own blocks, stay.
"""

from __future__ import annotations

import re

# nbconvert's classic template: one <style> block that starts with Bootstrap's banner
BOOTSTRAP_BLOCK = re.compile(r"<style[^>]*>\s*/\*!\s*\* Bootstrap v.*?</style>", re.S)

PAGE_CSS = """<style type="text/css">
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       color: #1f2328; background: #fff; }
#notebook-container, .container { max-width: 1000px; margin: 0 auto; padding: 0 16px; }
.cell { margin: 6px 0; padding: 4px 0; }
.prompt, .input_prompt, .anchor-link { display: none; }
.input_area { border: 1px solid #d0d7de; border-radius: 4px; background: #f6f8fa;
              padding: 6px 10px; overflow-x: auto; }
pre { margin: 0; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace;
      white-space: pre-wrap; word-wrap: break-word; }
.output_area { padding: 4px 10px; }
.output_html { overflow-x: auto; }  /* a wide graph scrolls, not the page */
.output_error, .output_stderr { background: #fff0f0; }
.rendered_html h1, .rendered_html h2, .rendered_html h3 { margin: 12px 0 6px; }
.rendered_html table { border-collapse: collapse; }
.rendered_html td, .rendered_html th { border: 1px solid #d0d7de; padding: 3px 8px; }
.rendered_html code { background: #f6f8fa; padding: 0 3px; border-radius: 3px; }
.panel { border: 1px solid #d0d7de; border-radius: 4px; margin: 8px 0; }
.panel-heading { padding: 6px 10px; background: #f6f8fa; border-bottom: 1px solid #d0d7de; }
.panel-primary { border-color: #0969da; }
.panel-primary > .panel-heading { background: #0969da; color: #fff; }
.panel-body { padding: 6px 10px; }
.pull-right { float: right; }
</style>"""


def slim(page: str) -> str:
    """The page with its Bootstrap block replaced by PAGE_CSS (unchanged if it has none)."""
    return BOOTSTRAP_BLOCK.sub(lambda _: PAGE_CSS, page, count=1)
