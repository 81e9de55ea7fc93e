import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _not_under_wsl2(monkeypatch):
    """Plans read the same on a WSL2 developer box as elsewhere: GPU detection (whose NVML the tests fake) is not told
    it runs under WSL2 by this machine's kernel. tests/test_wsl2_totals.py undoes it where it reads the kernel."""
    import kvplan.resolve

    monkeypatch.setattr(kvplan.resolve, "running_under_wsl2", lambda: False)
