"""Delegation for a facade over services (as pyOCD's ``SoCTarget`` forwards to its selected
core): ``forward(Facade, "service", "a b c")`` makes ``facade.a`` read, call and assign
``facade.service.a``, so the facade declares each delegated name once."""

from __future__ import annotations


class Forwarded:
    """``owner.<name>`` is ``owner.<service>.<name>`` (methods, properties and attributes)."""

    def __init__(self, service: str, name: str, doc: str | None) -> None:
        self.service, self.name, self.__doc__ = service, name, doc

    def __get__(self, obj: object, owner: type | None = None) -> object:
        if obj is None:
            return self
        return getattr(getattr(obj, self.service), self.name)

    def __set__(self, obj: object, value: object) -> None:
        setattr(getattr(obj, self.service), self.name, value)

    def __repr__(self) -> str:
        return f"<forwarded to .{self.service}.{self.name}>"


def forward(facade: type, service: str, of: type, names: str) -> None:
    """Forward each of ``names`` (whitespace separated) of ``facade`` to its attribute
    ``service``, an ``of``; the docstrings are ``of``'s."""
    for name in names.split():
        if name in facade.__dict__:
            raise TypeError(f"{facade.__name__}.{name} is declared twice")
        attr = getattr(of, name, None)
        doc = attr.__doc__ if callable(attr) or isinstance(attr, property) else None
        setattr(facade, name, Forwarded(service, name, doc))
