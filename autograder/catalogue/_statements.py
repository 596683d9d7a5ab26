"""Python statements as functions, so that `record.call` can run them and observe the outcome.

`t += s` inside a function behaves as it does at top level: an engine whose tensor has no
`__iadd__` silently rebinds the local name to a new tensor and leaves `t` unchanged, which the
scenario then observes (no version bump, old values), exactly the bug a student would hit.
"""


def iadd(t, s):
    t += s
    return t


def isub(t, s):
    t -= s
    return t


def imul(t, s):
    t *= s
    return t


def idiv(t, s):
    t /= s
    return t


def setitem(t, key, value):
    t[key] = value


def zero_(t):
    """`t.zero_()` as a statement: what it changed is then read off each name in turn."""
    t.zero_()
