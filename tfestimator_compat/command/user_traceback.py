"""Printing an exception from user code without the frames of the code that ran it."""

import sys
import traceback as tracebacks


def print_traceback(error: BaseException, filename: str) -> None:
    """Prints `error` as an uncaught exception, from the first frame in `filename` on.

    The frames of the runner (runpy, the notebook loop) before the program's
    own are dropped; when no frame is the program's (a `SyntaxError`), none is
    shown, as Python shows none for a script that does not compile. A program's
    own `sys.excepthook` is honoured; the default one is replaced by
    `traceback.print_exception`, which also shows the lines of notebook cells.
    """
    traceback = own_frames(error.__traceback__, filename)
    error = error.with_traceback(traceback)
    if sys.excepthook is sys.__excepthook__:
        tracebacks.print_exception(type(error), error, traceback)
    else:
        sys.excepthook(type(error), error, traceback)


def own_frames(traceback, filename):
    """The tail of `traceback` that starts at the first frame from `filename`."""
    while traceback is not None and traceback.tb_frame.f_code.co_filename != filename:
        traceback = traceback.tb_next
    return traceback
