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
) -> pd.DataFrame:
    """The catalog's rows (default: catalog_path()), optionally of one GPU model and one
    provider, indexed by `key` (what a pool's `catalog_row` names), cheapest on-demand price per
    GPU-hour first. Prices are USD per GPU-hour (the instance's price over its GPUs); a blank
    spot price is NaN (no spot offer)."""
    table = pd.read_csv(path or catalog_path(), dtype={"key": str, "provider": str})
    if gpu is not None:
        table = table[table["gpu_model"] == gpu]
    if provider is not None:
        table = table[table["provider"] == provider]
    table = table.sort_values(["on_demand_usd_per_gpu_hour", "key"], kind="stable")
    return table.set_index("key")
