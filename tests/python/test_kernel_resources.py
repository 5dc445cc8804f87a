"""The kernel resource guard (tests/device/check_kernel_resources.py) on hand-made ptxas reports:
what it reads, and each way it fails. The real report is checked by ctest's
DeviceKernels.WithinTheirResourceBudget wherever the CUDA backend is built."""

import importlib.util
import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPT = ROOT / "tests" / "device" / "check_kernel_resources.py"

REPORT = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN3cub17for_each_SimulateItemsEv' for 'sm_90'
ptxas info    : Function properties for _ZN3cub17for_each_SimulateItemsEv
    1640 bytes stack frame, 1640 bytes spill stores, 4560 bytes spill loads
ptxas info    : Used 80 registers, used 1 barriers, 384 bytes cmem[0]
ptxas info    : Function properties for _ZN6gpucap10run_engineEv
    96 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Compiling entry function '_ZN3cub17for_each_ReduceBlocksEv' for 'sm_90'
ptxas info    : Function properties for _ZN3cub17for_each_ReduceBlocksEv
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 380 bytes cmem[0]
"""


def load():
    spec = importlib.util.spec_from_file_location("check_kernel_resources", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(tmp_path, budget, report=REPORT):
    (tmp_path / "report.txt").write_text(report)
    (tmp_path / "budget.txt").write_text(budget)
    return subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "report.txt"),
                           str(tmp_path / "budget.txt")], capture_output=True, text=True)


def test_reads_kernels_and_their_callees():
    functions = load().parse_report(REPORT)
    simulate = functions[("_ZN3cub17for_each_SimulateItemsEv", "sm_90")]
    assert simulate == {"entry": True, "registers": 80, "stack": 1640, "spill_stores": 1640,
                        "spill_loads": 4560}
    assert functions[("_ZN3cub17for_each_ReduceBlocksEv", "sm_90")]["registers"] == 40
    callee = functions[("_ZN6gpucap10run_engineEv", "sm_90")]
    assert not callee["entry"] and callee["spill_stores"] == 8


BUDGET = """\
# part arch registers stack spill_stores spill_loads
SimulateItems sm_90 80 1640 1640 4560
ReduceBlocks  sm_90 40 0 0 0
run_engine    sm_90 0 96 8 8
"""


def test_within_budget_passes(tmp_path):
    result = check(tmp_path, BUDGET)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kernels within their budget" in result.stdout


@pytest.mark.parametrize("budget, message", [
    (BUDGET.replace("80 1640 1640 4560", "72 1640 1640 4560"), "registers 80 over its budget of 72"),
    (BUDGET.replace("80 1640 1640 4560", "80 1640 1000 4560"), "spill_stores 1640 over its budget of 1000"),
    (BUDGET.replace("run_engine    sm_90 0 96 8 8\n", ""), "spills without a budget row"),
    (BUDGET.replace("ReduceBlocks  sm_90 40 0 0 0\n", ""), "has no budget row"),
    (BUDGET + "Vanished sm_90 1 1 1 1\n", "'Vanished' (sm_90) matches no function"),
    (BUDGET.replace("sm_90 40", "sm_80 40"), "matches no function"),
])
def test_each_way_it_fails(tmp_path, budget, message):
    result = check(tmp_path, budget)
    assert result.returncode == 1
    assert message in result.stdout, result.stdout


def test_a_kinder_figure_is_noted(tmp_path):
    result = check(tmp_path, BUDGET.replace("80 1640 1640 4560", "96 1640 1640 4560"))
    assert result.returncode == 0
    assert "registers 80 under its budget of 96" in result.stdout


def test_refuses_a_report_without_kernels_and_a_bad_row(tmp_path):
    assert "no kernel in the report" in check(tmp_path, BUDGET, report="nvcc warning\n").stderr
    bad = check(tmp_path, "SimulateItems sm_90 80 lots 0 0\n")
    assert bad.returncode != 0 and "budget.txt:1: expected NAME_PART" in bad.stderr
    missing = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "none.txt"),
                              str(tmp_path / "budget.txt")], capture_output=True, text=True)
    assert missing.returncode != 0 and "build the CUDA backend first" in missing.stderr
