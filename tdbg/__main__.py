"""``python -m tdbg``.

Run from the folder above a clone named ``tdbg``, the clone (a directory without
``__init__.py``, first on ``sys.path``) is imported as a namespace package ``tdbg``, because an
editable install's finder (setuptools' ``_EditableFinder``) comes after the path finder on
``sys.meta_path``; the submodules then come from the install, but ``tdbg`` itself, and every
package-data lookup through it (``importlib.resources.files("tdbg")``), is the clone's top
folder.  This module knows where the real package is: it puts it in place of the namespace
before anything else is imported."""

import sys


def _real_package() -> None:
    """Replace a namespace package ``tdbg`` by the regular package this file belongs to."""
    from importlib import util
    from pathlib import Path

    if getattr(sys.modules.get("tdbg"), "__file__", None) is not None:
        return
    here = Path(__file__).resolve().parent
    spec = util.spec_from_file_location("tdbg", here / "__init__.py", submodule_search_locations=[str(here)])
    assert spec is not None and spec.loader is not None
    package = util.module_from_spec(spec)
    sys.modules["tdbg"] = package
    spec.loader.exec_module(package)


_real_package()

from tdbg.cli.main import main  # noqa: E402  (after the package is the real one)

raise SystemExit(main())
