"""Scenarios: load, build from a dict, override, and write back as YAML."""

from __future__ import annotations

import math
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np
import yaml

from . import _core

Overrides = Union[Mapping[str, Any], Iterable[str], None]


#: How deep a scenario value (a dict for from_dict, an override's value) may nest: a scenario is
#: six levels deep; the YAML reader refuses a few hundred.
MAX_DEPTH = 64


def _plain(value: Any, where: str, max_bytes: Optional[int] = None, origin: str = "",
           text_keys: bool = True, subject: str = "the scenario") -> Any:
    """`value` with numpy scalars and arrays turned into Python numbers and lists; TypeError
    (naming `where`) for what a scenario cannot hold, ScenarioError for nesting deeper than
    MAX_DEPTH. With `max_bytes`, InputFileError (naming `origin` and `subject`) as soon as the
    YAML of what was seen so far must exceed it: the check costs at most about max_bytes of work, whatever
    the size of `value`. Mapping keys become text (`text_keys`) or stay as they are (numpy
    ones made Python ones). Not recursive: any depth is refused, not a RecursionError."""
    out: List[Any] = [None]
    stack = [(value, where, 0, out, 0)]  # (value, its name, depth, container, key in it)
    size = 0  # bytes the YAML must have at least: text, keys, ": " and "- "
    while stack:
        item, name, depth, parent, key = stack.pop()
        if isinstance(item, np.generic):  # numpy scalars, as np.arange and np.linspace give
            item = item.item()
        elif isinstance(item, np.ndarray):
            size += 2 * item.size
            if max_bytes is not None and size > max_bytes:
                break
            item = item.tolist()
        if item is None or isinstance(item, (bool, int, float)):
            parent[key] = item
            size += 1
        elif isinstance(item, str):
            parent[key] = item
            size += len(item)
        elif isinstance(item, (Mapping, list, tuple)):
            if depth >= MAX_DEPTH:
                raise _core.ScenarioError(
                    f"{name}: nested more than {MAX_DEPTH} levels deep (a scenario is six levels "
                    "deep); is a container inside itself?")
            if isinstance(item, Mapping):
                container: Any = {}
                children = []
                for k, v in item.items():
                    if isinstance(k, np.generic):
                        k = k.item()
                    k = str(k) if text_keys else k
                    container[k] = None  # the keys' order, filled in below
                    size += len(str(k)) + 2
                    children.append((v, f"{name}.{k}", depth + 1, container, k))
                    if max_bytes is not None and size > max_bytes:
                        break
            else:
                size += 2 * len(item)
                if max_bytes is not None and size > max_bytes:
                    break
                container = [None] * len(item)
                children = [(v, f"{name}[{i}]", depth + 1, container, i) for i, v in enumerate(item)]
            parent[key] = container
            stack.extend(reversed(children))
        else:
            raise TypeError(
                f"{name}: a {type(item).__name__} cannot be a scenario value; give a number, "
                "text, true/false, or a list or mapping of those"
            )
        if max_bytes is not None and size > max_bytes:
            break
    if max_bytes is not None and size > max_bytes:
        raise _core.InputFileError(
            f"{origin}: {subject} is more than {max_bytes} bytes of YAML, over the limit of "
            f"{max_bytes} bytes (raise it with max_scenario_bytes=)")
    return out[0]


def yaml_value(value: Any, where: str = "value", max_bytes: Optional[int] = None) -> str:
    """A Python value in the YAML syntax of an override ("1.5", "30min", "[a, b]", "true").
    Raises TypeError, naming `where`, for values a scenario cannot hold, and with `max_bytes`
    InputFileError for a value whose YAML must be longer (before writing it)."""
    value = _plain(value, where, max_bytes, where, subject="the value")
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


def value_limit(max_scenario_bytes: Optional[int]) -> int:
    """The most bytes of YAML one override value may have: the scenario's own limit."""
    return _core.DEFAULT_SCENARIO_BYTES if max_scenario_bytes is None else max_scenario_bytes


def _override_list(overrides: Overrides, max_scenario_bytes: Optional[int] = None) -> List[str]:
    """"path=value" strings from a mapping {path: value} or an iterable of such strings. A
    value longer than the scenario may be (max_scenario_bytes) is refused before its YAML is
    written: the scenario with it could not be loaded again from its text."""
    limit = value_limit(max_scenario_bytes)
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        out = []
        for path, value in overrides.items():
            if not isinstance(path, str) or not path:
                raise TypeError(f"overrides: a key must be a dotted path such as 'pools.a.quota', got {path!r}")
            out.append(f"{path}={yaml_value(value, f'overrides[{path!r}]', limit)}")
        return out
    if isinstance(overrides, (str, bytes)):
        raise TypeError("overrides: give a mapping {'pools.a.quota': 16} or a list of 'path=value'")
    out = []
    for i, o in enumerate(overrides):
        if not isinstance(o, str) or "=" not in o:
            raise TypeError(f"overrides: each item must be a 'path=value' string, got {o!r}")
        if len(o) > limit:
            raise _core.InputFileError(
                f"overrides[{i}]: the value is more than {limit} bytes of YAML, over the limit of "
                f"{limit} bytes (raise it with max_scenario_bytes=)")
        out.append(o)
    return out


