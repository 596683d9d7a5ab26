"""Grad mode: whether operations record a graph (`no_grad`, `enable_grad`, `set_grad_enabled`)."""

import functools
import inspect
import sys

from .. import _messages as msg

_enabled = True


def is_grad_enabled():
    return _enabled


def _set(mode):
    global _enabled
    _enabled = bool(mode)


class _GradModeContext:
    """Base for the context managers; each also works as a decorator, as in PyTorch."""

    _mode = True

    def __enter__(self):
        self._previous = _enabled
        _set(self._mode)
        return None

    def __exit__(self, *exc):
        _set(self._previous)
        return False

    def __call__(self, fn):
        return _decorate(fn, self.__class__)


class _NoParamContext(_GradModeContext):
    """`@no_grad` and `@enable_grad` also work without parentheses, as in PyTorch."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamContext):
    _mode = False


class enable_grad(_NoParamContext):
    _mode = True


class set_grad_enabled(_GradModeContext):
    """Sets the mode at once (usable as a plain call) and restores it on exit."""

    def __init__(self, mode):
        if not isinstance(mode, bool):  # PyTorch's argument parser takes a real bool only
            raise TypeError(msg.arg_type("set_grad_enabled", "enabled", 1, "bool", mode))
        self._previous = _enabled
        self._mode = bool(mode)
        _set(mode)

    def __enter__(self):
        return None

    def __call__(self, fn):
        mode = self._mode
        _set(self._previous)  # as a decorator it must not change the mode now
        return _decorate(fn, lambda: set_grad_enabled(mode))


def _decorate(fn, make_context):
    """Run `fn` under a fresh context. A generator function's body runs under it on every
    resume, not only while the generator object is made (PyTorch's _wrap_generator): the
    caller's mode holds between yields."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generator(*args, **kwargs):
            gen = fn(*args, **kwargs)
            try:
                with make_context():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with make_context():
                            gen.close()
                        raise
                    except BaseException:
                        with make_context():
                            response = gen.throw(*sys.exc_info())
                    else:
                        with make_context():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with make_context():
            return fn(*args, **kwargs)

    return wrapper
