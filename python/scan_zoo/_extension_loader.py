"""The compiled extension, imported once, with a message that says what to do when it is missing."""
try:
    from . import _extension as extension
except ImportError as error:  # a source tree on sys.path, not an installed package
    raise ImportError("scan_zoo: its CUDA extension is not built here; install the package with "
                      "`pip install .` from the repository (docs/python.md)") from error
