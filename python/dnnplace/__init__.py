"""dnnplace: optimal placement of DNN operators on accelerators and CPU cores.

The C++ library's workloads, solve, evaluate, compare and ONNX importer
(docs/python.md). `import dnnplace.torch` (PyTorch profiling) is separate:
torch is slow to import.
"""

from ._core import *  # noqa: F401,F403
from ._core import Workload, Plan, solve, evaluate

__all__ = [
    "Workload", "Plan", "Device", "DeviceReport", "Evaluation", "CompareRow",
    "solve", "evaluate", "compare", "render", "import_onnx", "methods", "default_methods",
    "load", "device_spec", "operator_latency_ms", "transfer_ms", "build_costed_workload",
]


def load(path):
    """Workload.load(path): reads a workload JSON file."""
    return Workload.load(path)
