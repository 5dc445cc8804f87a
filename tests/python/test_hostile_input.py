"""Hostile arguments from Python: replication ranges that would wrap around 2^64, checked
before any work, with messages that name them."""

import numpy as np
import pytest

import gpucap
from conftest import MMC


@pytest.mark.parametrize("first, count", [(2**64 - 1, 2), (2**64 - 256, 257), (2**64 - 10, 1000)])
def test_a_replication_range_past_2_to_the_64_is_refused(mmc, first, count):
    # Replication 2^64 would be replication 0 again: the same random numbers twice.
    with pytest.raises(ValueError, match=r"first_replication \+ replications must be at most 2\^64 "
                                         r"\(replication indices run from 0 to 18446744073709551615\), "
                                         rf"got first_replication {first} and {count} replications: "
                                         "the index would wrap around to 0"):
        gpucap.run(mmc, replications=count, first_replication=first, progress=False)


def test_the_last_replications_before_2_to_the_64_run(mmc):
    r = gpucap.run(mmc, replications=2, first_replication=2**64 - 2, progress=False)
    assert r.first_replication == 2**64 - 2 and r.replications == 2
    again = gpucap.run(mmc, replications=1, first_replication=2**64 - 1, progress=False)
    assert np.array_equal(again.scalars[0, 0], r.scalars[0, 1], equal_nan=True)


def test_a_sweep_or_a_precision_run_past_2_to_the_64_is_refused(mmc):
    with pytest.raises(ValueError, match="got first_replication 18446744073709551615 and 2 replications"):
        gpucap.sweep(mmc, {"pools.gpus.quota": [4, 5]}, replications=2, first_replication=2**64 - 1,
                     progress=False)
    # A run to a precision may run up to max_replications: refused before its first batch.
    with pytest.raises(ValueError, match=r"got first_replication 18446744073709551360 and 1000 "
                                         "max_replications"):
        gpucap.run(mmc, precision=0.5, max_replications=1000, first_replication=2**64 - 256,
                   progress=False)
