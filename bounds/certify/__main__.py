"""``python -m bounds.certify``: runs :func:`bounds.certify.cli.main`."""

from bounds.certify.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
