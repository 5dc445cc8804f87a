"""Scenarios: load, build from a dict, override, and write back as YAML."""

from __future__ import annotations

import math
import os
from typing import Any, Iterable, List, Mapping, Sequence, Union

import numpy as np
import yaml

from . import _core

Overrides = Union[Mapping[str, Any], Iterable[str], None]


def yaml_value(value: Any) -> str:
    """A Python value in the YAML syntax of an override ("1.5", "30min", "[a, b]", "true")."""
    if isinstance(value, np.generic):  # numpy scalars, as np.arange and np.linspace give
        value = value.item()
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    text = yaml.safe_dump(value, default_flow_style=True, width=math.inf, sort_keys=False)
    text = text.strip()
    if text.endswith("..."):
        text = text[:-3].strip()
    return text


def _override_list(overrides: Overrides) -> List[str]:
    """"path=value" strings from a mapping {path: value} or an iterable of such strings."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [f"{path}={yaml_value(value)}" for path, value in overrides.items()]
    if isinstance(overrides, str):
        raise TypeError("overrides: give a mapping {'pools.a.quota': 16} or a list of 'path=value'")
    return [str(o) for o in overrides]


class Scenario:
    """A validated gpucap scenario.

    Build one with :meth:`load` (a YAML file), :meth:`from_yaml` (text) or :meth:`from_dict`,
    then derive variants with :meth:`with_overrides`. Validation happens at construction, in
    the same C++ loader as the CLI: a problem raises :class:`gpucap.ScenarioError` whose message
    names the file, line and column, the key path and what would be valid.

    Overrides use the CLI's ``--set`` paths: dotted keys, with sequence items addressed by
    index or by their ``name`` (``"workloads.training.gpus"``, ``"pools.aws-spot.quota"``).
    """

    def __init__(
        self,
        text: str,
        origin: str = "<scenario>",
        base_dir: str = ".",
        overrides: Overrides = None,
    ) -> None:
        self._text = text
        self._origin = origin
        self._base_dir = os.path.abspath(base_dir)  # also right on a Dask worker elsewhere
        self._overrides = _override_list(overrides)
        self._core = _core.parse_scenario(text, origin, base_dir, self._overrides)

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def load(cls, path: Union[str, os.PathLike], overrides: Overrides = None) -> "Scenario":
        """Loads a scenario file; relative data files resolve against the file's folder."""
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise _core.ScenarioError(f"{path}: cannot open the scenario file ({e.strerror})") from e
        return cls(text, path, os.path.dirname(os.path.abspath(path)), overrides)

    @classmethod
    def from_yaml(cls, text: str, base_dir: str = ".", origin: str = "<yaml>") -> "Scenario":
        """A scenario from YAML text; relative data files resolve against ``base_dir``."""
        return cls(text, origin, base_dir)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: str = ".") -> "Scenario":
        """A scenario from a dict shaped like the YAML file (see docs/scenario-format.md)."""
        text = yaml.safe_dump(dict(data), sort_keys=False, default_flow_style=False)
        return cls(text, "<dict>", base_dir)

    def with_overrides(self, overrides: Overrides) -> "Scenario":
        """A new scenario: this one with more overrides, e.g. ``{"pools.spot.quota": 32}``."""
        return Scenario(self._text, self._origin, self._base_dir, self._overrides + _override_list(overrides))

    # -- views --------------------------------------------------------------------------------

    def to_yaml(self) -> str:
        """The scenario as YAML, overrides applied (what results files store)."""
        return self._core.source_text

    def to_dict(self) -> dict:
        """The scenario as a dict (overrides applied)."""
        return yaml.safe_load(self.to_yaml())

    @property
    def name(self) -> str:
        return self._core.name

    @property
    def path(self) -> str:
        """Where the scenario came from: its file, or "<dict>" / "<yaml>"."""
        return self._origin

    @property
    def base_dir(self) -> str:
        return self._base_dir

    @property
    def overrides(self) -> List[str]:
        """The overrides applied, as "path=value" strings, in order."""
        return list(self._overrides)

    @property
    def seed(self) -> int:
        return self._core.seed

    @property
    def replications(self) -> int:
        """The scenario's default number of replications."""
        return self._core.replications

    @property
    def horizon_s(self) -> float:
        return self._core.horizon_s

    @property
    def warmup_s(self) -> float:
        return self._core.warmup_s

    @property
    def pool_names(self) -> List[str]:
        return list(self._core.pool_names)

    @property
    def workload_names(self) -> List[str]:
        return list(self._core.workload_names)

    def _spec(self) -> tuple:
        """What rebuilds this scenario elsewhere (a Dask worker): plain strings."""
        return (self._text, self._origin, self._base_dir, list(self._overrides))

    @classmethod
    def _from_spec(cls, spec: Sequence[Any]) -> "Scenario":
        text, origin, base_dir, overrides = spec
        return cls(text, origin, base_dir, overrides)

    def __repr__(self) -> str:
        extra = f", {len(self._overrides)} overrides" if self._overrides else ""
        return (
            f"Scenario({self.name!r}: {len(self.pool_names)} pools, "
            f"{len(self.workload_names)} workloads, horizon {self.horizon_s / 3600:g} h{extra})"
        )


def as_scenario(scenario: Union["Scenario", str, os.PathLike]) -> Scenario:
    """A Scenario from a Scenario or a path."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.load(scenario)
    raise TypeError(f"expected a gpucap.Scenario or a path, got {type(scenario).__name__}")


__all__ = ["Scenario", "as_scenario", "yaml_value"]

