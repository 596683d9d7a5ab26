"""Intake: the roster, and what students hand in, into the course's submitted/."""
