"""preflight's free-memory check under vLLM 0.34.0's extensible KV cache, which starts below its budget
(v1/worker/utils.py request_memory skips the check) and sizes the pool from the memory free after warmup."""
import re

import pytest

from kvplan import preflight as pf
from kvplan.api import FitFlags
from kvplan.cli.preflight import build_request

from test_extensible_kv_cache import _l4_machine

GIB = 2**30


@pytest.mark.parametrize("used_mib", [0, 1024, 4096])
def test_memory_in_use_is_what_nvidia_smi_counts_never_negative(used_mib):
    """It said 'GPU 0: 22.5 GiB free of 22.0 GiB; ... -0.5 GiB in use here comes out of it' on an idle L4: free is of
    nvidia-smi's total (22.5 GiB), the total it subtracted it from CUDA's (22.0 GiB)."""
    req, _ = build_request(None, FitFlags(vllm_version="0.34.0"), None)
    assert req.extensible_kv_cache and req.gpu_memory_utilization == 1.0
    machine = _l4_machine(used_mib)
    [finding] = pf.check_memory_free(machine, req)
    held = float(re.search(r"the (-?[\d.]+) GiB in use here comes out of it", finding.message).group(1))
    assert held == round(used_mib / 1024, 1)
    assert "starts below" not in finding.message
    assert "does not refuse a start with less free than gpu_memory_utilization 1 x the total" in finding.message
    assert finding.status == ("warn" if used_mib * 2**20 >= 2 * GIB else "pass")
