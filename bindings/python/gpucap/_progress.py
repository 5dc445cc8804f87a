"""Progress bars for runs: tqdm in notebooks and terminals, nothing when disabled."""

from __future__ import annotations

from typing import Callable, Optional


def _tqdm_class():
    """tqdm's notebook widget when ipywidgets is there, else its text bar."""
    try:
        import ipywidgets  # noqa: F401

        from tqdm.auto import tqdm
    except ImportError:
        from tqdm.std import tqdm
    return tqdm


class Progress:
    """A progress bar over `total` replications, fed with the count done so far."""

    def __init__(self, total: Optional[int], enabled: bool, description: str = "replications") -> None:
        self._bar = _tqdm_class()(total=total, unit="rep", desc=description, leave=False) if enabled else None
        self._shown = 0

    def callback(self) -> Optional[Callable[[int], None]]:
        """What the engine calls (with the GIL) every 50 ms; None when disabled."""
        if self._bar is None:
            return None

        def update(done: int) -> None:
            if done > self._shown:
                self._bar.update(done - self._shown)
                self._shown = done

        return update

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
