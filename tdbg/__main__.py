"""``python -m tdbg``."""

from tdbg.cli.main import main

raise SystemExit(main())