def _byte_limit(value: Optional[int], name: str) -> Optional[int]:
    """A byte limit argument: None (the default) or a whole number of bytes >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number of bytes, got {value!r}")
    if not 1 <= int(value) < 2**63:
        raise ValueError(f"{name} must be from 1 to 2^63 - 1 bytes, got {value}")
    return int(value)


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
        max_scenario_bytes: Optional[int] = None,
        max_data_bytes: Optional[int] = None,
    ) -> None:
        if not isinstance(text, str):
            raise TypeError(f"text: a scenario is YAML text (str), got {type(text).__name__}")
        if not isinstance(origin, str) or not isinstance(base_dir, (str, os.PathLike)):
            raise TypeError("origin and base_dir must be text (a name and a folder)")
        self._text = text
        self._origin = origin
        self._base_dir = os.path.abspath(os.fspath(base_dir))  # also right on a Dask worker elsewhere
        self._limits = (_byte_limit(max_scenario_bytes, "max_scenario_bytes"),
                        _byte_limit(max_data_bytes, "max_data_bytes"))
        self._overrides = _override_list(overrides, self._limits[0])
        self._core = _core.parse_scenario(text, origin, self._base_dir, self._overrides, *self._limits)

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        path: Union[str, os.PathLike],
        overrides: Overrides = None,
        max_scenario_bytes: Optional[int] = None,
        max_data_bytes: Optional[int] = None,
    ) -> "Scenario":
        """Loads a scenario file; relative data files resolve against the file's folder.

        The file and every data file it names must be regular files within the byte limits
        (default 1 MiB for the scenario, 256 MiB for each data file); a file that cannot be read
        raises :class:`gpucap.InputFileError` (both a ScenarioError and an OSError) with the
        system's reason.
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"path: expected a file name, got {type(path).__name__}")
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        limits = (_byte_limit(max_scenario_bytes, "max_scenario_bytes"),
                  _byte_limit(max_data_bytes, "max_data_bytes"))
        overrides = _override_list(overrides, limits[0])
        # Read once, by the C++ reader (regular files only, within the limits); the text it
        # read is what this object keeps and Dask workers rebuild from.
        core = _core.load_scenario(path, overrides, *limits)
        scenario = cls.__new__(cls)
        scenario._text = core.original_text
        scenario._origin = path
        scenario._base_dir = os.path.dirname(os.path.abspath(path))
        scenario._overrides = overrides
        scenario._limits = limits
        scenario._core = core
        return scenario

    @classmethod
    def from_yaml(cls, text: str, base_dir: str = ".", origin: str = "<yaml>") -> "Scenario":
        """A scenario from YAML text; relative data files resolve against ``base_dir``."""
        return cls(text, origin, base_dir)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: str = ".",
                  max_scenario_bytes: Optional[int] = None,
                  max_data_bytes: Optional[int] = None) -> "Scenario":
        """A scenario from a dict shaped like the YAML file (see docs/scenario-format.md).

        Values may be numpy scalars and arrays, as in overrides. Before any YAML is written,
        the dict is checked: a value a scenario cannot hold is a TypeError naming its key,
        nesting deeper than MAX_DEPTH (64) levels a ScenarioError, and a dict whose YAML would
        exceed ``max_scenario_bytes`` (default 1 MiB) an InputFileError, found after looking at
        about that many bytes of it, however large it is.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"from_dict: data must be a mapping shaped like the YAML file, got "
                            f"{type(data).__name__}")
        limit = _byte_limit(max_scenario_bytes, "max_scenario_bytes")
        plain = _plain(data, "data", _core.DEFAULT_SCENARIO_BYTES if limit is None else limit,
                       "<dict>", text_keys=False)
        text = yaml.safe_dump(plain, sort_keys=False, default_flow_style=False)
        return cls(text, "<dict>", base_dir, max_scenario_bytes=limit,
                   max_data_bytes=max_data_bytes)

    def with_overrides(self, overrides: Overrides) -> "Scenario":
        """A new scenario: this one with more overrides, e.g. ``{"pools.spot.quota": 32}``."""
        return Scenario(self._text, self._origin, self._base_dir,
                        self._overrides + _override_list(overrides, self._limits[0]), *self._limits)

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

    @property
    def input_files(self) -> List[str]:
        """The files this scenario was read from: its own file (when loaded from one) and every
        data file it names (traces, samples, catalogs). Results are never written onto them."""
        return list(self._core.input_files)

    @property
    def data_files(self) -> List[Dict[str, Any]]:
        """The data files this scenario read (not its own file), each once: dicts with path (as
        the scenario names it), resolved_path (absolute), size_bytes and sha256 (of the bytes
        parsed). Results record them as their inputs (Results.inputs)."""
        return list(self._core.data_files)

    def _spec(self) -> tuple:
        """What rebuilds this scenario elsewhere (a Dask worker): plain strings and limits."""
        return (self._text, self._origin, self._base_dir, list(self._overrides), self._limits)

    @classmethod
    def _from_spec(cls, spec: Sequence[Any]) -> "Scenario":
        text, origin, base_dir, overrides, limits = spec
        return cls(text, origin, base_dir, overrides, *limits)

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

