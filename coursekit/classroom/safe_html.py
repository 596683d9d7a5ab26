"""Submitted content shown as HTML, inert: one sanitiser (nh3) and one Content-Security-Policy.

A submission's markdown cells and outputs are shown in nbgrader's Formgrader, in the feedback
pages nbgrader makes for us, and (its notes and file names) in the class report. Script in any
of them would run with the reader's rights: for the instructor, the Jupyter server's contents
API, so the course's nbgrader_config.py, so code run as the instructor.

nbgrader renders both the Formgrader and the feedback with nbconvert's HTMLExporter, which
reads the course's config; `render_safely(c)` in nbgrader_config.py turns on nbconvert's
sanitising and routes it, and every rendered markdown cell, through `clean`.
"""

from __future__ import annotations

import nh3
from nbconvert.filters import strip_files_prefix

# nh3's allowlist, plus the attributes nbconvert's own markup needs (code highlighting,
# heading anchors). Disallowed tags go, their text stays: nothing a student wrote is lost.
ATTRIBUTES = {**nh3.ALLOWED_ATTRIBUTES, "*": {"class", "id", "title", "lang"}}
URL_SCHEMES = nh3.ALLOWED_URL_SCHEMES | {"data"}  # images a notebook embeds; see _no_data_links


def clean(fragment) -> str:
    """HTML without script, event handlers, javascript: URLs, frames, forms or styles."""
    text = fragment.decode() if isinstance(fragment, bytes) else str(fragment)
    return nh3.clean(
        text,
        attributes=ATTRIBUTES,
        # a <script>'s text is shown as text; a <style>'s (a DataFrame's repr has one) is not
        clean_content_tags={"style"},
        url_schemes=URL_SCHEMES,
        attribute_filter=_no_data_links,
    )


def _no_data_links(tag: str, attribute: str, value: str):
    """data: URLs only as an image's source (a data: link could open a page of its own)."""
    if value.strip().lower().startswith("data:") and (tag, attribute) != ("img", "src"):
        return None
    return value


def clean_markdown(rendered: str) -> str:
    """nbconvert's strip_files_prefix, then `clean`. nbgrader's formgrade and feedback
    templates render a markdown cell as `markdown2html | strip_files_prefix` with no
    sanitising step of their own, so this is the one filter all rendered markdown passes."""
    return clean(strip_files_prefix(rendered))


def render_safely(config) -> None:
    """Set nbconvert's HTMLExporter (the Formgrader's and the feedback's) to sanitise."""
    config.HTMLExporter.sanitize_html = True  # outputs cleaned, JavaScript outputs dropped
    config.HTMLExporter.filters = {
        "clean_html": "coursekit.classroom.safe_html.clean",
        "strip_files_prefix": "coursekit.classroom.safe_html.clean_markdown",
    }


# The feedback template loads MathJax 2 from here; MathJax evaluates its configuration block
# (hence 'unsafe-eval'). Inline script and event handlers stay forbidden.
MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"


def policy_meta(scripts: str = "'none'") -> str:
    """A <meta> Content-Security-Policy for a static page: no inline script, no plugins, no
    forms, no frames; `scripts` the sources it may load script from."""
    policy = (
        f"default-src 'none'; script-src {scripts}; style-src 'unsafe-inline' {MATHJAX}; "
        f"font-src {MATHJAX} data:; img-src 'self' data: https:; base-uri 'none'; "
        "form-action 'none'"
    )
    return f'<meta http-equiv="Content-Security-Policy" content="{policy}">'


FEEDBACK_SCRIPTS = f"{MATHJAX} 'unsafe-eval'"
