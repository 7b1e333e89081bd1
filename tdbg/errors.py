"""The error of the session API (``tdbg.session`` and the modules its ``Session`` is built from)."""


class SessionError(Exception):
    """A request the session cannot carry out; the message is one line for the user."""
