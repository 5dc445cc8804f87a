"""The project's GPU price catalog (data/gpu_prices.csv), wherever gpucap is installed.

    >>> import gpucap
    >>> gpucap.catalog_path()                 # the file a scenario's `catalog:` can name
    '/.../site-packages/gpucap/data/gpu_prices.csv'
    >>> gpucap.catalog(gpu="H100").head()     # its rows, cheapest on-demand GPU-hour first

`pip install` puts the catalog inside the package (gpucap/data/gpu_prices.csv); from a source
tree (PYTHONPATH=bindings/python) it is the tree's data/gpu_prices.csv. The CLI's
`gpucap catalog list` reads the same file (docs/importing.md).
"""

from __future__ import annotations

import os
from typing import Optional

import pandas as pd

_HERE = os.path.dirname(os.path.abspath(__file__))
_CANDIDATES = (
    os.path.join(_HERE, "data", "gpu_prices.csv"),  # installed with the package
    os.path.join(_HERE, "..", "..", "..", "data", "gpu_prices.csv"),  # the source tree
)


def catalog_path() -> str:
    """The path of the project's price catalog, for a scenario's top-level `catalog:` key.

    Raises FileNotFoundError (naming the places looked in) when neither the package nor a
    source tree holds it."""
    for candidate in _CANDIDATES:
        if os.path.isfile(candidate):
            return os.path.realpath(candidate)
    raise FileNotFoundError(
        "gpucap's price catalog gpu_prices.csv was not found (looked in "
        + ", ".join(os.path.normpath(c) for c in _CANDIDATES)
        + "); reinstall the package (pip install .) or give a catalog of your own"
    )


def catalog(
    path: Optional[str] = None,
    gpu: Optional[str] = None,
    provider: Optional[str] = None,
    region: Optional[str] = None,
    spot: bool = False,
    max_bytes: int = 256 << 20,
) -> pd.DataFrame:
    """The catalog's rows (default: catalog_path()), optionally of one GPU model, provider and
    region, indexed by `key` (what a pool's `catalog_row` names), cheapest on-demand price per
    GPU-hour first (with ``spot=True``: only rows with a spot price, cheapest spot first).
    Prices are USD per GPU-hour (the instance's price over its GPUs); a blank spot price is NaN
    (no spot offer). GPU model and provider match case-insensitively, as ``gpucap catalog list``
    does: the same reader (at most ``max_bytes``, a regular file) and the same rows.

    Raises gpucap.InputFileError (an OSError) for a file that cannot be read (missing, a FIFO,
    a device, too large) and ValueError for one that is not a price catalog (naming the file,
    line and column)."""
    from . import _core

    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file name, got {type(path).__name__}")
    columns = _core.read_catalog(
        os.fsdecode(os.fspath(path)) if path is not None else catalog_path(),
        gpu or "",
        provider or "",
        region or "",
        bool(spot),
        int(max_bytes),
    )
    table = pd.DataFrame(columns)
    table["gpu_count"] = table["gpu_count"].astype("Int64")
    return table.set_index("key")
