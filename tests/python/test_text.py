"""Text between C++ and Python never raises UnicodeDecodeError: names, attributes and error
texts holding bytes that are not UTF-8 (results files written by older versions or by hand,
paths on disk) decode with U+FFFD for each invalid byte (bindings/src/text_caster.hpp)."""

import os
import pathlib

import h5py
import numpy as np
import pytest

import gpucap

BAD = b"\xff\xfe"  # never valid in UTF-8
REPLACED = "\ufffd\ufffd"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    from conftest import MMC

    path = tmp_path_factory.mktemp("text") / "r.h5"
    gpucap.run(gpucap.Scenario.from_yaml(MMC), replications=8, seed=1, progress=False).save(path)
    return path


def rewrite_as_format_1(source, target, attributes):
    """A copy of results file `source` as format version 1 (no user block, no checksums: what
    gpucap 0.1 wrote, and what a hand-made file may be) with root attributes set to raw bytes."""
    with h5py.File(source, "r") as src, h5py.File(target, "w") as dst:
        for name in src:
            src.copy(name, dst)
        for name, value in src.attrs.items():
            dst.attrs[name] = value
        dst.attrs["format_version"] = np.int32(1)
        del dst.attrs["content_checksum"]
        text = h5py.string_dtype("utf-8")
        for name, raw in attributes.items():
            dst.attrs.create(name, np.array(raw, dtype=object), dtype=text)
        if "pool_names" in attributes:  # the pools' names: an attribute and a dataset
            names = [attributes["pool_names"]]
            dst["pools"].attrs.create("pool_names", np.array(names, dtype=object), dtype=text)
            del dst["pools/names"]
            dst["pools"].create_dataset("names", data=np.array(names, dtype=object), dtype=text)


def test_a_results_file_whose_attributes_are_not_utf8_reads_with_replacement(saved, tmp_path):
    path = tmp_path / "by_hand.h5"
    rewrite_as_format_1(saved, path, {
        "scenario_name": b"name " + BAD,
        "scenario": b"name: x " + BAD + b"\n",
        "backend": b"cpu " + BAD,
        "device": b"host " + BAD,
        "gpucap_version": b"0.0 " + BAD,
    })
    r = gpucap.load_results(path)
    assert r.scenario_name == "name " + REPLACED
    assert r.scenario_text == "name: x " + REPLACED + "\n"
    assert r.scenario_source == r.scenario_text  # format 1 kept no original text
    assert r.backend == "cpu " + REPLACED
    assert r.device == "host " + REPLACED
    assert "name " + REPLACED in repr(r)
    assert r.summary().loc["cost", "n"] == 8


def test_pool_names_that_are_not_utf8_read_with_replacement(saved, tmp_path):
    path = tmp_path / "pools.h5"
    rewrite_as_format_1(saved, path, {"pool_names": b"gpus " + BAD})
    try:
        r = gpucap.load_results(path)
    except gpucap.ResultsFileError as e:  # a reader that checks the pools' names differently
        assert REPLACED in str(e)
        return
    assert r.pool_names == ["gpus " + REPLACED]
    assert list(r.pool_summary(["utilization"]).index.get_level_values("pool")) == ["gpus " + REPLACED]


def test_text_the_writer_was_given_as_bytes_round_trips_through_a_checksummed_file(saved, tmp_path):
    r = gpucap.load_results(saved)
    core = gpucap._core.Results.from_arrays(
        r._core, np.ascontiguousarray(r.scalars), np.ascontiguousarray(r.pool_values), 0,
        b"backend " + BAD, b"device " + BAD, 1, 0.5)
    assert core.backend == "backend " + REPLACED
    path = tmp_path / "bytes.h5"
    gpucap.Results(core).save(path)
    back = gpucap.load_results(path)  # format 5: user block and content checksum verified
    assert (back.backend, back.device) == ("backend " + REPLACED, "device " + REPLACED)


def test_error_texts_holding_bytes_that_are_not_utf8_raise_their_own_exception():
    # pybind11 sets an error's text strictly: one invalid byte turned the error into a
    # UnicodeDecodeError. Now the text decodes with replacement, and the exception is the one
    # the C++ error maps to (a ScenarioError, a ValueError for std::invalid_argument).
    with pytest.raises(gpucap.ScenarioError) as error:
        gpucap._core.expand_grid([("a", [])], b"grid " + BAD)
    assert str(error.value) == "grid " + REPLACED + " entry 'a' has no values"
    from conftest import MMC

    core = gpucap.Scenario.from_yaml(MMC)._core
    with pytest.raises(ValueError) as error:
        gpucap._core.run([core], [], core, 2, None, 0, b"gpu" + BAD, 0, None)
    assert type(error.value) is ValueError
    assert str(error.value).startswith("unknown backend 'gpu" + REPLACED + "'; valid: auto, cpu")


def test_a_path_that_is_not_utf8_reaches_cpp_and_its_error_names_its_bytes(tmp_path):
    # os.fsdecode stands a surrogate in for each byte of a name that is not UTF-8: the call
    # reaches C++ with those bytes (it failed with "incompatible function arguments"), whose
    # error escapes them.
    missing = os.fsdecode(os.fsencode(str(tmp_path)) + b"/missing " + BAD + b".h5")
    with pytest.raises(gpucap.ResultsFileError, match=r"missing \\xff\\xfe\.h5': No such file"):
        gpucap.load_results(missing)


def test_a_file_whose_name_is_not_utf8_is_read_and_written(saved, tmp_path):
    name = os.fsdecode(os.fsencode(str(tmp_path)) + b"/r" + BAD + b".h5")
    gpucap.load_results(saved).save(name)
    assert os.path.exists(os.fsencode(str(tmp_path)) + b"/r" + BAD + b".h5")
    assert gpucap.load_results(name).replications == 8


def test_a_scenario_file_whose_name_is_not_utf8_is_not_an_unicode_error(tmp_path):
    from conftest import MMC

    raw = os.fsencode(str(tmp_path)) + b"/s" + BAD + b".yaml"
    with open(raw, "w") as f:
        f.write(MMC)
    s = gpucap.Scenario.load(os.fsdecode(raw))
    assert s.name == "python test M/M/4"
    assert s.input_files == [os.fsdecode(raw)]  # paths decode as os.fsdecode does: the same file


def test_every_binding_source_decodes_text_with_replacement():
    # A source that converted std::string without the caster of text_caster.hpp would raise
    # UnicodeDecodeError for its text (and break the one-definition rule).
    sources = pathlib.Path(__file__).resolve().parents[2] / "bindings" / "src"
    for source in sources.glob("*.cpp"):
        assert '#include "text_caster.hpp"' in source.read_text(), source.name
