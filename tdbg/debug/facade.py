"""Delegation for a facade over services (as pyOCD's ``SoCTarget`` forwards to its selected
core): ``forward(Facade, "service", Service, "a b c")`` makes ``facade.a`` read, call and assign
``facade.service.a``, so the facade declares each delegated name once."""

from __future__ import annotations

import inspect


class Forwarded:
    """``owner.<name>`` is ``owner.<service>.<name>``: a property or attribute, read and assigned."""

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


class ForwardedMethod:
    """``owner.<name>()`` calls ``owner.<service>.<name>()``: the method, bound once per facade and
    kept in its ``__dict__`` (a facade's services are made with it and never replaced; no
    ``__set__``, so that entry shadows this descriptor), so a call costs what a method call costs."""

    def __init__(self, service: str, name: str, doc: str | None) -> None:
        self.service, self.name, self.__doc__ = service, name, doc

    def __repr__(self) -> str:
        return f"<forwarded to .{self.service}.{self.name}()>"

    def __get__(self, obj: object, owner: type | None = None) -> object:
        if obj is None:
            return self
        bound = getattr(getattr(obj, self.service), self.name)
        obj.__dict__[self.name] = bound
        return bound


def forward(facade: type, service: str, of: type, names: str) -> None:
    """Forward each of ``names`` (whitespace separated) of ``facade`` to its attribute
    ``service``, an ``of``; the docstrings are ``of``'s."""
    for name in names.split():
        if name in facade.__dict__:
            raise TypeError(f"{facade.__name__}.{name} is declared twice")
        attr = inspect.getattr_static(of, name, None)
        if inspect.isfunction(attr):
            setattr(facade, name, ForwardedMethod(service, name, attr.__doc__))
        else:
            doc = attr.__doc__ if isinstance(attr, property) else None
            setattr(facade, name, Forwarded(service, name, doc))
