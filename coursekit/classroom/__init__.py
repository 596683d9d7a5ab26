"""The instructor's pipeline behind `minigrad-course`: a whole class graded by one command.

    init DIR       course directory: nbgrader_config.py, source/ from solutions/, gradebook
    release        nbgrader's exchange
    collect        from the exchange, or from an LMS download matched to a roster CSV
    grade          every submission in its own process, N at a time, resumable
    feedback       HTML per student, hidden tests removed, submitted script inert
    export         CSV, one row per student
    report         HTML summary with plots

nbgrader does the work (NbGraderAPI, its converters, its Gradebook); this package schedules
it, repairs what students break, and keeps one writer on the gradebook. The grading of one
submission is one function, grade_one.grade_submission(job) -> result dict, so that a
sealed grader can replace the in-kernel verdict without touching the rest.
"""

import sys

# jsonschema (through nbformat and nbgrader) checks the "iri" string format with
# rfc3987_syntax when that is installed (jupyter-events' jsonschema[format-nongpl] brings it),
# and that compiles 38 Lark grammars as it is imported: about 3 CPU-s in the command's process
# and again in its grading processes' (an appeal, A/B on a loaded 2-core VM: 218 s, then 96).
# No schema read here has an "iri" format: without the module, jsonschema leaves that format
# unchecked, and every other check is the same.
sys.modules.setdefault("rfc3987_syntax", None)
