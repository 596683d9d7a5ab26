"""Results: feedback pages, the grade table, CSV and LMS exports, the report."""
